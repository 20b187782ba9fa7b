"""What a run store is: every event of a run gets a position; readers replay, then tail.

A run executes detached from the HTTP connection that started it. Its events are appended to a
store under increasing positions (1, 2, 3, ...). Any reader (the original connection, a
reconnect after a dropped connection, another worker) reads the events after the position it
already has, then waits for new ones until the run's terminal event.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import NamedTuple, Optional

from ag_ui.core.decoding import parse_event
from ag_ui.core.events import Event

__all__ = ["RunRecord", "RunStore", "StoredEvent"]


@dataclass(frozen=True)
class RunRecord:
    """A run's identity and ownership. ``owner`` is the principal the auth hook returned."""

    run_id: str
    thread_id: str
    owner: Optional[str] = None
    finished: bool = False


class StoredEvent(NamedTuple):
    """One stored event and its position (a tuple: readers make one per event, and a tuple is
    several times cheaper to build than a frozen dataclass)."""

    position: int
    event: Event


class RunStore(abc.ABC):
    """Storage for detached runs. Implementations: in-memory (default) and Redis Streams."""

    @abc.abstractmethod
    async def create(self, run_id: str, thread_id: str, owner: Optional[str] = None) -> RunRecord:
        """Register a new run. Raises ``StoreFullError`` when no slot can be freed."""

    @abc.abstractmethod
    async def append(self, run_id: str, event: Event) -> int:
        """Store the run's next event; returns its position (1 for the first)."""

    async def append_many(self, run_id: str, events: list[Event]) -> int:
        """Store several events in order; returns the position of the last (one round trip
        where the backend allows it). The default appends them one by one."""
        position = 0
        for event in events:
            position = await self.append(run_id, event)
        return position

    async def append_encoded(self, run_id: str, payloads: list[bytes]) -> int:
        """Store several events given as their wire JSON (``event_to_json``), in order;
        returns the position of the last. What the server calls: it serializes each event
        once for both the store and the response. The default parses them back and calls
        ``append_many``; the built-in stores keep the bytes as they are."""
        return await self.append_many(run_id, [parse_event(payload) for payload in payloads])

    @abc.abstractmethod
    async def finish(self, run_id: str) -> None:
        """Mark the run ended (after its terminal event); its history now lives for the TTL."""

    @abc.abstractmethod
    async def get(self, run_id: str) -> RunRecord:
        """The run's record. Raises ``RunNotFoundError``."""

    @abc.abstractmethod
    async def last_position(self, run_id: str) -> int:
        """The position of the run's newest stored event (0 before the first). Raises
        ``RunNotFoundError``."""

    @abc.abstractmethod
    async def thread_runs(self, thread_id: str) -> list[str]:
        """The stored runs of a thread, oldest first."""

    @abc.abstractmethod
    def read(self, run_id: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        """Every event after position ``after``, then the live tail, until the run finishes.

        A position beyond the last stored event reads from the end (the live tail): the store
        cannot hold events it never saw, and replaying from the start would duplicate what the
        caller has. Raises ``RunNotFoundError`` or ``HistoryTrimmedError``.
        """

    async def read_batches(self, run_id: str, after: int = 0) -> AsyncIterator[list[StoredEvent]]:
        """``read`` in batches: whatever is available at once (what a streaming response
        writes in one go). The default wraps ``read`` one event at a time."""
        async for item in self.read(run_id, after):
            yield [item]

    async def aclose(self) -> None:  # noqa: B027 - a store without resources needs no close
        """Release connections and background resources."""
