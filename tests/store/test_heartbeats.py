"""Heartbeats of running runs (issue 11, item 2): a reader of a run whose writer stopped beating
ends with ``RunAbandonedError`` instead of waiting until ``run_ttl``. Against a real
redis-server (two real workers, one killed: tests/resume/test_abandoned_runs.py)."""

from __future__ import annotations

import time

import anyio
import pytest
from redis import asyncio as aioredis

from ag_ui.core import RunFinishedEvent, RunStartedEvent
from ag_ui.core.errors import RunAbandonedError, RunNotFoundError
from ag_ui.store import InMemoryRunStore, RedisRunStore, RunStore
from tests.redis_helpers import RedisServer, free_port

pytestmark = pytest.mark.anyio

STARTED = RunStartedEvent(thread_id="t", run_id="r")
INTERVAL = 0.1
BLOCK = 0.1


def store_on(server: RedisServer) -> RedisRunStore:
    return RedisRunStore(
        server.url, prefix=f"beat{free_port()}:", block_seconds=BLOCK, heartbeat_interval=INTERVAL
    )


async def read_all(store: RunStore, key: str) -> list[int]:
    return [item.position async for item in store.read(key)]


def test_the_heartbeat_option_is_checked() -> None:
    with pytest.raises(ValueError, match="heartbeat_interval must be more than 0"):
        RedisRunStore(heartbeat_interval=0)
    assert RedisRunStore().heartbeat_interval == 2.0
    # One process: the readers of an in-memory run die with its writer, nothing to detect.
    assert InMemoryRunStore().heartbeat_interval is None


async def test_a_reader_of_a_run_that_stopped_beating_ends_abandoned(
    redis_server: RedisServer,
) -> None:
    store = store_on(redis_server)
    try:
        await store.create("a", "t")
        await store.append("a", STARTED)
        await store.beat("a")
        started = time.monotonic()
        with anyio.fail_after(10), pytest.raises(RunAbandonedError) as caught:
            await read_all(store, "a")
        elapsed = time.monotonic() - started
        assert caught.value.key == "a"
        # Not before the beat's three intervals passed; within them and two blocking reads.
        assert 3 * INTERVAL <= elapsed < 3 * INTERVAL + 2 * BLOCK + 3
        # A beat again (the writer was only slow): the run is alive, its end is read.
        await store.beat("a")
        await store.append("a", RunFinishedEvent(thread_id="t", run_id="r"))
        await store.finish("a")
        with anyio.fail_after(5):
            assert await read_all(store, "a") == [1, 2]
    finally:
        await store.aclose()


async def test_runs_that_never_beat_or_finished_are_not_abandoned(
    redis_server: RedisServer,
) -> None:
    store = store_on(redis_server)
    try:
        await store.create("old", "t")  # a writer without heartbeats (an older server)
        await store.append("old", STARTED)
        with anyio.move_on_after(6 * INTERVAL + 4 * BLOCK) as waited:
            await read_all(store, "old")
        assert waited.cancelled_caught  # still waiting, as before heartbeats
        await store.create("done", "t")
        await store.beat("done")
        await store.append("done", STARTED)
        await store.append("done", RunFinishedEvent(thread_id="t", run_id="r"))
        await store.finish("done")
        await anyio.sleep(4 * INTERVAL)  # its heartbeat is stale, but it finished
        assert await read_all(store, "done") == [1, 2]
        with pytest.raises(RunNotFoundError):
            await store.beat("never-created")
        assert not await redis_server_keys(redis_server, store, "never-created")
    finally:
        await store.aclose()


async def redis_server_keys(server: RedisServer, store: RedisRunStore, key: str) -> list[bytes]:
    """The Redis keys of run ``key`` (a beat of an unknown run must not create any)."""
    client = aioredis.from_url(server.url)
    try:
        return list(await client.keys(f"{store.prefix}run:{key}*"))
    finally:
        await client.aclose()
