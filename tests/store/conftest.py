"""A real redis-server on 127.0.0.1 for the store tests (started here, stopped at the end)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from ag_ui.store import InMemoryRunStore, RunStore
from tests.redis_helpers import RedisServer, free_port

__all__ = ["RedisServer", "free_port"]


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[RunStore]:
    if request.param == "memory":
        yield InMemoryRunStore(max_runs=3, max_events_per_run=5)
        return
    from ag_ui.store import RedisRunStore

    server: RedisServer = request.getfixturevalue("redis_server")
    prefix = f"test{free_port()}:"
    redis_store = RedisRunStore(
        server.url, prefix=prefix, max_runs=3, max_events_per_run=5, block_seconds=0.2
    )
    yield redis_store
    await redis_store.aclose()
