"""The connections of ``RedisRunStore`` and the bounds on every command it sends.

Connections: two pools of at most ``max_connections`` each (default 100), one for commands and
one for readers waiting on the live tail (a blocking ``XREAD`` holds its connection for up to
``block_seconds``: however many readers wait, runs can still store their events). A command that
finds its pool busy waits up to ``pool_timeout`` seconds (default 30) for a connection to come
back, then fails as unreachable. redis-py's own default pool fails at once instead ("Too many
connections"), which refused every run past the hundredth with 503 while Redis was healthy; a
run holds a connection only for the length of each round trip, so a hundred connections carry
thousands of runs (benchmarks/bench_resume.py: 1,000 at once on one worker).

A Redis Cluster (``cluster=True``, or a ``RedisCluster`` client; that no script, transaction
or multi-key command spans two slots is the store's concern, ``redis.py``): redis-py's cluster
client keeps a connection list per node that fails at once when full, so at most
``max_connections`` commands of each pool run at a time and the others wait up to
``pool_timeout``, as on one Redis. A master that dies is retried
(the cluster client refreshes its slot map) until its replica is promoted or
``block_seconds + operation_timeout`` have passed, whichever comes first; past that the command
fails with ``StoreUnavailableError`` (docs/deploy.md, "Redis Cluster").
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Union

import anyio

try:
    from redis import asyncio as aioredis
    from redis.asyncio.cluster import RedisCluster
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialWithJitterBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import RedisClusterException, RedisError
    from redis.exceptions import TimeoutError as RedisTimeoutError
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "RedisRunStore needs the redis package: pip install 'ag-ui-sdk[redis]'"
    ) from exc

from ag_ui.core.errors import StoreUnavailableError

__all__ = ["RedisClient", "RedisCluster", "RedisConnection"]

RedisClient = Union[aioredis.Redis, RedisCluster]


class RedisConnection:
    """The store's two clients (``commands``, and ``tail`` for blocking reads of a run's live
    tail) and ``call``, which bounds a command and turns Redis's failures into
    ``StoreUnavailableError``. With ``client=`` both are that client, and ``aclose`` leaves it
    open (its owner closes it)."""

    def __init__(
        self,
        url: str,
        *,
        client: Optional[RedisClient],
        cluster: bool,
        block_seconds: float,
        operation_timeout: float,
        max_connections: int,
        pool_timeout: float,
    ) -> None:
        if operation_timeout <= 0:
            raise ValueError(f"operation_timeout must be > 0 seconds, got {operation_timeout!r}")
        if max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, got {max_connections!r}")
        if pool_timeout <= 0:
            raise ValueError(f"pool_timeout must be more than 0 seconds, got {pool_timeout!r}")
        self.max_connections = max_connections
        self.pool_timeout = pool_timeout
        self.operation_timeout = operation_timeout
        if client is not None:
            if cluster and not isinstance(client, RedisCluster):
                raise ValueError("cluster=True needs a redis.asyncio.cluster.RedisCluster client")
            cluster = isinstance(client, RedisCluster)
        self.cluster = cluster
        self._owns_client = client is None
        self.commands: RedisClient = client or self._pooled(url, block_seconds)
        self.tail: RedisClient = client or self._pooled(url, block_seconds)
        # On a cluster, the stand-ins for the blocking pools' waits (module docstring).
        self._gate = anyio.Semaphore(max_connections)
        self._tail_gate = self._gate if client is not None else anyio.Semaphore(max_connections)
        self._deadline = block_seconds + operation_timeout
        self.block_ms = max(1, int(block_seconds * 1000))

    def _pooled(self, url: str, block_seconds: float) -> RedisClient:
        """A client with a pool of its own that waits for a free connection."""
        # The socket timeout bounds every command; a blocking XREAD waits up to block_seconds
        # by design, so each command gets that much plus operation_timeout.
        if self.cluster:
            return RedisCluster.from_url(
                url,
                max_connections=self.max_connections,
                socket_connect_timeout=min(2.0, self.operation_timeout),
                socket_timeout=block_seconds + self.operation_timeout,
                # Short, many retries: a failover takes the cluster's node timeout and an
                # election; the command's deadline (call) bounds the whole.
                retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries=100),
            )
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=self.max_connections,
            timeout=self.pool_timeout,
            socket_connect_timeout=min(2.0, self.operation_timeout),
            socket_timeout=block_seconds + self.operation_timeout,
        )
        return aioredis.Redis.from_pool(pool)  # the client owns the pool and closes it

    async def call(self, coroutine: Any, *, tail: bool = False) -> Any:
        """``await coroutine`` (a command of ``commands``, or of ``tail`` with ``tail=True``),
        bounded, with Redis's failures raised as ``StoreUnavailableError``."""
        if self.cluster:
            return await self._cluster_call(coroutine, self._tail_gate if tail else self._gate)
        try:
            return await coroutine
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError(f"Redis unreachable: {exc}") from exc
        except RedisError as exc:
            raise StoreUnavailableError(f"Redis error: {exc}") from exc

    async def _cluster_call(self, coroutine: Any, gate: anyio.Semaphore) -> Any:
        """``call`` on a cluster: wait for a turn within ``pool_timeout``, then give the
        command (the client's retries included) ``block_seconds + operation_timeout``."""
        with anyio.move_on_after(self.pool_timeout) as waiting:
            await gate.acquire()
        if waiting.cancelled_caught:
            # The command never started; Python 3.11 warns that it was never awaited even
            # when it is closed (3.12 no longer does).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                coroutine.close()
            raise StoreUnavailableError(
                f"Redis unreachable: No connection available within {self.pool_timeout} s "
                f"({self.max_connections} commands at once)"
            )
        try:
            with anyio.fail_after(self._deadline):
                return await coroutine
        except TimeoutError as exc:
            raise StoreUnavailableError(
                f"Redis unreachable: no answer within {self._deadline} s"
            ) from exc
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError(f"Redis unreachable: {exc}") from exc
        except (RedisError, RedisClusterException) as exc:
            raise StoreUnavailableError(f"Redis error: {exc}") from exc
        finally:
            gate.release()

    async def read_tail(self, stream: str, last_id: str, count: int) -> Any:
        """A blocking ``XREAD`` of ``stream`` after ``last_id``: up to ``count`` entries, or
        none after ``block_seconds``."""
        if self.cluster:
            return await self.call(self._cluster_xread(stream, last_id, count), tail=True)
        reading = self.tail.xread({stream: last_id}, block=self.block_ms, count=count)
        return await self.call(reading, tail=True)

    async def _cluster_xread(self, stream: str, last_id: str, count: int) -> Any:
        """XREAD sent to the node of the stream's slot. redis-py asks its parser node
        (COMMAND GETKEYS) for an XREAD's keys, and when that node is the master that died it
        is not replaced: every XREAD failed until the deadline although the replica had been
        promoted. Routed here, each connection error is tried again on the node the slot
        map names by then (``call``'s deadline bounds the whole)."""
        assert isinstance(self.tail, RedisCluster)
        while True:
            try:
                # No node while the slot's master is failed and its replica not yet promoted.
                node = self.tail.get_node_from_key(stream)
                return await self.tail.execute_command(
                    "XREAD",
                    "COUNT",
                    count,
                    "BLOCK",
                    self.block_ms,
                    "STREAMS",
                    stream,
                    last_id,
                    target_nodes=node,
                )
            except (RedisConnectionError, RedisTimeoutError, OSError, RedisClusterException):
                # A plain keyed command: redis-py retries it and refreshes its slot map.
                await self.tail.exists(stream)

    async def aclose(self) -> None:
        if self._owns_client:
            await self.commands.aclose()
            await self.tail.aclose()
