"""The idle timeout and the abort of a response's reads.

``idle_timeout`` bounds the silence between two reads of the event stream: each read gets a
fresh deadline (a keepalive comment is a read). The obvious implementation, a cancel scope with
a deadline around every read, costs a timer armed and cancelled per read, which was about half
of the client's time per event over loopback (one read per event). So, on asyncio (Python 3.11
and later), one timer serves the whole stream: a read only records its deadline, and the timer,
when it fires, moves itself to the latest deadline or cancels the read still waiting past it
(the mechanism of ``asyncio.timeout``, re-armed only when it fires). Elsewhere (trio, Python
3.10, which lacks ``Task.uncancel``) each read runs in an anyio cancel scope with its deadline.

Either way ``abort()`` on the run's ``AbortSignal`` cancels the read in progress, and a read of
an aborted stream returns ``None``.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import Awaitable, Callable
from typing import Optional, Protocol, TypeVar

import anyio

from ag_ui.client._signal import AbortSignal
from ag_ui.core.errors import IdleTimeoutError

__all__ = ["IdleReads", "idle_reads"]

_T = TypeVar("_T")


class IdleReads(Protocol):
    """Reads of one response under the idle timeout; ``close()`` when the response is done."""

    async def read(self, start: Callable[[], Awaitable[_T]]) -> Optional[_T]:
        """Await one read: its value, ``None`` when the stream was aborted, or
        ``IdleTimeoutError`` when nothing arrived in time."""
        ...

    def close(self) -> None: ...


def idle_reads(seconds: Optional[float], signal: AbortSignal) -> IdleReads:
    """The reads of one response, bounded by ``seconds`` (``None``: no bound)."""
    if sys.version_info >= (3, 11):
        try:
            task = asyncio.current_task()  # raises when no asyncio loop runs (trio)
        except RuntimeError:
            task = None
        if task is not None:
            return _AsyncioReads(task, seconds, signal)
    return _ScopedReads(seconds, signal)


class _AsyncioReads:
    """One timer per stream, re-armed lazily; a read costs a clock read."""

    def __init__(
        self, task: asyncio.Task[object], seconds: Optional[float], signal: AbortSignal
    ) -> None:
        self._loop = task.get_loop()
        self._task = task
        # Task.uncancel exists from Python 3.11 on, where this class is used.
        self._uncancel: Callable[[], int] = getattr(task, "uncancel")  # noqa: B009
        self._seconds = seconds
        self._signal = signal
        self._deadline = math.inf
        self._timer: Optional[asyncio.TimerHandle] = None
        self._reading = False
        self._cancelling = False  # this object asked the task to cancel the read
        signal.watch(self._cancel)

    async def read(self, start: Callable[[], Awaitable[_T]]) -> Optional[_T]:
        signal = self._signal
        if signal.aborted:
            return None
        seconds = self._seconds
        if seconds is not None:
            self._deadline = self._loop.time() + seconds
            if self._timer is None:
                self._timer = self._loop.call_at(self._deadline, self._fire)
        self._reading = True
        try:
            return await start()
        except asyncio.CancelledError:
            if not self._cancelling:
                raise
            self._cancelling = False
            if self._uncancel() > 0:
                raise  # someone else cancels the task too: theirs wins
            if signal.aborted:
                return None
            raise IdleTimeoutError(seconds or 0.0) from None
        finally:
            self._reading = False

    def _fire(self) -> None:
        self._timer = None
        if not self._reading:
            return  # the next read arms the timer again
        if self._loop.time() < self._deadline:
            self._timer = self._loop.call_at(self._deadline, self._fire)
            return
        self._cancel()

    def _cancel(self) -> None:
        if self._reading and not self._cancelling:
            self._cancelling = True
            self._task.cancel()

    def close(self) -> None:
        self._signal.unwatch()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class _ScopedReads:
    """A cancel scope with a deadline per read (any anyio backend)."""

    def __init__(self, seconds: Optional[float], signal: AbortSignal) -> None:
        self._seconds = seconds
        self._signal = signal

    async def read(self, start: Callable[[], Awaitable[_T]]) -> Optional[_T]:
        signal = self._signal
        if signal.aborted:
            return None
        seconds = self._seconds
        deadline = math.inf if seconds is None else anyio.current_time() + seconds
        with anyio.CancelScope(deadline=deadline) as scope:
            signal.watch(scope.cancel)
            try:
                return await start()
            finally:
                signal.unwatch()
        if not signal.aborted:
            raise IdleTimeoutError(seconds or 0.0)
        return None

    def close(self) -> None:
        pass
