"""Thread stores: read (load) and write (save) a long conversation, per backend.

The target (issue "threads"): a thread of 10,000 messages is read in under 100 ms. The read is
the whole of ``load``: the row fetched, its JSON parsed and validated into typed messages.

    .venv/bin/python benchmarks/bench_threads.py [--messages 10000] [--rounds 7]

The PostgreSQL row runs against AG_UI_BENCH_POSTGRES_URL when set (a database it may create
tables in), else against a throwaway cluster it starts and removes (tests/postgres_helpers.py:
initdb in a temp dir, fsync on as in production, 127.0.0.1); without PostgreSQL installed the row
is left out, saying why.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ag_ui.core import AssistantMessage, ToolCall, UserMessage
from ag_ui.core.types import FunctionCall, Message, ToolMessage
from ag_ui.store import InMemoryThreadStore, SqliteThreadStore, ThreadStore

ROOT = Path(__file__).resolve().parent.parent


def conversation(size: int) -> list[Message]:
    """A realistic mix: user turns, assistant answers, tool calls and their results."""
    messages: list[Message] = []
    for n in range(size):
        kind = n % 4
        if kind == 0:
            messages.append(UserMessage(id=f"m{n}", content=f"question {n}: what about Brest?"))
        elif kind == 1:
            call = ToolCall(
                id=f"c{n}", function=FunctionCall(name="tides", arguments='{"port":"Brest"}')
            )
            messages.append(AssistantMessage(id=f"m{n}", content="Checking.", tool_calls=[call]))
        elif kind == 2:
            messages.append(ToolMessage(id=f"m{n}", tool_call_id=f"c{n - 1}", content="14:02"))
        else:
            messages.append(AssistantMessage(id=f"m{n}", content="High tide is at 14:02. " * 4))
    return messages


async def measure(store: ThreadStore, messages: list[Message], rounds: int) -> tuple[float, float]:
    saves: list[float] = []
    loads: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        await store.save("long", owner="alice", messages=messages, state={"n": len(messages)})
        saves.append(time.perf_counter() - started)
        started = time.perf_counter()
        loaded = await store.load("long", owner="alice")
        loads.append(time.perf_counter() - started)
        assert len(loaded.messages) == len(messages)
    return statistics.median(saves) * 1000, statistics.median(loads) * 1000


@contextmanager
def postgres_url() -> Iterator[str | None]:
    """The database to measure: the environment's, else a throwaway cluster's (``None`` when
    PostgreSQL or the postgres extra is missing)."""
    given = os.environ.get("AG_UI_BENCH_POSTGRES_URL")
    if given:
        yield given
        return
    sys.path.insert(0, str(ROOT))  # the cluster helper the tests use
    try:
        import psycopg  # noqa: F401

        from tests.postgres_helpers import PostgresServer

        server = PostgresServer(fsync=True)
    except BaseException as exc:  # pytest.fail (no PostgreSQL) raises a BaseException
        print(f"postgres: left out ({' '.join(str(exc).split())[:200]})")
        yield None
        return
    try:
        yield server.database()
    finally:
        server.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--backends",
        default="memory,sqlite,postgres",
        help="comma-separated, measured in this order (each one's objects stay alive for the "
        "next, so a later backend's garbage-collector passes cost a little more)",
    )
    args = parser.parse_args()
    messages = conversation(args.messages)
    print(f"thread of {args.messages:,} messages, median of {args.rounds} rounds")
    print(f"{'backend':<10} {'save ms':>9} {'load ms':>9}  target: load < 100 ms")
    backends = args.backends.split(",")
    unknown = set(backends) - {"memory", "sqlite", "postgres"}
    if unknown:
        parser.error(f"unknown backends {sorted(unknown)}; choose among memory, sqlite, postgres")
    with tempfile.TemporaryDirectory() as directory, postgres_url() as url:
        stores: list[tuple[str, ThreadStore]] = []
        for name in backends:
            if name == "memory":
                stores.append((name, InMemoryThreadStore()))
            elif name == "sqlite":
                stores.append((name, SqliteThreadStore(Path(directory) / "threads.db")))
            elif url is not None:
                from ag_ui.store import PostgresThreadStore

                stores.append((name, PostgresThreadStore(url)))
        for name, store in stores:
            save_ms, load_ms = await measure(store, messages, args.rounds)
            verdict = "ok" if load_ms < 100 else "OVER"
            print(f"{name:<10} {save_ms:>9.1f} {load_ms:>9.1f}  {verdict}")
            await store.aclose()


if __name__ == "__main__":
    asyncio.run(main())
