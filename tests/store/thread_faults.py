"""What the SQLite and PostgreSQL thread stores' fault tests share: the writer processes
(``tests/store/thread_writer.py``) and the checks of what they leave behind."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from ag_ui.store import StoredThread, ThreadStore

ROOT = Path(__file__).resolve().parents[2]


def writer(*args: str) -> subprocess.Popen[str]:
    """A ``thread_writer`` process with these arguments (its first is the store's target)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store.thread_writer", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


async def kill_a_writer_mid_save(target: str, delay: float) -> None:
    """Start a writer saving ``t1`` in a loop, and kill it ``delay`` seconds after its first
    save: the kill lands mid-save or between two."""
    process = writer(target, "forever")
    assert process.stdout is not None
    assert process.stdout.readline() == "first save\n"
    await asyncio.sleep(delay)
    process.kill()
    process.wait(timeout=10)


def assert_one_whole_version(thread: StoredThread) -> None:
    """The thread is the writer's n-th save throughout: messages, summary, version and runs."""
    n = thread.state["n"]
    assert n >= 1
    assert len(thread.messages) == n
    assert thread.summary.message_count == n
    assert thread.version == n
    assert [run.run_id for run in thread.runs] == [f"r{k}" for k in range(1, n + 1)]
    assert thread.summary.run_count == n


async def assert_four_writers_threads(store: ThreadStore) -> None:
    """The store holds the 1,000 threads four writers of 250 saved, and the last one whole."""
    seen: list[str] = []
    cursor = None
    while True:
        page = await store.list_threads(owner="team", limit=500, cursor=cursor)
        seen += [summary.thread_id for summary in page.threads]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == sorted(f"w{w}-t{n}" for w in range(4) for n in range(250))
    sample = await store.load("w3-t249", owner="team")
    assert sample.state == {"n": 249}
    assert len(sample.messages) == 249 % 5 + 1
    assert [run.run_id for run in sample.runs] == ["r-3-249"]
