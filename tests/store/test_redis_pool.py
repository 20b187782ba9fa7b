"""The Redis store's connection pools (issue 11, item 3): a busy pool makes a command wait for a
connection instead of failing, for at most ``pool_timeout``; readers blocked on the live tail
have a pool of their own, so they never take the connections runs need to store their events.
Against a real redis-server (the capacity on a real server: tests/resume/test_redis_capacity.py).
"""

from __future__ import annotations

import anyio
import pytest

from ag_ui.core import RunStartedEvent, TextMessageStartEvent
from ag_ui.core.errors import StoreUnavailableError
from ag_ui.store import RedisRunStore, StoredEvent
from tests.redis_helpers import RedisServer, free_port

pytestmark = pytest.mark.anyio

STARTED = RunStartedEvent(thread_id="t", run_id="r")


def store_on(server: RedisServer, **options: object) -> RedisRunStore:
    return RedisRunStore(server.url, prefix=f"pool{free_port()}:", **options)  # type: ignore[arg-type]


def test_the_pool_options_are_checked() -> None:
    with pytest.raises(ValueError, match="max_connections must be at least 1"):
        RedisRunStore(max_connections=0)
    with pytest.raises(ValueError, match="pool_timeout must be more than 0"):
        RedisRunStore(pool_timeout=0)
    defaults = RedisRunStore()
    assert (defaults.max_connections, defaults.pool_timeout) == (100, 30.0)


async def test_more_concurrent_commands_than_connections_wait_their_turn(
    redis_server: RedisServer,
) -> None:
    store = store_on(redis_server, max_connections=2)
    try:
        async with anyio.create_task_group() as tasks:
            for n in range(50):
                tasks.start_soon(store.create, f"k{n}", "t")
        assert len(await store.thread_runs("t")) == 50
    finally:
        await store.aclose()


async def test_blocked_readers_leave_the_connections_runs_need(redis_server: RedisServer) -> None:
    # Two readers blocked on the tail for up to 5 s, and a pool of two: if they held the
    # connections commands use, creating a run and storing an event would wait 5 s for one,
    # past the pool_timeout of 1 s (StoreUnavailableError).
    store = store_on(redis_server, max_connections=2, pool_timeout=1, block_seconds=5)
    seen: list[list[StoredEvent]] = [[], []]

    async def read(into: list[StoredEvent]) -> None:
        async for item in store.read("a"):
            into.append(item)
            return

    try:
        await store.create("a", "t")
        with anyio.fail_after(4):
            async with anyio.create_task_group() as readers:
                for into in seen:
                    readers.start_soon(read, into)
                await anyio.sleep(0.3)  # both are blocked in XREAD now
                await store.create("b", "t")
                await store.append("a", STARTED)
        assert [[item.position for item in into] for into in seen] == [[1], [1]]
    finally:
        await store.aclose()


async def test_a_pool_busy_past_pool_timeout_is_store_unavailable(
    redis_server: RedisServer,
) -> None:
    # The same two blocked readers and a third: the tail pool has no connection for it within
    # the pool_timeout, which is an error the server turns into a RUN_ERROR, not a hang.
    store = store_on(redis_server, max_connections=2, pool_timeout=0.5, block_seconds=5)
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
                for _ in range(3):
                    readers.start_soon(read)
                await anyio.sleep(1.0)
                await store.append("a", TextMessageStartEvent(message_id="m"))
        assert len(failures) == 1
        assert "No connection available" in str(failures[0])
    finally:
        await store.aclose()
