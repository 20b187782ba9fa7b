"""The PostgreSQL thread store's connections: how each is set up and checked before the pool
hands it over, a save's transaction rolled back on error, and the database named without its
password in messages."""

from __future__ import annotations

import contextlib
import select
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from psycopg import AsyncConnection

__all__ = [
    "check_connection",
    "configure_connection",
    "one_line",
    "redacted_url",
    "rolled_back_on_error",
]


def redacted_url(url: str) -> str:
    """The URL without its password (in the user part or a ``password=`` parameter), for
    error messages and logs."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = parts.query
    if "password" in query:
        query = urlencode(
            [(k, "***" if k == "password" else v) for k, v in parse_qsl(query)], safe="*"
        )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def one_line(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no answer in time"  # the call's own deadline; the bounds follow in the message
    # libpq's messages span lines ("connection failed: ...\n\tIs the server running ..."); an
    # error of this SDK is one line.
    return " ".join(str(exc).split()) or type(exc).__name__


async def configure_connection(db: AsyncConnection[tuple[Any, ...]]) -> None:
    # Times are DOUBLE PRECISION and come back as text (the runs inside JSON too): with
    # extra_float_digits at 1 or more PostgreSQL prints the shortest exact form, whatever the
    # server's own setting, so a time loads as the very float that was saved.
    await db.execute("SET extra_float_digits = 1")


def _has_input(db: AsyncConnection[tuple[Any, ...]]) -> bool:
    """Whether an idle connection's socket is readable. The server sends an idle connection
    nothing unasked but what it says before closing it (a FATAL at shutdown or for a
    terminated backend, then EOF), a NOTICE or a parameter change."""
    if db.closed:
        return True
    fd = db.pgconn.socket
    if hasattr(select, "poll"):  # poll, not select: a worker's descriptors pass 1,024
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])  # pragma: no cover - Windows


async def check_connection(db: AsyncConnection[tuple[Any, ...]]) -> None:
    """psycopg_pool's check of a connection before it is handed over, paying its round trip
    only when the socket has something to read: a connection the server dropped has its
    goodbye (or EOF) waiting. A round trip is a turn of the event loop while the connection is
    held, and a loop streaming hundreds of runs turns every few tens of milliseconds."""
    from psycopg_pool import AsyncConnectionPool

    if _has_input(db):
        await AsyncConnectionPool.check_connection(db)


@contextlib.asynccontextmanager
async def rolled_back_on_error(db: AsyncConnection[tuple[Any, ...]]) -> AsyncIterator[None]:
    """A save's transaction is opened with a ``BEGIN`` statement (see ``save``): when an error
    leaves it open or aborted, roll it back before the connection goes back to the pool. (A
    cancelled call leaves the connection mid-query, which the pool closes: the server then
    rolls back on its own.)"""
    try:
        yield
    except Exception:
        from psycopg import pq

        if db.info.transaction_status in (
            pq.TransactionStatus.INTRANS,
            pq.TransactionStatus.INERROR,
        ):
            await db.rollback()
        raise
