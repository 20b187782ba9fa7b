"""The SQLite thread store under faults: a writer killed mid-save, four writer processes at once,
a database locked by another process, a file it cannot open, a file from a newer SDK."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from ag_ui.core import UserMessage
from ag_ui.store import SqliteThreadStore, StoreUnavailableError
from ag_ui.store.thread_sqlite import SCHEMA_VERSION
from tests.store.thread_faults import (
    assert_four_writers_threads,
    assert_one_whole_version,
    kill_a_writer_mid_save,
    writer,
)

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.8])
async def test_a_writer_killed_mid_save_leaves_the_last_whole_version(
    tmp_path: Path, delay: float
) -> None:
    path = tmp_path / "threads.db"
    await kill_a_writer_mid_save(str(path), delay)
    store = SqliteThreadStore(path)
    try:
        thread = await store.load("t1", owner="alice")
    finally:
        await store.aclose()
    assert_one_whole_version(thread)


async def test_four_processes_write_a_thousand_threads(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    workers = [writer(str(path), str(worker), "250") for worker in range(4)]
    for process in workers:
        assert process.wait(timeout=90) == 0
    store = SqliteThreadStore(path)
    try:
        await assert_four_writers_threads(store)
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
