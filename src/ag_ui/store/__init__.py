"""Run stores for resumable runs: in-memory (default) and Redis Streams (across workers); thread
stores for conversations kept after their runs: in-memory, SQLite and PostgreSQL, opened by
URL with ``open_thread_store``.

``RedisRunStore``, ``PostgresThreadStore`` and ``SqliteThreadStore`` are imported lazily, so that
the in-memory and SQLite stores need no extra (``import ag_ui.store`` imports neither redis nor
psycopg) and a server that keeps no thread pays nothing for sqlite3. The errors a
store raises live in the SDK's one error tree (``ag_ui.core.errors``) and are re-exported here
and by ``ag_ui.server``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)

try:
    import anyio  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a bare-install test
    raise ImportError(
        "ag_ui.store needs anyio: install the server extra (pip install 'ag-ui-sdk[server]'); "
        "RedisRunStore also needs the redis extra"
    ) from exc

from ag_ui.core.errors import (
    HistoryTrimmedError,
    RunAbandonedError,
    RunNotFoundError,
    StoreFullError,
    StoreUnavailableError,
    ThreadNotFoundError,
)
from ag_ui.store._base import RunRecord, RunStore, StoredEvent
from ag_ui.store._thread_base import (
    RunSummary,
    StoredThread,
    ThreadPage,
    ThreadStore,
    ThreadSummary,
)
from ag_ui.store.memory import InMemoryRunStore
from ag_ui.store.thread_memory import InMemoryThreadStore
from ag_ui.store.thread_url import open_thread_store

if TYPE_CHECKING:
    from ag_ui.store.redis import RedisRunStore
    from ag_ui.store.thread_postgres import PostgresThreadStore
    from ag_ui.store.thread_sqlite import SqliteThreadStore

__all__ = [
    "HistoryTrimmedError",
    "InMemoryRunStore",
    "InMemoryThreadStore",
    "PostgresThreadStore",
    "RedisRunStore",
    "RunAbandonedError",
    "RunNotFoundError",
    "RunRecord",
    "RunStore",
    "RunSummary",
    "SqliteThreadStore",
    "StoreFullError",
    "StoreUnavailableError",
    "StoredEvent",
    "StoredThread",
    "ThreadNotFoundError",
    "ThreadPage",
    "ThreadStore",
    "ThreadSummary",
    "open_thread_store",
]


def __getattr__(name: str) -> Any:
    if name == "RedisRunStore":
        from ag_ui.store.redis import RedisRunStore

        return RedisRunStore
    if name == "PostgresThreadStore":
        from ag_ui.store.thread_postgres import PostgresThreadStore

        return PostgresThreadStore
    if name == "SqliteThreadStore":  # lazily too: sqlite3 is 10 ms of every server's import
        from ag_ui.store.thread_sqlite import SqliteThreadStore

        return SqliteThreadStore
    raise AttributeError(f"module 'ag_ui.store' has no attribute {name!r}")
