"""In-memory run store: the default, one process, no extra service, bounded everywhere.

Memory is bounded by a byte budget (``max_bytes``) as well as by counts: without it, a few runs
of large events stayed resident for ``finished_ttl`` (15 runs of 20 MiB: +318 MiB), and the
count bounds alone allowed more than 10 GB. The store counts what it holds itself, the wire JSON
of every stored event plus a fixed charge per event for the bytes object and its slot, and
keeps the total within the budget:

1. over the budget, finished runs are evicted, oldest first (and a new run evicts them down to
   ``LIVE_SHARE`` of the budget);
2. a new run is refused (``StoreFullError``: 503 ``store_full``) while the running runs alone
   hold more than ``LIVE_SHARE`` of the budget, the rest being room for them to grow;
3. a running run that would still take the total over the budget keeps running and streaming,
   but its own oldest events are trimmed (as ``max_events_per_run`` does): a reader behind them
   gets ``HistoryTrimmedError``. Its newest event is always kept, so one event larger than the
   whole budget is the only way past it.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict, deque
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

__all__ = ["DEFAULT_MAX_BYTES", "EVENT_OVERHEAD", "LIVE_SHARE", "InMemoryRunStore"]

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
"""The default byte budget of an ``InMemoryRunStore`` (256 MiB)."""

EVENT_OVERHEAD = 48
"""Bytes charged per stored event on top of its JSON: a bytes object's header (33 bytes on
64-bit CPython) and its deque slot (8), rounded up."""

LIVE_SHARE = 0.9
"""New runs are refused while running runs hold more than this share of ``max_bytes``."""


def _cost(payload: bytes) -> int:
    return len(payload) + EVENT_OVERHEAD


@dataclass
class _Run:
    record: RunRecord
    created: float
    # Wire JSON, not models: ~5x less memory per event and nothing for the garbage collector
    # to walk (a long run would otherwise slow every collection); parsed again when read.
    events: deque[bytes] = field(default_factory=deque)
    first_position: int = 1  # position of events[0]; grows when the bound trims old events
    size: int = 0  # what the events cost against the byte budget (``_cost`` of each)
    finished_at: Optional[float] = None
    # Replaced on every change; readers wait on the one they saw (no lost wake-ups).
    changed: anyio.Event = field(default_factory=anyio.Event)

    @property
    def last_position(self) -> int:
        return self.first_position + len(self.events) - 1

    def notify(self) -> None:
        changed, self.changed = self.changed, anyio.Event()
        changed.set()

    def trim_oldest(self) -> int:
        """Drop the oldest event; returns what it cost."""
        cost = _cost(self.events.popleft())
        self.first_position += 1
        self.size -= cost
        return cost


class InMemoryRunStore(RunStore):
    """Runs kept in this process.

    Bounds: ``max_runs`` (the oldest finished run is evicted first, never a running one),
    ``max_bytes`` (a byte budget for the stored events, default 256 MiB: finished runs are
    evicted oldest first, new runs are refused while running runs hold 90% of it, a running run
    that outgrows it loses its oldest events; see the module's docstring),
    ``max_events_per_run`` (older events are trimmed), ``finished_ttl`` seconds a finished run
    stays readable, ``run_ttl`` seconds a run may stay unfinished before it counts as expired.
    """

    def __init__(
        self,
        *,
        max_runs: int = 1000,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_events_per_run: int = 100_000,
        finished_ttl: float = 600.0,
        run_ttl: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_runs < 1 or max_events_per_run < 1:
            raise ValueError("max_runs and max_events_per_run must be at least 1")
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be at least 1 (bytes), got {max_bytes!r}")
        self.max_runs = max_runs
        self.max_bytes = max_bytes
        self.max_events_per_run = max_events_per_run
        self.finished_ttl = finished_ttl
        self.run_ttl = run_ttl
        self._clock = clock
        self._runs: dict[str, _Run] = {}  # insertion order = creation order
        self._finished: OrderedDict[str, None] = OrderedDict()  # in the order they finished
        self._bytes = 0  # the cost of every stored event (``_cost``), all runs together

    @property
    def stored_bytes(self) -> int:
        """What the stored events cost against ``max_bytes`` now."""
        return self._bytes

    @property
    def live_bytes(self) -> int:
        """The part of ``stored_bytes`` held by runs still running."""
        return self._bytes - sum(self._runs[key].size for key in self._finished)

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
        self._finished.pop(key, None)
        self._bytes -= run.size
        run.notify()  # readers of an evicted run wake up and see it is gone

    def _evict_finished_until(self, within: int) -> None:
        """Evict finished runs, oldest first, until the events cost at most ``within``."""
        while self._bytes > within and self._finished:
            self._drop(next(iter(self._finished)))

    def _store(self, run: _Run, payloads: list[bytes]) -> None:
        """Append to ``run``, then bring the store back within its bounds."""
        run.events.extend(payloads)
        added = sum(map(len, payloads)) + EVENT_OVERHEAD * len(payloads)
        run.size += added
        self._bytes += added
        for _ in range(max(len(run.events) - self.max_events_per_run, 0)):
            self._bytes -= run.trim_oldest()
        if self._bytes > self.max_bytes:
            self._evict_finished_until(self.max_bytes)
            # Only running runs are left: the one growing pays, never another one.
            while self._bytes > self.max_bytes and len(run.events) > 1:
                self._bytes -= run.trim_oldest()

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
            if not self._finished:
                raise StoreFullError(
                    f"all {self.max_runs} run slots hold running runs; "
                    "retry later or raise max_runs"
                )
            self._drop(next(iter(self._finished)))
        room = int(self.max_bytes * LIVE_SHARE)
        self._evict_finished_until(room)
        if self._bytes > room:  # only running runs are left, and they hold the budget
            raise StoreFullError(
                f"running runs hold {self._bytes:,} bytes, over {LIVE_SHARE:.0%} of the "
                f"store's budget (max_bytes={self.max_bytes:,}): retry later or raise max_bytes"
            )
        record = RunRecord(key=key, thread_id=thread_id, owner=owner)
        self._runs[key] = _Run(record=record, created=self._clock())
        return record

    async def append(self, key: str, event: Event) -> int:
        run = self._live(key)
        if run.finished_at is not None:
            raise ValueError(f"run {key!r} is finished; nothing can be appended")
        self._store(run, [event_to_json(event)])
        run.notify()
        return run.last_position

    async def append_many(self, key: str, events: list[Event]) -> int:
        return await self.append_encoded(key, [event_to_json(event) for event in events])

    async def append_encoded(self, key: str, payloads: list[bytes]) -> int:
        run = self._live(key)
        if run.finished_at is not None:
            raise ValueError(f"run {key!r} is finished; nothing can be appended")
        if payloads:
            self._store(run, payloads)
            run.notify()  # one wake-up per batch, not per event
        return run.last_position

    async def finish(self, key: str) -> None:
        run = self._live(key)
        if run.finished_at is None:
            run.finished_at = self._clock()
            self._finished[key] = None
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
