"""Appends a detached run's events to the store in batches, apart from the agent.

The agent never waits for a store round trip (Redis) per event: ``put`` queues the events and
returns, and one writer task appends whatever has queued since its last batch in one call
(``RunStore.append_many``). A full queue (``high_water`` events) makes the agent wait
(backpressure). Each batch is written shielded from cancellation, so a batch is either stored
whole or was never taken; what is left queued can still be written by ``take_pending``.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

import anyio

from ag_ui.core.events import BaseEvent
from ag_ui.store import RunNotFoundError, RunStore, StoreUnavailableError

__all__ = ["StoreWriter"]

logger = logging.getLogger("ag_ui.server")


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
                    await self._store.append_many(self._key, batch)
            except (StoreUnavailableError, RunNotFoundError) as exc:
                self.failure = exc
                if self._room is not None:
                    self._room.set()
                return
