"""The SQLite thread store under faults: a writer killed mid-save, four writer processes at once,
a database locked by another process, a file it cannot open, a file from a newer SDK."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ag_ui.core import UserMessage
from ag_ui.store import SqliteThreadStore, StoreUnavailableError
from ag_ui.store.thread_sqlite import SCHEMA_VERSION

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]


def writer(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store.thread_writer", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.8])
async def test_a_writer_killed_mid_save_leaves_the_last_whole_version(
    tmp_path: Path, delay: float
) -> None:
    path = tmp_path / "threads.db"
    process = writer(str(path), "forever")
    assert process.stdout is not None
    assert process.stdout.readline() == "first save\n"
    await asyncio.sleep(delay)  # the writer saves in a loop: the kill lands mid-save or between
    process.kill()
    process.wait(timeout=10)
    store = SqliteThreadStore(path)
    try:
        thread = await store.load("t1", owner="alice")
    finally:
        await store.aclose()
    n = thread.state["n"]
    assert n >= 1
    assert len(thread.messages) == n
    assert thread.summary.message_count == n
    assert thread.version == n
    assert [run.run_id for run in thread.runs] == [f"r{k}" for k in range(1, n + 1)]
    assert thread.summary.run_count == n


async def test_four_processes_write_a_thousand_threads(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    workers = [writer(str(path), str(worker), "250") for worker in range(4)]
    for process in workers:
        assert process.wait(timeout=90) == 0
    store = SqliteThreadStore(path)
    try:
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
    finally:
        await store.aclose()


async def test_a_locked_database_fails_within_the_timeout(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    store = SqliteThreadStore(path, timeout=0.3)
    await store.save("t1", owner=None, messages=[], state={})
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holding the write lock
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailableError, match=r"did not answer.*waited up to 0\.3 s"):
            await store.save(
                "t1", owner=None, messages=[UserMessage(id="u", content="hi")], state={}
            )
        assert time.monotonic() - started < 5
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    # Once the lock is released the same store works again, and the failed save left nothing.
    thread = await store.load("t1", owner=None)
    assert thread.messages == []
    assert thread.version == 1
    await store.aclose()


async def test_a_path_it_cannot_create_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = SqliteThreadStore(blocker / "threads.db")
    with pytest.raises(StoreUnavailableError, match="cannot open the thread database"):
        await store.ping()


async def test_a_database_from_a_newer_sdk_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    store = SqliteThreadStore(path)
    with pytest.raises(StoreUnavailableError, match=r"newer than this SDK's .*upgrade ag-ui-sdk"):
        await store.ping()


async def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    path.write_bytes(b"this is not sqlite" * 100)
    store = SqliteThreadStore(path)
    with pytest.raises(
        StoreUnavailableError, match=r"threads\.db.*file is not a database; point the store at"
    ):
        await store.ping()
