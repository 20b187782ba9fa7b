"""Redis Streams run store: any worker can serve a reconnect to a run another worker produces.

Layout (``prefix`` defaults to ``agui:``; on a Redis Cluster each per-run key has the run id as
its hash tag, ``{prefix}run:{<id>}:events`` and so on: ``_redis_keys.py``):

- ``{prefix}run:{id}:events``: a stream whose entry ids are ``0-<position>``, so the position a
  client holds is the stream id; blocking ``XREAD`` tails it; ``MAXLEN`` bounds it.
- ``{prefix}run:{id}``: a hash (thread id, owner, finished flag, and ``beats`` once the run's
  writer sent its first heartbeat).
- ``{prefix}run:{id}:alive``: present while the run's writer is alive; each heartbeat sets it
  again, to expire ``HEARTBEAT_MISSES`` heartbeat intervals later (Redis's own clock, so the
  workers' clocks need not agree). A running run that beat once and has no such key is
  abandoned: its worker died, or shut down while Redis was away.
- ``{prefix}thread:{id}``: the thread's run ids, oldest first.
- ``{prefix}runs`` / ``{prefix}finished``: sorted sets by creation / finish time, for the run
  bound (the oldest finished run is evicted first, never a running one; the bound is soft
  across workers racing to create).

Every key expires: ``run_ttl`` while running, ``finished_ttl`` once finished. A connection
failure raises ``StoreUnavailableError``, and so does a Redis that stops answering (a stalled or
paused server keeps its sockets open): no command waits longer than ``block_seconds +
operation_timeout`` for its answer (a wait for a free connection before it aside: at most
``pool_timeout``).

Connections, the bounds on every command and the routing on a Redis Cluster are
``_redis_connection.py``'s (``RedisConnection``); the key names ``_redis_keys.py``'s. On a
cluster, creating a run takes three round trips (the run bound's count, the run's hash, then its
place in the index and its thread, each on its own slot), and the run bound is as soft as across
workers; a run's own commands go to its slot's master in one round trip as on one Redis
(docs/deploy.md, "Redis Cluster").
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any, Optional

from ag_ui.core.decoding import parse_event
from ag_ui.core.errors import (
    HistoryTrimmedError,
    RunAbandonedError,
    RunNotFoundError,
    StoreFullError,
)
from ag_ui.core.events import Event, EventType
from ag_ui.encoder.encoder import event_to_json
from ag_ui.store._base import HEARTBEAT_MISSES, RunRecord, RunStore, StoredEvent
from ag_ui.store._redis_connection import RedisClient, RedisConnection
from ag_ui.store._redis_keys import RedisKeys

__all__ = ["RedisRunStore"]

_TERMINAL = (EventType.RUN_FINISHED, EventType.RUN_ERROR)
_PAGE = 500

# The heartbeat of a run still stored (an expired run must not come back as a bare hash).
_BEAT = """
if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('hset', KEYS[1], 'beats', 1)
redis.call('set', KEYS[2], 1, 'PX', ARGV[1])
return 1
"""


# A new run: its hash (refused when the key exists), its place among the runs and in its
# thread, in one round trip. ARGV[1] is max_runs (0: no check), whose check needs ZCARD first.
_CREATE = """
if tonumber(ARGV[1]) > 0 and redis.call('zcard', KEYS[1]) >= tonumber(ARGV[1]) then return -1 end
if redis.call('hsetnx', KEYS[2], 'thread_id', ARGV[2]) == 0 then return 0 end
redis.call('hset', KEYS[2], 'owner', ARGV[3], 'has_owner', ARGV[4], 'finished', 0)
redis.call('expire', KEYS[2], ARGV[5])
redis.call('zadd', KEYS[1], ARGV[7], ARGV[8])
redis.call('rpush', KEYS[3], ARGV[8])
redis.call('expire', KEYS[3], ARGV[6])
return 1
"""
_CREATED, _EXISTS, _NO_ROOM = 1, 0, -1

# A new run's hash on a Redis Cluster, where the run bound's index and the thread's list live
# on other slots than the run (their commands follow in a pipeline). Refused when it exists.
_CREATE_RUN = """
if redis.call('hsetnx', KEYS[1], 'thread_id', ARGV[1]) == 0 then return 0 end
redis.call('hset', KEYS[1], 'owner', ARGV[2], 'has_owner', ARGV[3], 'finished', 0)
redis.call('expire', KEYS[1], ARGV[4])
return 1
"""


def _position(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[1])


class RedisRunStore(RunStore):
    """Runs in Redis Streams, shared by every worker that points at the same Redis.

    ``block_seconds`` (default 1): how long a reader's blocking ``XREAD`` waits for new events
    before it looks again. ``operation_timeout`` (default 5): a command with no answer within
    ``block_seconds + operation_timeout`` seconds fails with ``StoreUnavailableError`` (a
    stalled Redis keeps its sockets open, so only a timeout notices it). ``max_connections``
    (default 100) and ``pool_timeout`` (default 30) size its two connection pools
    (``_redis_connection.py``). With ``client=`` the store uses that client and its pool for
    everything, as they are. ``heartbeat_interval`` (default 2): seconds between two
    heartbeats of a running run's writer; a reader of a run whose writer missed
    ``HEARTBEAT_MISSES`` (3) of them, seen on two blocking reads in a row, ends with
    ``RunAbandonedError`` (within ``3 * heartbeat_interval + 2 * block_seconds``, 8 s by
    default).

    ``cluster=True``: ``url`` names one node of a Redis Cluster (``redis://host:port``, the
    client finds the others); for several startup nodes pass ``client=RedisCluster(...)``. A
    ``RedisCluster`` client puts the store in cluster mode by itself. Cluster mode uses the
    hash-tagged key layout (``_redis_keys.py``); a prefix may not hold braces there.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        client: Optional[RedisClient] = None,
        cluster: bool = False,
        prefix: str = "agui:",
        max_runs: int = 10_000,
        max_events_per_run: int = 100_000,
        finished_ttl: float = 600.0,
        run_ttl: float = 3600.0,
        block_seconds: float = 1.0,
        operation_timeout: float = 5.0,
        max_connections: int = 100,
        pool_timeout: float = 30.0,
        heartbeat_interval: float = 2.0,
    ) -> None:
        if heartbeat_interval <= 0:
            raise ValueError(
                f"heartbeat_interval must be more than 0 seconds, got {heartbeat_interval!r}"
            )
        self.heartbeat_interval = heartbeat_interval
        self._beat_ttl_ms = max(1, int(heartbeat_interval * HEARTBEAT_MISSES * 1000))
        self._connection = RedisConnection(
            url,
            client=client,
            cluster=cluster,
            block_seconds=block_seconds,
            operation_timeout=operation_timeout,
            max_connections=max_connections,
            pool_timeout=pool_timeout,
        )
        self.cluster = self._connection.cluster
        self.max_connections = max_connections
        self.pool_timeout = pool_timeout
        self.operation_timeout = operation_timeout
        self.block_ms = self._connection.block_ms
        self._keys = RedisKeys(prefix, cluster=self.cluster)
        self._redis = self._connection.commands
        self.prefix = prefix
        self.max_runs = max_runs
        self.max_events_per_run = max_events_per_run
        self.finished_ttl = int(finished_ttl)
        self.run_ttl = int(run_ttl)

    async def _call(self, coroutine: Any) -> Any:
        return await self._connection.call(coroutine)

    def _meta(self, key: str) -> str:
        return self._keys.meta(key)

    def _alive(self, key: str) -> str:
        return self._keys.alive(key)

    def _stream(self, key: str) -> str:
        return self._keys.stream(key)

    async def ping(self) -> None:
        """Raise ``StoreUnavailableError`` unless Redis answers (servers call it at start)."""
        await self._call(self._redis.ping())

    async def _make_room(self) -> None:
        runs_key, finished_key = self._keys.runs, self._keys.finished
        if await self._call(self._redis.zcard(runs_key)) < self.max_runs:
            return
        run_ids = await self._call(self._redis.zrange(runs_key, 0, -1))
        pipe = self._redis.pipeline()
        for rid in run_ids:
            pipe.exists(self._meta(rid.decode()))
        alive = await self._call(pipe.execute())
        gone = [rid for rid, exists in zip(run_ids, alive, strict=True) if not exists]
        if gone:
            await self._call(self._redis.zrem(runs_key, *gone))
            await self._call(self._redis.zrem(finished_key, *gone))
        if len(run_ids) - len(gone) < self.max_runs:
            return
        oldest = await self._call(self._redis.zrange(finished_key, 0, 0))
        if not oldest:
            raise StoreFullError(
                f"all {self.max_runs} run slots hold running runs; retry later or raise max_runs"
            )
        victim = oldest[0].decode()
        await self._call(self._redis.delete(self._meta(victim), self._stream(victim)))
        await self._call(self._redis.zrem(runs_key, victim))
        await self._call(self._redis.zrem(finished_key, victim))

    async def create(self, key: str, thread_id: str, owner: Optional[str] = None) -> RunRecord:
        # One round trip while there is room (the script checks it); making room is the slow
        # path, after which the run is created without looking again (as before: two workers
        # making room at once may each add one run past max_runs).
        created = await self._create(key, thread_id, owner, max_runs=self.max_runs)
        if created == _NO_ROOM:
            await self._make_room()
            created = await self._create(key, thread_id, owner, max_runs=0)
        if created == _EXISTS:
            raise ValueError(f"run {key!r} already exists")
        return RunRecord(key=key, thread_id=thread_id, owner=owner)

    async def _create(
        self, key: str, thread_id: str, owner: Optional[str], *, max_runs: int
    ) -> int:
        """The ``_CREATE`` script: ``_CREATED``, ``_EXISTS`` or ``_NO_ROOM``."""
        if self.cluster:
            return await self._create_on_cluster(key, thread_id, owner, max_runs=max_runs)
        keys = (self._keys.runs, self._meta(key), self._keys.thread(thread_id))
        arguments = (
            max_runs,
            thread_id,
            owner or "",
            int(owner is not None),
            self.run_ttl,
            max(self.run_ttl, self.finished_ttl),
            time.time(),
            key,
        )
        answer = await self._call(self._redis.eval(_CREATE, len(keys), *keys, *arguments))
        return int(answer)

    async def _create_on_cluster(
        self, key: str, thread_id: str, owner: Optional[str], *, max_runs: int
    ) -> int:
        """``_create`` in three steps, each on one slot or a pipeline of single-slot commands.
        The run's hash first, as it decides whether the key is taken; a worker that dies
        before the last step leaves a run outside the index and its thread, which expires."""
        self._keys.check_run_key(key)
        if max_runs > 0 and await self._call(self._redis.zcard(self._keys.runs)) >= max_runs:
            return _NO_ROOM
        created = await self._call(
            self._redis.eval(
                _CREATE_RUN,
                1,
                self._meta(key),
                thread_id,
                owner or "",
                int(owner is not None),
                self.run_ttl,
            )
        )
        if not created:
            return _EXISTS
        thread = self._keys.thread(thread_id)
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(self._keys.runs, {key: time.time()})
        pipe.rpush(thread, key)
        pipe.expire(thread, max(self.run_ttl, self.finished_ttl))
        await self._call(pipe.execute())
        return _CREATED

    async def append(self, key: str, event: Event) -> int:
        stream = self._stream(key)
        pipe = self._redis.pipeline()
        pipe.exists(self._meta(key))
        pipe.xadd(
            stream,
            {"e": event_to_json(event)},
            id="0-*",
            maxlen=self.max_events_per_run,
            approximate=False,
        )
        pipe.expire(stream, self.run_ttl, nx=True)
        exists, entry_id, _ = await self._call(pipe.execute())
        if not exists:
            await self._call(self._redis.delete(stream))
            raise RunNotFoundError(key)
        return _position(entry_id)

    async def append_many(self, key: str, events: list[Event]) -> int:
        return await self.append_encoded(key, [event_to_json(event) for event in events])

    async def append_encoded(self, key: str, payloads: list[bytes]) -> int:
        if not payloads:
            return await self.last_position(key)
        stream = self._stream(key)
        # No MULTI/EXEC: one connection runs the commands in order anyway, and a transaction
        # costs a round of queuing replies per command.
        pipe = self._redis.pipeline(transaction=False)
        pipe.exists(self._meta(key))
        for payload in payloads:
            pipe.xadd(
                stream,
                {"e": payload},
                id="0-*",
                maxlen=self.max_events_per_run,
                approximate=False,
            )
        pipe.expire(stream, self.run_ttl, nx=True)
        answers = await self._call(pipe.execute())
        if not answers[0]:
            await self._call(self._redis.delete(stream))
            raise RunNotFoundError(key)
        return _position(answers[-2])

    async def finish(self, key: str) -> None:
        # On a cluster the index is on another slot: no transaction (one would be refused).
        pipe = self._redis.pipeline(transaction=not self.cluster)
        pipe.hset(self._meta(key), "finished", 1)
        pipe.expire(self._meta(key), self.finished_ttl)
        pipe.expire(self._stream(key), self.finished_ttl)
        pipe.zadd(self._keys.finished, {key: time.time()})
        await self._call(pipe.execute())

    async def beat(self, key: str) -> None:
        stored = await self._call(
            self._redis.eval(_BEAT, 2, self._meta(key), self._alive(key), self._beat_ttl_ms)
        )
        if not stored:
            raise RunNotFoundError(key)

    async def get(self, key: str) -> RunRecord:
        meta = await self._call(self._redis.hgetall(self._meta(key)))
        return self._record(key, meta)

    async def _abandoned(self, key: str) -> tuple[RunRecord, bool]:
        """The run's record, and whether it runs with a writer that stopped beating."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.hgetall(self._meta(key))
        pipe.exists(self._alive(key))
        meta, alive = await self._call(pipe.execute())
        record = self._record(key, meta)
        return record, not record.finished and meta.get(b"beats") == b"1" and not alive

    @staticmethod
    def _record(key: str, meta: dict[bytes, bytes]) -> RunRecord:
        if not meta or b"thread_id" not in meta:
            raise RunNotFoundError(key)
        return RunRecord(
            key=key,
            thread_id=meta[b"thread_id"].decode(),
            owner=meta[b"owner"].decode() if meta.get(b"has_owner") == b"1" else None,
            finished=meta.get(b"finished") == b"1",
        )

    async def last_position(self, key: str) -> int:
        await self.get(key)  # RunNotFoundError for an unknown or expired run
        return (await self._bounds(self._stream(key)))[1]

    async def thread_runs(self, thread_id: str) -> list[str]:
        run_ids = await self._call(self._redis.lrange(self._keys.thread(thread_id), 0, -1))
        pipe = self._redis.pipeline()
        for rid in run_ids:
            pipe.exists(self._meta(rid.decode()))
        alive = await self._call(pipe.execute())
        return [rid.decode() for rid, ok in zip(run_ids, alive, strict=True) if ok]

    async def _bounds(self, stream: str) -> tuple[int, int]:
        """(first, last) stored positions; (0, 0) for an empty stream."""
        pipe = self._redis.pipeline()
        pipe.xrange(stream, count=1)
        pipe.xrevrange(stream, count=1)
        first, last = await self._call(pipe.execute())
        if not last:
            return 0, 0
        return _position(first[0][0]), _position(last[0][0])

    async def read(self, key: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        async for batch in self.read_batches(key, after):
            for item in batch:
                yield item

    async def read_batches(self, key: str, after: int = 0) -> AsyncIterator[list[StoredEvent]]:
        record = await self.get(key)
        stream = self._stream(key)
        first, last = await self._bounds(stream)
        position = min(max(after, 0), last)
        if first and position < first - 1:
            raise HistoryTrimmedError(key, position, first)
        finished = record.finished
        misses = 0  # blocking reads in a row that found the writer's heartbeat gone
        while True:
            entries = await self._call(
                self._redis.xrange(stream, min=f"(0-{position}", count=_PAGE)
                if position
                else self._redis.xrange(stream, count=_PAGE)
            )
            if not entries:
                if finished:
                    return
                answer = await self._connection.read_tail(stream, f"0-{position}", _PAGE)
                entries = answer[0][1] if answer else []
                if not entries:
                    record, abandoned = await self._abandoned(key)  # also notices expiry
                    finished = record.finished
                    # Twice in a row: a run's end retried while Redis was away lands within
                    # a second of its return, and a reader must see that end, not this.
                    misses = misses + 1 if abandoned else 0
                    if misses >= 2:
                        raise RunAbandonedError(key)
                    continue
            batch: list[StoredEvent] = []
            ended = False
            for entry_id, fields in entries:
                entry_position = _position(entry_id)
                if entry_position != position + 1:  # trimmed while the reader was slow
                    if batch:
                        yield batch
                    raise HistoryTrimmedError(key, position, entry_position)
                position = entry_position
                event = parse_event(fields[b"e"])
                batch.append(StoredEvent(position, event))
                if event.type in _TERMINAL:
                    ended = True
                    break
            yield batch
            if ended:
                return

    async def aclose(self) -> None:
        await self._connection.aclose()
