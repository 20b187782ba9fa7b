"""In-memory run store: the default, one process, no extra service, bounded everywhere."""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Optional

import anyio

from ag_ui.core.decoding import parse_event
from ag_ui.core.errors import (
    HistoryTrimmedError,
    RunNotFoundError,
    StoreFullError,
)
from ag_ui.core.events import Event
from ag_ui.encoder.encoder import event_to_json
from ag_ui.store._base import RunRecord, RunStore, StoredEvent

__all__ = ["InMemoryRunStore"]


@dataclass
class _Run:
    record: RunRecord
    created: float
    # Wire JSON, not models: ~5x less memory per event and nothing for the garbage collector
    # to walk (a long run would otherwise slow every collection); parsed again when read.
    events: deque[bytes] = field(default_factory=deque)
    first_position: int = 1  # position of events[0]; grows when the bound trims old events
    finished_at: Optional[float] = None
    # Replaced on every change; readers wait on the one they saw (no lost wake-ups).
    changed: anyio.Event = field(default_factory=anyio.Event)

    @property
    def last_position(self) -> int:
        return self.first_position + len(self.events) - 1

    def notify(self) -> None:
        changed, self.changed = self.changed, anyio.Event()
        changed.set()


class InMemoryRunStore(RunStore):
    """Runs kept in this process.

    Bounds: ``max_runs`` (the oldest finished run is evicted first, never a running one),
    ``max_events_per_run`` (older events are trimmed), ``finished_ttl`` seconds a finished run
    stays readable, ``run_ttl`` seconds a run may stay unfinished before it counts as expired.
    """

    def __init__(
        self,
        *,
        max_runs: int = 1000,
        max_events_per_run: int = 100_000,
        finished_ttl: float = 600.0,
        run_ttl: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_runs < 1 or max_events_per_run < 1:
            raise ValueError("max_runs and max_events_per_run must be at least 1")
        self.max_runs = max_runs
        self.max_events_per_run = max_events_per_run
        self.finished_ttl = finished_ttl
        self.run_ttl = run_ttl
        self._clock = clock
        self._runs: dict[str, _Run] = {}  # insertion order = creation order

    def _expired(self, run: _Run, now: float) -> bool:
        if run.finished_at is not None:
            return now - run.finished_at > self.finished_ttl
        return now - run.created > self.run_ttl

    def _sweep(self) -> None:
        now = self._clock()
        for key in [rid for rid, run in self._runs.items() if self._expired(run, now)]:
            self._drop(key)

    def _drop(self, key: str) -> None:
        run = self._runs.pop(key)
        run.notify()  # readers of an evicted run wake up and see it is gone

    def _live(self, key: str) -> _Run:
        run = self._runs.get(key)
        if run is None or self._expired(run, self._clock()):
            if run is not None:
                self._drop(key)
            raise RunNotFoundError(key)
        return run

    async def create(self, key: str, thread_id: str, owner: Optional[str] = None) -> RunRecord:
        self._sweep()
        if key in self._runs:
            raise ValueError(f"run {key!r} already exists")
        if len(self._runs) >= self.max_runs:
            finished = [rid for rid, run in self._runs.items() if run.finished_at is not None]
            if not finished:
                raise StoreFullError(
                    f"all {self.max_runs} run slots hold running runs; "
                    "retry later or raise max_runs"
                )
            oldest = min(finished, key=lambda rid: self._runs[rid].finished_at or 0.0)
            self._drop(oldest)
        record = RunRecord(key=key, thread_id=thread_id, owner=owner)
        self._runs[key] = _Run(record=record, created=self._clock())
        return record

    async def append(self, key: str, event: Event) -> int:
        run = self._live(key)
        if run.finished_at is not None:
            raise ValueError(f"run {key!r} is finished; nothing can be appended")
        run.events.append(event_to_json(event))
        if len(run.events) > self.max_events_per_run:
            run.events.popleft()
            run.first_position += 1
        run.notify()
        return run.last_position

    async def append_many(self, key: str, events: list[Event]) -> int:
        return await self.append_encoded(key, [event_to_json(event) for event in events])

    async def append_encoded(self, key: str, payloads: list[bytes]) -> int:
        run = self._live(key)
        if run.finished_at is not None:
            raise ValueError(f"run {key!r} is finished; nothing can be appended")
        run.events.extend(payloads)
        excess = len(run.events) - self.max_events_per_run
        for _ in range(max(excess, 0)):
            run.events.popleft()
        run.first_position += max(excess, 0)
        if payloads:
            run.notify()  # one wake-up per batch, not per event
        return run.last_position

    async def finish(self, key: str) -> None:
        run = self._live(key)
        if run.finished_at is None:
            run.finished_at = self._clock()
            run.record = replace(run.record, finished=True)
            run.notify()

    async def get(self, key: str) -> RunRecord:
        return self._live(key).record

    async def last_position(self, key: str) -> int:
        return self._live(key).last_position

    async def thread_runs(self, thread_id: str) -> list[str]:
        self._sweep()
        return [rid for rid, run in self._runs.items() if run.record.thread_id == thread_id]

    async def read(self, key: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        async for batch in self.read_batches(key, after):
            for item in batch:
                yield item

    async def read_batches(self, key: str, after: int = 0) -> AsyncIterator[list[StoredEvent]]:
        run = self._live(key)
        position = min(max(after, 0), run.last_position)
        if position < run.first_position - 1:
            raise HistoryTrimmedError(key, position, run.first_position)
        while True:
            changed = run.changed
            if self._runs.get(key) is not run:
                raise RunNotFoundError(key)
            if position < run.first_position - 1:  # trimmed while the reader was slow
                raise HistoryTrimmedError(key, position, run.first_position)
            count = run.last_position - position
            if count:
                # The newest ``count`` events, walked from the right end: O(count), not O(run).
                events = list(itertools.islice(reversed(run.events), count))
                events.reverse()
                yield [
                    StoredEvent(position + n, parse_event(raw))
                    for n, raw in enumerate(events, start=1)
                ]
                position += count
                continue
            if run.finished_at is not None:
                return
            await changed.wait()
