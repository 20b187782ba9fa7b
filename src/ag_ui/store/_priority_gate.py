"""A limit on calls in flight where, when it is reached, urgent calls go first.

The PostgreSQL thread store has a pool of connections; psycopg_pool hands a freed connection to
whoever asked first. Under a burst of runs that order is the wrong one: the saves of runs that
have streamed their whole reply wait behind the loads of runs that have not started, and a
finished reply that cannot be saved in time ends ``thread_not_saved`` (the user saw it, a reload
loses it). In front of the pool, this gate lets a waiting save (urgent) take the next free
connection before any waiting load: overload then refuses new runs up front (``503``,
``Retry-After``: the client retries) instead of failing replies already given.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import AsyncIterator

import anyio

__all__ = ["PriorityGate"]


class PriorityGate:
    """At most ``capacity`` holders at once; a freed place goes to the oldest urgent waiter,
    else to the oldest ordinary one."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity!r}")
        self._free = capacity
        self._urgent: deque[anyio.Event] = deque()
        self._ordinary: deque[anyio.Event] = deque()

    @property
    def waiting(self) -> int:
        """Calls waiting for a place."""
        return len(self._urgent) + len(self._ordinary)

    @contextlib.asynccontextmanager
    async def enter(self, *, urgent: bool) -> AsyncIterator[None]:
        """Hold a place for the ``async with`` block (waiting for one when all are taken)."""
        await self._acquire(urgent)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, urgent: bool) -> None:
        if self._free:  # (a place is only ever free while nobody waits: see _release)
            self._free -= 1
            return
        turn = anyio.Event()
        queue = self._urgent if urgent else self._ordinary
        queue.append(turn)
        try:
            await turn.wait()
        except BaseException:
            if turn.is_set():
                self._release()  # the place was handed over as the wait was cancelled: pass it on
            else:
                queue.remove(turn)
            raise

    def _release(self) -> None:
        # A place is handed straight to the next waiter (never counted free in between), so
        # that a caller arriving meanwhile cannot take it before the waiter wakes.
        for queue in (self._urgent, self._ordinary):
            if queue:
                queue.popleft().set()
                return
        self._free += 1
