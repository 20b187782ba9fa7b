"""PostgreSQL thread store: for when one machine's SQLite file is outgrown.

psycopg 3 with an ``AsyncConnectionPool`` (the ``postgres`` extra), created and opened on first
use. Every save is one transaction: the thread row is inserted if new and locked
(``SELECT ... FOR UPDATE``), its run appended and the row rewritten, so a writer killed mid-save
leaves the previous version whole (PostgreSQL rolls back a transaction whose client vanished).

Tables are prefixed ``ag_ui_`` so that the store can share a database with an application. The
schema version lives in ``ag_ui_schema``; ``_postgres_schema`` holds one script per version,
applied in one transaction under ``pg_advisory_xact_lock``, so that several processes starting at
once migrate once and the others wait for it. A database migrated by a newer SDK is refused.
The connections' setup, check and messages are ``_postgres_connection``'s.

Messages and state are stored as ``TEXT`` holding wire JSON rather than ``JSONB``: a load hands
the text straight to pydantic's ``validate_json`` (one C pass for 10,000 messages), where JSONB
would be re-printed by the server and parsed twice on the client.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Optional, TypeVar

import anyio

from ag_ui.core.errors import StoreUnavailableError, ThreadNotFoundError
from ag_ui.core.types import Message
from ag_ui.store._postgres_connection import (
    check_connection,
    configure_connection,
    one_line,
    redacted_url,
    rolled_back_on_error,
)
from ag_ui.store._postgres_schema import SCHEMA_VERSION, migrate
from ag_ui.store._priority_gate import PriorityGate
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

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg_pool import AsyncConnectionPool

__all__ = ["SCHEMA_VERSION", "PostgresThreadStore", "redacted_url"]

_T = TypeVar("_T")


def _owner_is(owner: Optional[str]) -> tuple[str, tuple[Any, ...]]:
    """``owner = %s``, or ``owner IS NULL`` for anonymous threads: ``IS NOT DISTINCT FROM``
    would say the same but never uses the owner index."""
    if owner is None:
        return "owner IS NULL", ()
    return "owner = %s", (owner,)


class PostgresThreadStore(ThreadStore):
    """Threads in a PostgreSQL database (``postgresql://user:password@host:port/dbname``, any
    libpq URL); the tables are created on first use.

    Bounds: a connection attempt gives up after ``connect_timeout`` seconds (rounded up to
    whole seconds, at least 2, as libpq does), and every call returns or raises
    ``StoreUnavailableError`` within ``timeout`` seconds (waiting for a free pooled connection
    included). The pool holds ``min_size`` to ``max_size`` connections; when all are busy,
    a waiting ``save`` takes the next free one before any other waiting call, so that under
    overload new runs are refused (their load times out) rather than the replies of runs that
    have streamed. After the database comes back from an outage, psycopg_pool reconnects with
    backoff (1, 2, 4 s and so on between attempts), so the first calls after a long outage may
    still fail.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 10.0,
        connect_timeout: float = 5.0,
        min_size: int = 1,
        max_size: int = 10,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if timeout <= 0 or connect_timeout <= 0:
            raise ValueError(
                f"timeout and connect_timeout must be positive, got {timeout!r} and "
                f"{connect_timeout!r}"
            )
        if not 0 <= min_size <= max_size or max_size < 1:
            raise ValueError(
                f"the pool needs 0 <= min_size <= max_size and max_size >= 1, got min_size "
                f"{min_size!r} and max_size {max_size!r}"
            )
        self.url = url
        self._timeout = timeout
        # libpq's rule, which psycopg follows: whole seconds, at least 2 (the value messages say).
        self._connect_timeout = max(2, math.ceil(connect_timeout))
        self._min_size = min_size
        self._max_size = max_size
        self._clock = clock
        self._pool: Optional[AsyncConnectionPool[AsyncConnection[tuple[Any, ...]]]] = None
        self._migrated = False
        self._opening = anyio.Lock()
        # As many places as connections: the pool itself never queues (its queue is first come,
        # first served), the gate decides who goes next.
        self._gate = PriorityGate(max_size)

    def _unavailable(self, exc: BaseException) -> StoreUnavailableError:
        return StoreUnavailableError(
            f"the thread database {redacted_url(self.url)} did not answer: {one_line(exc)} "
            f"(timeout {self._timeout:g} s, connect_timeout {self._connect_timeout:g} s)"
        )

    # -- connection --------------------------------------------------------------------------
    async def _open_pool(self) -> AsyncConnectionPool[AsyncConnection[tuple[Any, ...]]]:
        if self._pool is not None:
            return self._pool
        try:
            from psycopg import AsyncConnection
            from psycopg_pool import AsyncConnectionPool
        except ImportError as exc:  # pragma: no cover - exercised in a bare-install test
            raise ImportError(
                "PostgresThreadStore needs psycopg 3 and psycopg-pool: install the postgres "
                "extra (pip install 'ag-ui-sdk[postgres]')"
            ) from exc
        pool: AsyncConnectionPool[AsyncConnection[tuple[Any, ...]]] = AsyncConnectionPool(
            self.url,
            connection_class=AsyncConnection,
            kwargs={"autocommit": True, "connect_timeout": self._connect_timeout},
            min_size=self._min_size,
            max_size=self._max_size,
            timeout=self._timeout,
            # A connection the database dropped (a restart) is found out before it is handed
            # over, so that one outage does not fail a call per pooled connection afterwards;
            # only a connection with something to read pays the round trip (check_connection).
            check=check_connection,
            configure=configure_connection,
            open=False,
            name="ag_ui-threads",
        )
        await pool.open(wait=False)
        self._pool = pool
        return pool

    async def _run(
        self,
        work: Callable[[AsyncConnection[tuple[Any, ...]]], Awaitable[_T]],
        *,
        urgent: bool = False,
    ) -> _T:
        from psycopg import OperationalError

        try:
            with anyio.fail_after(self._timeout):
                pool = await self._open_pool()
                async with self._gate.enter(urgent=urgent), pool.connection() as db:
                    if not self._migrated:
                        async with self._opening:
                            if not self._migrated:
                                await migrate(db, self.url)
                                self._migrated = True
                    return await work(db)
        except (OperationalError, TimeoutError) as exc:
            # OperationalError covers the pool's own PoolTimeout and a connection the server
            # closed mid-call; the transaction was rolled back by the server either way.
            raise self._unavailable(exc) from exc

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

        owner_sql, owner_args = _owner_is(owner)
        added = 0 if run is None else 1

        async def work(db: AsyncConnection[tuple[Any, ...]]) -> ThreadSummary:
            # Insert-if-new, lock, append the run, rewrite the row: sent as one pipeline, one
            # round trip where waiting for each answer took five (each a turn of a busy event
            # loop while the connection is held). Nothing in it needs an earlier answer: the
            # run's number and the owner check are in the SQL, and for someone else's thread
            # (or none) every statement after the lock changes nothing. COMMIT goes only once
            # every answer is in (a second round trip): sent with the rest, a save that timed
            # out on a stalled server would still commit when the server resumed, perhaps
            # after a later save of the same thread. Two first saves of one id at once both
            # end up locking the one row, the second waiting for the first to commit. A delete
            # committed between the insert and the lock leaves no row: save again, as a save
            # that came just after the delete would have.
            for _ in range(3):
                async with rolled_back_on_error(db), db.pipeline() as pipeline:
                    await db.execute("BEGIN")
                    await db.execute(
                        "INSERT INTO ag_ui_threads VALUES "
                        "(%s, %s, NULL, %s, %s, %s, 0, 0, 0, '[]', 'null') "
                        "ON CONFLICT (thread_id) DO NOTHING",
                        (thread_id, owner, default_title, now, now),
                    )
                    locked = await db.execute(
                        "SELECT owner FROM ag_ui_threads WHERE thread_id = %s FOR UPDATE",
                        (thread_id,),
                    )
                    if run is not None:
                        await db.execute(
                            "INSERT INTO ag_ui_thread_runs SELECT thread_id, run_count + 1, "
                            "%s, %s, %s, %s, %s, %s FROM ag_ui_threads "
                            f"WHERE thread_id = %s AND {owner_sql}",
                            (
                                run.run_id,
                                run.outcome,
                                run.started_at,
                                run.finished_at,
                                run.error_code,
                                usage,
                                thread_id,
                                *owner_args,
                            ),
                        )
                    updated = await db.execute(
                        "UPDATE ag_ui_threads SET default_title = %s, "
                        "updated_at = GREATEST(updated_at, %s), message_count = %s, "
                        "run_count = run_count + %s, version = version + 1, messages = %s, "
                        f"state = %s WHERE thread_id = %s AND {owner_sql} "
                        f"RETURNING {SUMMARY_COLUMNS}",
                        (
                            default_title,
                            now,
                            len(messages),
                            added,
                            messages_json,
                            state_json,
                            thread_id,
                            *owner_args,
                        ),
                    )
                    await pipeline.sync()
                    row = await locked.fetchone()
                    summary = await updated.fetchone()
                    await db.execute("ROLLBACK" if summary is None else "COMMIT")
                if row is not None:
                    break
            if row is None or summary is None:
                raise ThreadNotFoundError(thread_id)
            return thread_summary(summary)

        return await self._run(work, urgent=True)

    async def load(self, thread_id: str, *, owner: Optional[str]) -> StoredThread:
        owner_sql, owner_args = _owner_is(owner)

        async def work(db: AsyncConnection[tuple[Any, ...]]) -> Optional[tuple[Any, ...]]:
            # One statement, so one snapshot: a save committed meanwhile cannot show its new run
            # beside the old messages. The runs come as one JSON array (one round trip).
            cursor = await db.execute(
                f"SELECT {SUMMARY_COLUMNS}, messages, state, version, "
                "(SELECT COALESCE(json_agg(json_build_array(run_id, outcome, started_at, "
                "finished_at, error_code, usage) ORDER BY seq), '[]')::text "
                "FROM ag_ui_thread_runs r WHERE r.thread_id = t.thread_id) "
                f"FROM ag_ui_threads t WHERE thread_id = %s AND {owner_sql}",
                (thread_id, *owner_args),
            )
            return await cursor.fetchone()

        row = await self._run(work)
        if row is None:
            raise ThreadNotFoundError(thread_id)
        # The runs come as one JSON array of rows (see the query).
        return stored_thread(row, json.loads(row[10]))

    async def list_threads(
        self,
        *,
        owner: Optional[str],
        limit: int = DEFAULT_PAGE_SIZE,
        cursor: Optional[str] = None,
    ) -> ThreadPage:
        check_limit(limit, MAX_PAGE_SIZE)
        after = decode_cursor(cursor)
        owner_sql, owner_args = _owner_is(owner)
        query = f"SELECT {SUMMARY_COLUMNS} FROM ag_ui_threads WHERE {owner_sql}"
        parameters: list[Any] = list(owner_args)
        if after is not None:
            query += " AND (updated_at < %s OR (updated_at = %s AND thread_id > %s))"
            parameters += [after[0], after[0], after[1]]
        query += " ORDER BY updated_at DESC, thread_id LIMIT %s"
        parameters.append(limit + 1)  # one more says whether there is a next page

        async def work(db: AsyncConnection[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
            found = await db.execute(query, parameters)
            return await found.fetchall()

        rows = await self._run(work)
        threads = [thread_summary(row) for row in rows[:limit]]
        next_cursor = (
            encode_cursor(threads[-1].updated_at, threads[-1].thread_id)
            if len(rows) > limit
            else None
        )
        return ThreadPage(threads=threads, next_cursor=next_cursor)

    async def rename(self, thread_id: str, *, owner: Optional[str], title: str) -> ThreadSummary:
        owner_sql, owner_args = _owner_is(owner)

        async def work(db: AsyncConnection[tuple[Any, ...]]) -> ThreadSummary:
            cursor = await db.execute(
                f"UPDATE ag_ui_threads SET title = %s WHERE thread_id = %s AND {owner_sql} "
                f"RETURNING {SUMMARY_COLUMNS}",
                (title, thread_id, *owner_args),
            )
            row = await cursor.fetchone()
            if row is None:
                raise ThreadNotFoundError(thread_id)
            return thread_summary(row)

        return await self._run(work)

    async def delete(self, thread_id: str, *, owner: Optional[str]) -> None:
        owner_sql, owner_args = _owner_is(owner)

        async def work(db: AsyncConnection[tuple[Any, ...]]) -> None:
            cursor = await db.execute(
                f"DELETE FROM ag_ui_threads WHERE thread_id = %s AND {owner_sql}",
                (thread_id, *owner_args),
            )
            if not cursor.rowcount:
                raise ThreadNotFoundError(thread_id)

        await self._run(work)

    async def ping(self) -> None:
        async def work(db: AsyncConnection[tuple[Any, ...]]) -> None:
            await db.execute("SELECT 1")

        await self._run(work)

    async def aclose(self) -> None:
        pool, self._pool = self._pool, None
        self._migrated = False
        if pool is not None:
            await pool.close()
