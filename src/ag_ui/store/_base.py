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
from typing import Any, NamedTuple, Optional

from ag_ui.core.decoding import parse_event
from ag_ui.core.events import Event
from ag_ui.store._renamed import KEYED_METHODS, accept_old_key_keyword, warn_renamed

__all__ = ["HEARTBEAT_MISSES", "RunRecord", "RunStore", "StoredEvent"]

HEARTBEAT_MISSES = 3
"""A running run whose writer has not beaten for this many ``heartbeat_interval`` is abandoned."""


@dataclass(frozen=True, init=False)
class RunRecord:
    """A stored run: its resume key, its thread, its owner (the principal the ``authorize``
    hook's verdict maps to) and whether it finished.

    ``key`` is the resume key the server minted for the run, never the client's ``runId``
    (clients choose those, so they cannot name stored runs). ``run_id``, its old name, is
    still accepted by the constructor and readable as an attribute (deprecated).
    """

    key: str
    thread_id: str
    owner: Optional[str] = None
    finished: bool = False

    def __init__(
        self,
        key: Optional[str] = None,
        thread_id: Optional[str] = None,
        owner: Optional[str] = None,
        finished: bool = False,
        *,
        run_id: Optional[str] = None,
    ) -> None:
        if run_id is not None:
            warn_renamed("RunRecord(run_id=...)", "RunRecord(key=...)")
            key = run_id if key is None else key
        if key is None or thread_id is None:
            raise TypeError("RunRecord needs a key (the resume key) and a thread_id")
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "thread_id", thread_id)
        object.__setattr__(self, "owner", owner)
        object.__setattr__(self, "finished", finished)

    @property
    def run_id(self) -> str:
        """Deprecated: the resume key, ``key``."""
        warn_renamed("RunRecord.run_id", "RunRecord.key")
        return self.key


class StoredEvent(NamedTuple):
    """One stored event and its position (a tuple: readers make one per event, and a tuple is
    several times cheaper to build than a frozen dataclass)."""

    position: int
    event: Event


class RunStore(abc.ABC):
    """Storage for detached runs. Implementations: in-memory (default) and Redis Streams.

    A run is stored under its resume key (``key``): an unguessable id the server mints for
    each run (``secrets.token_urlsafe``), never the client's ``runId``. Every method that takes
    one also accepts it as ``run_id=``, its old name (deprecated), in this class and in every
    subclass whose method names it ``key``.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        accept_old_key_keyword(cls, KEYED_METHODS)

    @abc.abstractmethod
    async def create(self, key: str, thread_id: str, owner: Optional[str] = None) -> RunRecord:
        """Register a new run under ``key``. Raises ``StoreFullError`` when no slot can be
        freed."""

    @abc.abstractmethod
    async def append(self, key: str, event: Event) -> int:
        """Store the run's next event; returns its position (1 for the first)."""

    async def append_many(self, key: str, events: list[Event]) -> int:
        """Store several events in order; returns the position of the last (one round trip
        where the backend allows it). The default appends them one by one."""
        position = 0
        for event in events:
            position = await self.append(key, event)
        return position

    async def append_encoded(self, key: str, payloads: list[bytes]) -> int:
        """Store several events given as their wire JSON (``event_to_json``), in order;
        returns the position of the last. What the server calls: it serializes each event
        once for both the store and the response. The default parses them back and calls
        ``append_many``; the built-in stores keep the bytes as they are."""
        return await self.append_many(key, [parse_event(payload) for payload in payloads])

    @abc.abstractmethod
    async def finish(self, key: str) -> None:
        """Mark the run ended (after its terminal event); its history now lives for the TTL."""

    heartbeat_interval: Optional[float] = None
    """Seconds between two heartbeats of a running run's writer (``beat``), or ``None``: the
    store keeps no heartbeats. A store that keeps them ends a reader of a running run whose
    heartbeat is older than ``HEARTBEAT_MISSES`` intervals with ``RunAbandonedError``: its
    writer's worker died (or shut down without recording the run's end), so the run will make
    no more progress and its readers must not wait for it until ``run_ttl``."""

    async def beat(self, key: str) -> None:  # noqa: B027 - a store without heartbeats
        """The run's writer is alive: it beats again within ``heartbeat_interval`` seconds.
        Raises ``RunNotFoundError`` or ``StoreUnavailableError``. A run that never beat (its
        writer is an older server) is never held abandoned."""

    @abc.abstractmethod
    async def get(self, key: str) -> RunRecord:
        """The run's record. Raises ``RunNotFoundError``."""

    @abc.abstractmethod
    async def last_position(self, key: str) -> int:
        """The position of the run's newest stored event (0 before the first). Raises
        ``RunNotFoundError``."""

    @abc.abstractmethod
    async def thread_runs(self, thread_id: str) -> list[str]:
        """The keys of the thread's stored runs, oldest first."""

    @abc.abstractmethod
    def read(self, key: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        """Every event after position ``after``, then the live tail, until the run finishes.

        A position beyond the last stored event reads from the end (the live tail): the store
        cannot hold events it never saw, and replaying from the start would duplicate what the
        caller has. Raises ``RunNotFoundError``, ``HistoryTrimmedError`` or, with heartbeats
        (``heartbeat_interval``), ``RunAbandonedError``.
        """

    async def read_batches(self, key: str, after: int = 0) -> AsyncIterator[list[StoredEvent]]:
        """``read`` in batches: whatever is available at once (what a streaming response
        writes in one go). The default wraps ``read`` one event at a time."""
        async for item in self.read(key, after):
            yield [item]

    async def aclose(self) -> None:  # noqa: B027 - a store without resources needs no close
        """Release connections and background resources."""


accept_old_key_keyword(RunStore, KEYED_METHODS)
