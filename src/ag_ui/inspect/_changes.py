"""A version counter that wakes whoever waits for it to move (many waiters, no queue)."""

from __future__ import annotations

from typing import Optional

import anyio

__all__ = ["Changes"]


class Changes:
    """``bump()`` after a change; ``await wait(seen)`` returns once ``version`` is past ``seen``.

    Watchers that fall behind lose nothing: they compare versions and read the current data.
    The event is made by the first waiter, so a ``Changes`` may be created off the event loop.
    """

    def __init__(self) -> None:
        self.version = 0
        self._event: Optional[anyio.Event] = None

    def bump(self) -> None:
        self.version += 1
        event, self._event = self._event, None
        if event is not None:
            event.set()

    async def wait(self, seen: int) -> None:
        while self.version <= seen:
            if self._event is None:
                self._event = anyio.Event()
            await self._event.wait()
