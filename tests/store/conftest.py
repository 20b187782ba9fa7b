"""A real redis-server on 127.0.0.1 for the store tests (started here, stopped at the end)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from ag_ui.store import InMemoryRunStore, RunStore
from tests.redis_helpers import RedisServer, free_port

__all__ = ["RedisServer", "free_port"]


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
