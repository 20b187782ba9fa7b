"""Real Redis servers on 127.0.0.1 for the store tests (started here, stopped at the end): one
redis-server (``redis_server``, tests/conftest.py) and a 3-master Redis Cluster with a replica
per master (``redis_cluster``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from ag_ui.store import InMemoryRunStore, RunStore
from tests.redis_helpers import RedisClusterNodes, RedisServer, free_port

__all__ = ["RedisServer", "free_port"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterNodes]:
    """Six redis-server processes in cluster mode (3 masters, 3 replicas) for the session."""
    cluster = RedisClusterNodes(tmp_path_factory.mktemp("redis-cluster"))
    yield cluster
    cluster.stop()


@pytest.fixture(params=["memory", "redis", "cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[RunStore]:
    if request.param == "memory":
        yield InMemoryRunStore(max_runs=3, max_events_per_run=5)
        return
    from ag_ui.store import RedisRunStore

    if request.param == "cluster":
        cluster: RedisClusterNodes = request.getfixturevalue("redis_cluster")
        url, options = cluster.url, {"cluster": True}
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        url, options = server.url, {}
    prefix = f"test{free_port()}:"
    redis_store = RedisRunStore(
        url, prefix=prefix, max_runs=3, max_events_per_run=5, block_seconds=0.2, **options
    )
    yield redis_store
    await redis_store.aclose()
