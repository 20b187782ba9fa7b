"""Appends a detached run's events to the store in batches, apart from the agent.

The agent never waits for a store round trip (Redis) per event: ``put`` queues the events and
returns, and one writer task appends whatever has queued since its last batch in one call
(``RunStore.append_encoded``). A full queue (``high_water`` events) makes the agent wait
(backpressure). Each batch is written shielded from cancellation, so a batch is either stored
whole or was never taken; what is left queued can still be written by ``take_pending``.

``put`` serializes each event to its wire JSON at once, and that one serialization serves both
the store and the response. The queue then holds bytes, not models: a queue of a thousand
models kept alive between two batches made the garbage collector run ~8x as often (and walk
them), which cost more than the serialization itself.

A ``LiveFeed`` hands the stored batches to a reader in the same process as soon as they are
stored (never before: a client must not hold an id the store does not know yet), which spares
the connection that started the run a read back from the store.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from typing import NamedTuple, Optional

import anyio

from ag_ui.core._surrogates import wire_json
from ag_ui.core.errors import RunNotFoundError, StoreUnavailableError
from ag_ui.core.events import BaseEvent, EventType
from ag_ui.store import RunStore
from ag_ui.telemetry import _switch as telemetry_switch

__all__ = ["LIVE_FEED_BYTES", "LiveBatch", "LiveFeed", "StoreWriter"]

logger = logging.getLogger("ag_ui.server")

_TERMINAL = (EventType.RUN_FINISHED, EventType.RUN_ERROR)


class LiveBatch(NamedTuple):
    """Consecutive stored events: ``payloads[n]`` (wire JSON) is at position ``first + n``."""

    first: int
    payloads: list[bytes]
    events: Optional[list[BaseEvent]]
    """The models too, only when a reader asked for them (protobuf frames); else ``None``."""
    terminal: bool
    """The batch ends with the run's terminal event (nothing follows it)."""

    @property
    def last(self) -> int:
        return self.first + len(self.payloads) - 1


LIVE_FEED_BYTES = 4 * 1024 * 1024
"""The most bytes of wire JSON a live feed holds for a reader that does not keep up."""


class LiveFeed:
    """Batches of stored events for one local reader. Bounded: a reader more than ``limit``
    events or ``byte_limit`` bytes behind is cut off (the feed closes, dropping what it held)
    and must continue from the store. The byte bound is what keeps a slow client's memory in
    check when events are large (4,096 events of 20 KB would be 80 MB per reader)."""

    def __init__(self, limit: int = 4096, byte_limit: int = LIVE_FEED_BYTES) -> None:
        self._batches: list[LiveBatch] = []
        self._size = 0
        self._bytes = 0
        self._limit = limit
        self._byte_limit = byte_limit
        self._changed: Optional[anyio.Event] = None
        self.closed = False
        self.store_failed = False
        """The feed ended because the store stopped taking the run's events: nothing more of
        the run can be read, so a reader ends now rather than wait on the store."""

    def push(self, batch: LiveBatch) -> None:
        if self.closed:
            return
        self._batches.append(batch)
        self._size += len(batch.payloads)
        self._bytes += sum(map(len, batch.payloads))
        if self._size > self._limit or self._bytes > self._byte_limit:
            self._batches.clear()
            self.closed = True
        self._wake()

    def close(self) -> None:
        self.closed = True
        self._wake()

    def fail(self) -> None:
        """Close the feed because the store failed under the run's writer."""
        self.store_failed = True
        self.close()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def batches(self) -> AsyncIterator[LiveBatch]:
        """Every batch pushed, until the feed is closed (the run's writer ended, or overflow)."""
        while True:
            while not self._batches:
                if self.closed:
                    return
                self._changed = anyio.Event()
                await self._changed.wait()
            batches, self._batches, self._size, self._bytes = self._batches, [], 0, 0
            for batch in batches:
                yield batch


class StoreWriter:
    """One run's queue to the store. Run ``write_loop`` in a task; ``close`` when done."""

    def __init__(self, store: RunStore, key: str, *, high_water: int = 1024) -> None:
        self._store = store
        self._key = key
        self._high_water = high_water
        self._pending: list[bytes] = []
        self._events: Optional[list[BaseEvent]] = None  # kept only for a reader that needs them
        self._terminal = False
        self._closed = False
        self._wake: Optional[anyio.Event] = None
        self._room: Optional[anyio.Event] = None
        self.failure: Optional[Exception] = None
        """The store error that stopped the writer; the next ``put`` raises it."""
        self.terminal_stored = False
        """The run's terminal event is in the store (so the run may be marked finished)."""
        self._feeds: set[LiveFeed] = set()

    def attach(self, *, events: bool = False) -> LiveFeed:
        """A feed of everything stored from now on (attach before the run starts). ``events``:
        the batches carry the models too (a protobuf reader encodes models, not JSON)."""
        if events and self._events is None:
            self._events = []
        feed = LiveFeed()
        self._feeds.add(feed)
        return feed

    async def put(self, events: list[BaseEvent]) -> None:
        """Queue ``events`` (the runner's sink); raises the store's error once it failed."""
        if self.failure is not None:
            raise self.failure
        if not events:
            return
        # The encoder's fast path (the guard only passes BaseEvent instances).
        self._pending += [wire_json(e) for e in events]
        if self._events is not None:
            self._events += events
        if events[-1].type in _TERMINAL:
            self._terminal = True
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

    def take_pending(self) -> list[bytes]:
        """What is queued and not written, as wire JSON (to write it after the loop was
        cancelled)."""
        pending, self._pending = self._pending, []
        if self._events is not None:
            self._events = []
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
            events = self._events
            if events is not None:
                self._events = []
            # Nothing follows the terminal event, so the batch holding it ends with it.
            terminal = self._terminal
            if self._room is not None:
                self._room.set()
                self._room = None
            try:
                with anyio.CancelScope(shield=True):
                    telemetry = telemetry_switch.current
                    if telemetry is None:
                        last = await self._store.append_encoded(self._key, batch)
                    else:
                        started = time.perf_counter()
                        last = await self._store.append_encoded(self._key, batch)
                        telemetry.store_call("append", time.perf_counter() - started)
            except (StoreUnavailableError, RunNotFoundError) as exc:
                self.failure = exc
                if self._room is not None:
                    self._room.set()
                for feed in self._feeds:
                    feed.fail()
                return
            if terminal:
                self.terminal_stored = True
            if self._feeds:
                stored = LiveBatch(last - len(batch) + 1, batch, events, terminal)
                for feed in self._feeds:
                    feed.push(stored)
