"""The buffer between a run's producer (the agent) and the response writer.

Putting bytes never yields to the event loop unless the buffer is full, so a fast agent pays no
scheduling round-trip per event (an anyio memory stream checkpoints on every send, which halved
throughput). The writer takes everything queued in one go: each event still leaves as soon as
the loop runs the writer, which is the next time the agent awaits anything, and a busy stream
goes out in large writes. A full buffer makes the agent wait (backpressure on a slow client).
"""

from __future__ import annotations

from typing import Optional

import anyio

__all__ = ["Outbox"]


class Outbox:
    """Single-producer, single-consumer byte queue with a high-water mark."""

    def __init__(self, high_water: int = 64 * 1024) -> None:
        self._parts: list[bytes] = []
        self._size = 0
        self._high_water = high_water
        self._closed = False
        self._readable: Optional[anyio.Event] = None
        self._writable: Optional[anyio.Event] = None

    async def put(self, data: bytes) -> None:
        """Queue ``data``; waits only while the queue holds ``high_water`` bytes or more."""
        self._parts.append(data)
        self._size += len(data)
        if self._readable is not None:
            self._readable.set()
            self._readable = None
        while self._size >= self._high_water and not self._closed:
            self._writable = anyio.Event()
            await self._writable.wait()

    def close(self) -> None:
        """No more data: ``take`` returns what is left, then ``None``."""
        self._closed = True
        for event in (self._readable, self._writable):
            if event is not None:
                event.set()
        self._readable = self._writable = None

    async def take(self) -> Optional[bytes]:
        """Everything queued so far (waiting for something), or ``None`` once closed and empty."""
        while not self._parts:
            if self._closed:
                return None
            self._readable = anyio.Event()
            await self._readable.wait()
        data = b"".join(self._parts)
        self._parts.clear()
        self._size = 0
        if self._writable is not None:
            self._writable.set()
            self._writable = None
        return data
