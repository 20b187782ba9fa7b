"""Appends a detached run's events to the store in batches, apart from the agent.

The agent never waits for a store round trip (Redis) per event: ``put`` queues the events and
returns, and one writer task appends whatever has queued since its last batch in one call
(``RunStore.append_many``). A full queue (``high_water`` events) makes the agent wait
(backpressure). Each batch is written shielded from cancellation, so a batch is either stored
whole or was never taken; what is left queued can still be written by ``take_pending``.

A ``LiveFeed`` hands the stored batches to a reader in the same process as soon as they are
stored (never before: a client must not hold an id the store does not know yet), which spares
the connection that started the run a read back from the store.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any, Optional

import anyio

from ag_ui.core.events import BaseEvent
from ag_ui.store import RunNotFoundError, RunStore, StoredEvent, StoreUnavailableError

__all__ = ["LiveFeed", "StoreWriter"]

logger = logging.getLogger("ag_ui.server")


class LiveFeed:
    """Batches of stored events for one local reader. Bounded: a reader more than ``limit``
    events behind is cut off (``overflowed``) and must continue from the store."""

    def __init__(self, limit: int = 4096) -> None:
        self._batches: list[list[StoredEvent]] = []
        self._size = 0
        self._limit = limit
        self._changed: Optional[anyio.Event] = None
        self.closed = False
        self.overflowed = False

    def push(self, batch: list[StoredEvent]) -> None:
        if self.closed:
            return
        self._batches.append(batch)
        self._size += len(batch)
        if self._size > self._limit:
            self.overflowed = True
            self._batches.clear()
            self.closed = True
        self._wake()

    def close(self) -> None:
        self.closed = True
        self._wake()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def batches(self) -> AsyncIterator[list[StoredEvent]]:
        """Every batch pushed, until the feed is closed (the run's writer ended, or overflow)."""
        while True:
            while not self._batches:
                if self.closed:
                    return
                self._changed = anyio.Event()
                await self._changed.wait()
            batches, self._batches, self._size = self._batches, [], 0
            for batch in batches:
                yield batch


class StoreWriter:
    """One run's queue to the store. Run ``write_loop`` in a task; ``close`` when done."""

    def __init__(self, store: RunStore, key: str, *, high_water: int = 1024) -> None:
        self._store = store
        self._key = key
        self._high_water = high_water
        self._pending: list[Any] = []
        self._closed = False
        self._wake: Optional[anyio.Event] = None
        self._room: Optional[anyio.Event] = None
        self.failure: Optional[Exception] = None
        """The store error that stopped the writer; the next ``put`` raises it."""
        self._feeds: set[LiveFeed] = set()

    def attach(self) -> LiveFeed:
        """A feed of everything stored from now on (attach before the run starts)."""
        feed = LiveFeed()
        self._feeds.add(feed)
        return feed

    def detach(self, feed: LiveFeed) -> None:
        self._feeds.discard(feed)
        feed.close()

    async def put(self, events: list[BaseEvent]) -> None:
        """Queue ``events`` (the runner's sink); raises the store's error once it failed."""
        if self.failure is not None:
            raise self.failure
        self._pending.extend(events)
        if self._wake is not None:
            self._wake.set()
            self._wake = None
        while len(self._pending) >= self._high_water and self.failure is None:
            self._room = anyio.Event()
            await self._room.wait()
        if self.failure is not None:
            raise self.failure

    def close(self) -> None:
        """No more events: the loop writes what is queued and returns."""
        self._closed = True
        if self._wake is not None:
            self._wake.set()
            self._wake = None

    def take_pending(self) -> list[Any]:
        """What is queued and not written (to write it after the loop was cancelled)."""
        pending, self._pending = self._pending, []
        return pending

    async def write_loop(self) -> None:
        """Append batches until closed and drained, or until the store fails."""
        try:
            await self._write_batches()
        finally:
            for feed in self._feeds:
                feed.close()

    async def _write_batches(self) -> None:
        while True:
            while not self._pending:
                if self._closed:
                    return
                self._wake = anyio.Event()
                await self._wake.wait()
            batch, self._pending = self._pending, []
            if self._room is not None:
                self._room.set()
                self._room = None
            try:
                with anyio.CancelScope(shield=True):
                    last = await self._store.append_many(self._key, batch)
            except (StoreUnavailableError, RunNotFoundError) as exc:
                self.failure = exc
                if self._room is not None:
                    self._room.set()
                return
            if self._feeds:
                first = last - len(batch) + 1
                stored = [StoredEvent(first + n, event) for n, event in enumerate(batch)]
                for feed in self._feeds:
                    feed.push(stored)
