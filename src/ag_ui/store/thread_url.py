"""Open a thread store from a URL: the one string a CLI flag or an environment variable holds."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from ag_ui.store._thread_base import ThreadStore

__all__ = ["THREAD_STORE_URLS", "open_thread_store"]

THREAD_STORE_URLS = (
    "memory:, sqlite:///relative/path.db, sqlite:////absolute/path.db or "
    "postgresql://user:password@host:5432/dbname"
)
"""The URL forms ``open_thread_store`` accepts, for error messages and ``--help``."""


def open_thread_store(url: str) -> ThreadStore:
    """``memory:`` for ``InMemoryThreadStore``; ``sqlite:///PATH`` for ``SqliteThreadStore``
    (three slashes then the path, so ``sqlite:////var/lib/agui/threads.db`` is absolute, as in
    SQLAlchemy); ``postgresql://...`` or ``postgres://...`` (a libpq URL) for
    ``PostgresThreadStore`` (the postgres extra). Anything else raises ``ValueError`` naming the
    accepted forms. Opening is lazy: the database file, or the connection pool and the tables,
    are made on first use."""
    if url == "memory:" or url == "memory://":
        from ag_ui.store.thread_memory import InMemoryThreadStore

        return InMemoryThreadStore()
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        if parts.netloc or not parts.path.startswith("/") or len(parts.path) < 2:
            raise ValueError(
                f"thread store URL {url!r}: a SQLite URL is sqlite:/// then the file's path "
                "(sqlite:///threads.db, sqlite:////abs/path/threads.db)"
            )
        from ag_ui.store.thread_sqlite import SqliteThreadStore

        return SqliteThreadStore(Path(unquote(parts.path[1:])))
    if parts.scheme in ("postgresql", "postgres"):
        # postgresql:///dbname (the local socket) is a libpq URL; a bare scheme is not.
        if not (parts.netloc or parts.path.strip("/") or parts.query):
            raise ValueError(
                f"thread store URL {url!r}: a PostgreSQL URL names the server, "
                "postgresql://user:password@host:5432/dbname"
            )
        from ag_ui.store.thread_postgres import PostgresThreadStore

        return PostgresThreadStore(url)
    raise ValueError(f"thread store URL {url!r} is not supported; use {THREAD_STORE_URLS}")
