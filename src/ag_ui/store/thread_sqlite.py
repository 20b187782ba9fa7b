"""SQLite thread store: the embedded default, one file, no server.

The standard library's ``sqlite3`` in WAL mode (readers never wait for the writer), driven from
a worker thread so the event loop never blocks on disk. Every save is one ``BEGIN IMMEDIATE``
transaction that replaces the thread row and appends its run: a process killed mid-write leaves
the previous version whole (SQLite's journal rolls the torn transaction back on next open).

The schema is versioned with ``PRAGMA user_version``; ``_MIGRATIONS`` holds one script per
version, applied in order when a store opens an older file. A file written by a newer SDK is
refused with a message saying so, rather than misread.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional, TypeVar

import anyio.to_thread

from ag_ui.core.errors import StoreUnavailableError, ThreadNotFoundError
from ag_ui.core.types import Message
from ag_ui.store._thread_base import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    RunSummary,
    StoredThread,
    ThreadPage,
    ThreadStore,
    ThreadSummary,
)
from ag_ui.store._thread_cursor import check_limit, decode_cursor, encode_cursor
from ag_ui.store._thread_rows import SUMMARY_COLUMNS, saved_columns, stored_thread, thread_summary

__all__ = ["SCHEMA_VERSION", "SqliteThreadStore"]

_T = TypeVar("_T")

_MIGRATIONS: tuple[str, ...] = (
    # 1: threads with their conversation as wire JSON, and one row per run.
    """
    CREATE TABLE threads (
        thread_id     TEXT PRIMARY KEY,
        owner         TEXT,
        title         TEXT,
        default_title TEXT NOT NULL,
        created_at    REAL NOT NULL,
        updated_at    REAL NOT NULL,
        message_count INTEGER NOT NULL,
        run_count     INTEGER NOT NULL,
        version       INTEGER NOT NULL,
        messages      TEXT NOT NULL,
        state         TEXT NOT NULL
    );
    CREATE INDEX threads_by_owner ON threads (owner, updated_at DESC, thread_id);
    CREATE TABLE runs (
        thread_id   TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        run_id      TEXT NOT NULL,
        outcome     TEXT NOT NULL,
        started_at  REAL NOT NULL,
        finished_at REAL NOT NULL,
        error_code  TEXT,
        usage       TEXT,
        PRIMARY KEY (thread_id, seq)
    );
    """,
)
SCHEMA_VERSION = len(_MIGRATIONS)
"""The schema version this SDK writes (``PRAGMA user_version`` of the file)."""


class SqliteThreadStore(ThreadStore):
    """Threads in one SQLite file (created, with its directory, on first use).

    ``timeout`` bounds how long a call waits for another process's write lock before it raises
    ``StoreUnavailableError``; several server processes may share one file.
    """

    def __init__(
        self, path: str | Path, *, timeout: float = 5.0, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = Path(path)
        self._timeout = timeout
        self._clock = clock
        self._connection: Optional[sqlite3.Connection] = None
        # One connection, used by one worker thread at a time: sqlite3 objects are not safe to
        # share between threads concurrently, and SQLite serialises writers anyway.
        self._lock = threading.Lock()

    # -- connection --------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None:
            return self._connection
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreUnavailableError(
                f"cannot open the thread database {str(self.path)!r}: {exc}; check that the "
                "directory exists and is writable"
            ) from exc
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(
                "PRAGMA synchronous=NORMAL"
            )  # WAL: durable at checkpoint, never torn
            connection.execute("PRAGMA foreign_keys=ON")
            self._migrate(connection)
        except sqlite3.DatabaseError as exc:
            connection.close()
            raise StoreUnavailableError(
                f"cannot open the thread database {str(self.path)!r}: {exc}; point the store at "
                "a SQLite file this SDK wrote, or at a path where it may create one"
            ) from exc
        except BaseException:
            connection.close()
            raise
        self._connection = connection
        return connection

    def _migrate(self, connection: sqlite3.Connection) -> None:
        connection.execute("BEGIN IMMEDIATE")
        try:
            (version,) = connection.execute("PRAGMA user_version").fetchone()
            if version > SCHEMA_VERSION:
                raise StoreUnavailableError(
                    f"the thread database {str(self.path)!r} has schema version {version}, newer "
                    f"than this SDK's {SCHEMA_VERSION}; upgrade ag-ui-sdk to open it"
                )
            for number in range(version, SCHEMA_VERSION):
                for statement in _MIGRATIONS[number].split(";"):
                    if statement.strip():
                        connection.execute(statement)
            # PRAGMA takes no parameters; the value is our own integer.
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

    async def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        def call() -> _T:
            with self._lock:
                connection = self._connect()
                try:
                    return work(connection)
                except sqlite3.OperationalError as exc:
                    if connection.in_transaction:
                        connection.execute("ROLLBACK")
                    raise StoreUnavailableError(
                        f"the thread database {str(self.path)!r} did not answer: {exc} (waited "
                        f"up to {self._timeout:g} s for its lock)"
                    ) from exc
                except BaseException:
                    if connection.in_transaction:
                        connection.execute("ROLLBACK")
                    raise

        return await anyio.to_thread.run_sync(call)

    # -- the contract ------------------------------------------------------------------------
    async def save(
        self,
        thread_id: str,
        *,
        owner: Optional[str],
        messages: Sequence[Message],
        state: Any,
        run: Optional[RunSummary] = None,
    ) -> ThreadSummary:
        messages_json, state_json, default_title, usage = saved_columns(
            thread_id, messages, state, run
        )
        now = self._clock()

        def work(db: sqlite3.Connection) -> ThreadSummary:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute(
                "SELECT owner, updated_at, run_count FROM threads WHERE thread_id = ?",
                (thread_id,),
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO threads VALUES (?, ?, NULL, ?, ?, ?, ?, 0, 0, '[]', 'null')",
                    (thread_id, owner, default_title, now, now, 0),
                )
                run_count = 0
            elif row[0] != owner:
                raise ThreadNotFoundError(thread_id)
            else:
                run_count = row[2]
            if run is not None:
                db.execute(
                    "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        thread_id,
                        run_count + 1,
                        run.run_id,
                        run.outcome,
                        run.started_at,
                        run.finished_at,
                        run.error_code,
                        usage,
                    ),
                )
                run_count += 1
            db.execute(
                "UPDATE threads SET default_title = ?, updated_at = MAX(updated_at, ?), "
                "message_count = ?, run_count = ?, version = version + 1, messages = ?, "
                "state = ? WHERE thread_id = ?",
                (
                    default_title,
                    now,
                    len(messages),
                    run_count,
                    messages_json,
                    state_json,
                    thread_id,
                ),
            )
            summary = db.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM threads WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            db.execute("COMMIT")
            return thread_summary(summary)

        return await self._run(work)

    async def load(self, thread_id: str, *, owner: Optional[str]) -> StoredThread:
        def work(db: sqlite3.Connection) -> tuple[Any, ...]:
            db.execute("BEGIN")  # one snapshot for the thread and its runs
            row = db.execute(
                f"SELECT {SUMMARY_COLUMNS}, messages, state, version FROM threads "
                "WHERE thread_id = ? AND owner IS ?",
                (thread_id, owner),
            ).fetchone()
            if row is None:
                raise ThreadNotFoundError(thread_id)
            runs = db.execute(
                "SELECT run_id, outcome, started_at, finished_at, error_code, usage FROM runs "
                "WHERE thread_id = ? ORDER BY seq",
                (thread_id,),
            ).fetchall()
            db.execute("COMMIT")
            return row, runs

        row, runs = await self._run(work)
        return stored_thread(row, runs)

    async def list_threads(
        self,
        *,
        owner: Optional[str],
        limit: int = DEFAULT_PAGE_SIZE,
        cursor: Optional[str] = None,
    ) -> ThreadPage:
        check_limit(limit, MAX_PAGE_SIZE)
        after = decode_cursor(cursor)

        def work(db: sqlite3.Connection) -> list[Any]:
            query = f"SELECT {SUMMARY_COLUMNS} FROM threads WHERE owner IS ?"
            parameters: list[Any] = [owner]
            if after is not None:
                query += " AND (updated_at < ? OR (updated_at = ? AND thread_id > ?))"
                parameters += [after[0], after[0], after[1]]
            query += " ORDER BY updated_at DESC, thread_id LIMIT ?"
            parameters.append(limit + 1)  # one more says whether there is a next page
            return db.execute(query, parameters).fetchall()

        rows = await self._run(work)
        threads = [thread_summary(row) for row in rows[:limit]]
        next_cursor = (
            encode_cursor(threads[-1].updated_at, threads[-1].thread_id)
            if len(rows) > limit
            else None
        )
        return ThreadPage(threads=threads, next_cursor=next_cursor)

    async def rename(self, thread_id: str, *, owner: Optional[str], title: str) -> ThreadSummary:
        def work(db: sqlite3.Connection) -> ThreadSummary:
            db.execute("BEGIN IMMEDIATE")
            changed = db.execute(
                "UPDATE threads SET title = ? WHERE thread_id = ? AND owner IS ?",
                (title, thread_id, owner),
            ).rowcount
            if not changed:
                raise ThreadNotFoundError(thread_id)
            row = db.execute(
                f"SELECT {SUMMARY_COLUMNS} FROM threads WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            db.execute("COMMIT")
            return thread_summary(row)

        return await self._run(work)

    async def delete(self, thread_id: str, *, owner: Optional[str]) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            if not db.execute(
                "DELETE FROM threads WHERE thread_id = ? AND owner IS ?", (thread_id, owner)
            ).rowcount:
                raise ThreadNotFoundError(thread_id)
            db.execute("COMMIT")

        await self._run(work)

    async def ping(self) -> None:
        await self._run(lambda db: db.execute("SELECT 1").fetchone())

    async def aclose(self) -> None:
        def close() -> None:
            with self._lock:
                if self._connection is not None:
                    self._connection.close()
                    self._connection = None

        await anyio.to_thread.run_sync(close)
