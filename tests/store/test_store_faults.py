"""TTL expiry, and Redis failures: unreachable at start, lost mid-run (nothing hangs)."""

from __future__ import annotations

import time

import anyio
import pytest

from ag_ui.core import RunStartedEvent, StepStartedEvent
from ag_ui.store import (
    InMemoryRunStore,
    RedisRunStore,
    RunNotFoundError,
    StoreUnavailableError,
)
from tests.store.conftest import RedisServer, free_port

pytestmark = pytest.mark.anyio

STARTED = RunStartedEvent(thread_id="t", run_id="r")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_in_memory_ttls() -> None:
    clock = FakeClock()
    store = InMemoryRunStore(finished_ttl=10, run_ttl=100, clock=clock)
    await store.create("done", "t")
    await store.create("running", "t")
    await store.finish("done")
    clock.now += 11
    with pytest.raises(RunNotFoundError):
        await store.get("done")
    assert (await store.get("running")).finished is False
    clock.now += 90
    with pytest.raises(RunNotFoundError):
        await store.get("running")
    assert await store.thread_runs("t") == []


async def test_an_expired_running_run_wakes_its_readers_with_not_found() -> None:
    clock = FakeClock()
    store = InMemoryRunStore(run_ttl=60, clock=clock)
    await store.create("r", "t")
    await store.append("r", STARTED)
    seen: list[int] = []
    failures: list[Exception] = []

    async def reader() -> None:
        try:
            async for item in store.read("r"):
                seen.append(item.position)
        except RunNotFoundError as exc:
            failures.append(exc)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            while not seen:
                await anyio.sleep(0.01)
            clock.now += 61
            assert await store.thread_runs("t") == []  # the sweep drops the expired run
    assert seen == [1]
    assert [type(f) for f in failures] == [RunNotFoundError]


async def test_redis_finished_run_expires(redis_server: RedisServer) -> None:
    store = RedisRunStore(redis_server.url, prefix=f"ttl{free_port()}:", finished_ttl=1)
    try:
        await store.create("r", "t")
        await store.append("r", STARTED)
        await store.finish("r")
        assert (await store.get("r")).finished
        with anyio.fail_after(10):
            while True:
                try:
                    await store.get("r")
                except RunNotFoundError:
                    break
                await anyio.sleep(0.1)
        assert await store.thread_runs("t") == []
    finally:
        await store.aclose()


async def test_redis_unreachable_at_start() -> None:
    store = RedisRunStore(f"redis://127.0.0.1:{free_port()}/0")
    with anyio.fail_after(10):
        with pytest.raises(StoreUnavailableError):
            await store.ping()
        with pytest.raises(StoreUnavailableError):
            await store.create("r", "t")
    await store.aclose()


async def test_redis_lost_mid_run_raises_instead_of_hanging(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    server = RedisServer(tmp_path_factory.mktemp("lost"))
    store = RedisRunStore(server.url, block_seconds=0.2)
    try:
        await store.create("r", "t")
        await store.append("r", STARTED)
        positions: list[int] = []
        with anyio.fail_after(15), pytest.raises(StoreUnavailableError):  # noqa: PT012
            async for item in store.read("r"):
                positions.append(item.position)
                server.stop()  # Redis dies while the reader waits for the next event
        assert positions == [1]
        with pytest.raises(StoreUnavailableError):
            await store.append("r", StepStartedEvent(step_name="after"))
    finally:
        server.stop()
        await store.aclose()


async def test_a_paused_redis_fails_every_call_within_block_seconds_plus_operation_timeout(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # SIGSTOP: the sockets stay open and nothing answers; only the timeout notices.
    server = RedisServer(tmp_path_factory.mktemp("paused"))
    store = RedisRunStore(server.url, block_seconds=0.2, operation_timeout=0.5)
    try:
        await store.create("r", "t")
        await store.append("r", STARTED)
        took: list[float] = []
        with server.paused():
            for call in (
                lambda: store.get("r"),
                lambda: store.append("r", StepStartedEvent(step_name="s")),
                lambda: store.finish("r"),
                lambda: store.read("r").__anext__(),
            ):
                start = time.monotonic()
                with anyio.fail_after(10), pytest.raises(StoreUnavailableError, match="Timeout"):
                    await call()
                took.append(time.monotonic() - start)
        assert max(took) < 0.7 + 2  # 0.2 + 0.5 s, and a margin for a shared machine
        assert (await store.get("r")).finished is False  # answers again after SIGCONT
    finally:
        server.stop()
        await store.aclose()


def test_operation_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="operation_timeout must be > 0 seconds, got 0"):
        RedisRunStore(operation_timeout=0)
