"""Virtual time for in-process asyncio tests: sleeps and timeouts pass at once, in order.

``run_on_virtual_clock(main)`` runs ``main`` like ``anyio.run`` on an event loop whose clock
jumps ahead whenever every task is waiting on a timer: instead of blocking for the earliest
timer, the loop advances its clock to it. Ordering, ``anyio.sleep``, ``fail_after`` and
``anyio.current_time()`` behave exactly as on a real clock; only the waiting is gone. A test
can then hold a silence of a minute (four default 15 s keepalive intervals) in milliseconds.

Use it only where everything runs in the test's own loop (ASGI endpoints driven directly,
sans-IO code): a real socket or a thread does not see the virtual clock.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Awaitable, Callable
from typing import Optional, TypeVar

import anyio

__all__ = ["VirtualClockLoop", "run_on_virtual_clock"]

_T = TypeVar("_T")


class _SkippingSelector(selectors.DefaultSelector):
    """Polls instead of blocking when the loop waits for a timer; remembers the time skipped."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped = 0.0

    def select(self, timeout: Optional[float] = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None or timeout <= 0:
            return super().select(timeout)
        ready = super().select(0)  # I/O (e.g. a thread's wake-up) still comes first
        if not ready:
            self.skipped += timeout
        return ready


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An asyncio loop whose ``time()`` is real time plus all the timer waits it skipped."""

    def __init__(self) -> None:
        self._skipping = _SkippingSelector()
        super().__init__(self._skipping)

    def time(self) -> float:
        return super().time() + self._skipping.skipped


def run_on_virtual_clock(main: Callable[[], Awaitable[_T]]) -> _T:
    """``anyio.run(main)`` on a ``VirtualClockLoop`` (asyncio)."""
    return anyio.run(main, backend="asyncio", backend_options={"loop_factory": VirtualClockLoop})
