"""``RedisRunStore`` on a real Redis Cluster (issue 28, item 4): 3 masters with a replica each,
started by ``redis_cluster`` (tests/store/conftest.py; the store contract runs on it too, in
test_store_contract.py). Each run's keys share one slot; the runs spread over the masters; a
reader resumes across a reconnect; a master killed during a run is replaced by its replica and
the run goes on; a master that does not answer fails the command within its bound. The key
names on a single Redis are those of every earlier release (the upgrade path, docs/deploy.md).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import AsyncIterator

import anyio
import pytest
from redis import asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from ag_ui.core import RunFinishedEvent, RunStartedEvent, StepStartedEvent
from ag_ui.core.errors import StoreUnavailableError
from ag_ui.store import RedisRunStore, StoredEvent
from tests.redis_helpers import RedisClusterNodes, RedisServer, free_port

pytestmark = pytest.mark.anyio

STARTED = RunStartedEvent(thread_id="t", run_id="r")
FINISHED = RunFinishedEvent(thread_id="t", run_id="r")
BLOCK = 0.2


def step(n: int) -> StepStartedEvent:
    return StepStartedEvent(step_name=f"s{n}")


@pytest.fixture
async def cluster_store(redis_cluster: RedisClusterNodes) -> AsyncIterator[RedisRunStore]:
    store = RedisRunStore(
        redis_cluster.url, cluster=True, prefix=f"c{free_port()}:", block_seconds=BLOCK
    )
    yield store
    await store.aclose()


def keyslot(cluster: RedisClusterNodes, key: str) -> int:
    return int(cluster.command(cluster.running()[0], "cluster", "keyslot", key).strip())


async def test_a_runs_keys_share_a_slot_and_runs_spread_over_the_masters(
    redis_cluster: RedisClusterNodes, cluster_store: RedisRunStore
) -> None:
    prefix = cluster_store.prefix
    await cluster_store.create("r1", "t")
    await cluster_store.append("r1", STARTED)
    await cluster_store.beat("r1")
    await cluster_store.finish("r1")
    names = [f"{prefix}run:{{r1}}", f"{prefix}run:{{r1}}:events", f"{prefix}run:{{r1}}:alive"]
    assert len({keyslot(redis_cluster, name) for name in names}) == 1
    client = RedisCluster.from_url(redis_cluster.url)
    try:
        stored = {key.decode() for key in await client.keys(f"{prefix}*", target_nodes="all")}
        assert stored == {
            *names,
            f"{prefix}thread:{{t}}",
            f"{prefix}{{runs}}",
            f"{prefix}{{runs}}:finished",
        }
    finally:
        await client.aclose()
    masters = {redis_cluster.master_of(f"{prefix}run:{{k{n}}}").port for n in range(30)}
    assert len(masters) == 3


async def test_a_single_redis_keeps_the_key_names_of_earlier_releases(
    redis_server: RedisServer,
) -> None:
    # The upgrade path on one Redis: workers of the previous release and of this one read each
    # other's runs during a rolling restart because not one name changed.
    prefix = f"old{free_port()}:"
    store = RedisRunStore(redis_server.url, prefix=prefix)
    client = aioredis.from_url(redis_server.url)
    try:
        await store.create("r1", "t")
        await store.append("r1", STARTED)
        await store.beat("r1")
        await store.finish("r1")
        stored = {key.decode() for key in await client.keys(f"{prefix}*")}
        assert stored == {
            f"{prefix}run:r1",
            f"{prefix}run:r1:events",
            f"{prefix}run:r1:alive",
            f"{prefix}thread:t",
            f"{prefix}runs",
            f"{prefix}finished",
        }
    finally:
        await client.aclose()
        await store.aclose()


def test_the_single_node_script_is_refused_by_the_cluster(
    redis_cluster: RedisClusterNodes,
) -> None:
    # Why the cluster needs its own layout: the old create touched three slots in one script.
    # Sent to the master of its first key, which answers for the server, not redis-py.
    master = redis_cluster.master_of("agui:runs")
    answer = redis_cluster.command(master, "eval", "return 1", "2", "agui:runs", "agui:run:r1")
    assert "CROSSSLOT" in answer


async def test_cluster_options_are_checked(redis_server: RedisServer) -> None:
    with pytest.raises(ValueError, match="may not hold"):
        RedisRunStore(cluster=True, prefix="app{x}:")
    plain = aioredis.from_url(redis_server.url)
    try:
        with pytest.raises(ValueError, match=r"needs a redis\.asyncio\.cluster\.RedisCluster"):
            RedisRunStore(client=plain, cluster=True)
        assert RedisRunStore(client=plain).cluster is False
    finally:
        await plain.aclose()


async def test_a_cluster_client_puts_the_store_in_cluster_mode(
    redis_cluster: RedisClusterNodes,
) -> None:
    client = RedisCluster.from_url(redis_cluster.url)
    store = RedisRunStore(client=client, prefix=f"given{free_port()}:")
    try:
        assert store.cluster is True
        with pytest.raises(ValueError, match="may not be empty"):
            await store.create("", "t")
        await store.create("r1", "t")
        assert await store.append_many("r1", [STARTED, FINISHED]) == 2
        assert await store.thread_runs("t") == ["r1"]
    finally:
        await store.aclose()
        await client.aclose()  # the store leaves a client it was given open


async def test_a_reader_resumes_across_a_reconnect(
    redis_cluster: RedisClusterNodes, cluster_store: RedisRunStore
) -> None:
    # The writer and each reader have clients of their own, as on different workers.
    await cluster_store.create("r1", "t")
    await cluster_store.append_many("r1", [STARTED, step(1), step(2)])
    first = RedisRunStore(
        redis_cluster.url, cluster=True, prefix=cluster_store.prefix, block_seconds=BLOCK
    )
    seen: list[StoredEvent] = []
    with anyio.fail_after(10):
        async for item in first.read("r1"):
            seen.append(item)
            if item.position == 2:
                break
    await first.aclose()  # the connection is gone; the client holds position 2
    await cluster_store.append_many("r1", [step(3), FINISHED])
    await cluster_store.finish("r1")
    second = RedisRunStore(
        redis_cluster.url, cluster=True, prefix=cluster_store.prefix, block_seconds=BLOCK
    )
    try:
        with anyio.fail_after(10):
            seen += [item async for item in second.read("r1", after=2)]
    finally:
        await second.aclose()
    assert seen == [
        StoredEvent(1, STARTED),
        StoredEvent(2, step(1)),
        StoredEvent(3, step(2)),
        StoredEvent(4, step(3)),
        StoredEvent(5, FINISHED),
    ]


async def test_more_commands_than_connections_wait_their_turn(
    redis_cluster: RedisClusterNodes,
) -> None:
    # redis-py's cluster client would raise MaxConnectionsError at the third command at once.
    store = RedisRunStore(
        redis_cluster.url, cluster=True, prefix=f"gate{free_port()}:", max_connections=2
    )
    try:
        async with anyio.create_task_group() as tasks:
            for n in range(50):
                tasks.start_soon(store.create, f"k{n}", "t")
        assert len(await store.thread_runs("t")) == 50
    finally:
        await store.aclose()


async def test_a_turn_not_given_within_pool_timeout_is_store_unavailable(
    redis_cluster: RedisClusterNodes,
) -> None:
    # One connection for the tail, held by a reader blocked for 5 s: a second reader gets no
    # turn within the pool_timeout of 0.5 s.
    store = RedisRunStore(
        redis_cluster.url,
        cluster=True,
        prefix=f"busy{free_port()}:",
        max_connections=1,
        pool_timeout=0.5,
        block_seconds=5,
    )
    failures: list[Exception] = []

    async def read() -> None:
        try:
            async for _ in store.read("a"):
                return
        except StoreUnavailableError as exc:
            failures.append(exc)

    try:
        await store.create("a", "t")
        with anyio.fail_after(4):
            async with anyio.create_task_group() as readers:
                readers.start_soon(read)
                readers.start_soon(read)
                await anyio.sleep(1.0)
                await store.append("a", STARTED)
        assert len(failures) == 1
        assert "No connection available within 0.5 s" in str(failures[0])
    finally:
        await store.aclose()


def wait_replicated(cluster: RedisClusterNodes, master: RedisServer) -> None:
    """Until the master's replica holds everything the master wrote (replication is
    asynchronous: an event acknowledged just before its master dies may be lost, which is
    documented, not what this test is about)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        info = cluster.command(master, "info", "replication")
        offsets = dict(
            line.split(":", 1) for line in info.splitlines() if line.startswith("master_repl")
        )
        replica = [line for line in info.splitlines() if line.startswith("slave0:")]
        if replica and f"offset={offsets['master_repl_offset'].strip()}," in replica[0]:
            return
        time.sleep(0.01)
    pytest.fail(f"the replica of {master.port} did not catch up within 5 s")


async def test_a_master_killed_during_a_run_is_replaced_and_the_run_goes_on(
    redis_cluster: RedisClusterNodes, cluster_store: RedisRunStore
) -> None:
    # The documented outcome (docs/deploy.md, "Redis Cluster"): the commands on the dead
    # master's slots wait while its replica is promoted (cluster-node-timeout 0.5 s here),
    # then succeed; the writer loses no event it was told was stored, the reader, blocked on
    # the dead master, resumes on the new one and reads every event once, in order.
    writer = cluster_store
    reader = RedisRunStore(
        redis_cluster.url, cluster=True, prefix=writer.prefix, block_seconds=BLOCK
    )
    master = redis_cluster.master_of(f"{writer.prefix}run:{{r1}}")
    await writer.create("r1", "t")
    received: list[StoredEvent] = []
    written = [STARTED, *(step(n) for n in range(1, 41)), FINISHED]
    waits: list[float] = []

    async def read() -> None:
        async for item in reader.read("r1"):
            received.append(item)

    async def write() -> None:
        for n, event in enumerate(written):
            if n == 10:
                wait_replicated(redis_cluster, master)
                os.kill(master.process.pid, signal.SIGKILL)
                master.process.wait(timeout=10)
            started = time.monotonic()
            assert await writer.append("r1", event) == n + 1
            waits.append(time.monotonic() - started)
            await anyio.sleep(0.01)
        await writer.finish("r1")

    try:
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(read)
                await write()
        assert [item.event for item in received] == written
        assert [item.position for item in received] == list(range(1, len(written) + 1))
        promoted = redis_cluster.master_of(f"{writer.prefix}run:{{r1}}")
        assert promoted.port != master.port
        # The append that met the dead master waited for the promotion, within its bound.
        assert 0.3 < max(waits) < BLOCK + writer.operation_timeout
    finally:
        await reader.aclose()
        if master.process.poll() is not None:
            assert master.start()  # back as a replica of the promoted master
        redis_cluster.wait_healthy()


async def test_a_master_that_does_not_answer_fails_the_command_within_its_bound(
    redis_cluster: RedisClusterNodes,
) -> None:
    # With no promotion in time (an operation_timeout of 0.3 s, shorter than a failover), the
    # writer learns within block_seconds + operation_timeout that its event was not stored.
    store = RedisRunStore(
        redis_cluster.url,
        cluster=True,
        prefix=f"stall{free_port()}:",
        block_seconds=BLOCK,
        operation_timeout=0.3,
    )
    master = redis_cluster.master_of(f"{store.prefix}run:{{r1}}")
    try:
        await store.create("r1", "t")
        os.kill(master.process.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            with pytest.raises(StoreUnavailableError, match=r"no answer within 0\.5 s"):
                await store.append("r1", STARTED)
            elapsed = time.monotonic() - started
        finally:
            os.kill(master.process.pid, signal.SIGCONT)
        assert BLOCK + 0.3 <= elapsed < BLOCK + 0.3 + 1
    finally:
        await store.aclose()
        redis_cluster.wait_healthy()
