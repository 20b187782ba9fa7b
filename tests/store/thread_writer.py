"""A process that writes threads into a thread store (driven by test_thread_sqlite_faults and
test_thread_postgres_faults). TARGET is a SQLite file's path or a thread store URL.

python -m tests.store.thread_writer TARGET WORKER COUNT   write COUNT threads, once each
python -m tests.store.thread_writer TARGET forever        rewrite one thread until killed
"""

from __future__ import annotations

import asyncio
import sys

from ag_ui.core import AssistantMessage, UserMessage
from ag_ui.core.types import Message
from ag_ui.store import RunSummary, SqliteThreadStore, ThreadStore, open_thread_store


def messages_of(size: int) -> list[Message]:
    messages: list[Message] = []
    for n in range(size):
        if n % 2 == 0:
            messages.append(UserMessage(id=f"u{n}", content=f"turn {n} " + "x" * 2000))
        else:
            messages.append(AssistantMessage(id=f"a{n}", content=f"answer {n}"))
    return messages


def store_for(target: str) -> ThreadStore:
    return open_thread_store(target) if "://" in target else SqliteThreadStore(target)


async def write_threads(target: str, worker: str, count: int) -> None:
    store = store_for(target)
    for n in range(count):
        run = RunSummary(run_id=f"r-{worker}-{n}", outcome="success", started_at=0, finished_at=1)
        await store.save(
            f"w{worker}-t{n}",
            owner="team",
            messages=messages_of(n % 5 + 1),
            state={"n": n},
            run=run,
        )
    await store.aclose()


async def rewrite_forever(target: str) -> None:
    store = store_for(target)
    n = 0
    while True:
        n += 1
        run = RunSummary(run_id=f"r{n}", outcome="success", started_at=n, finished_at=n)
        # Each version grows the conversation, so a torn write would show as a state that does
        # not match the messages, or a run count that does not match the runs.
        await store.save("t1", owner="alice", messages=messages_of(n), state={"n": n}, run=run)
        if n == 1:
            print("first save", flush=True)


if __name__ == "__main__":
    if sys.argv[2] == "forever":
        asyncio.run(rewrite_forever(sys.argv[1]))
    else:
        asyncio.run(write_threads(sys.argv[1], sys.argv[2], int(sys.argv[3])))
