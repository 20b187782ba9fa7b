"""The deployments of tests/deploy (four workers and nginx take a few seconds to start on two
cores, so they are shared): ``deployment`` (Redis runs, nginx from the file as it is; once per
module, and a test that stops a worker restarts it) and ``threaded`` (the same with a
PostgreSQL thread store, nginx's read timeout cut to 1 s and a 0.5 s keepalive; once per
session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deploy.harness import Deployment
from tests.postgres_helpers import PostgresServer
from tests.redis_helpers import RedisServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def deployment(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    deployed = Deployment(redis_server, tmp_path_factory.mktemp("deploy"))
    try:
        yield deployed
    finally:
        deployed.close()


@pytest.fixture
def deployed(deployment: Deployment) -> Deployment:
    deployment.ensure_all_up()
    return deployment


@pytest.fixture(scope="session")
def threaded(
    redis_server: RedisServer,
    postgres_server: PostgresServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Deployment]:
    deployed = Deployment(
        redis_server,
        tmp_path_factory.mktemp("threaded"),
        keepalive=0.5,
        read_timeout="1s",
        threads_url=postgres_server.database(),
    )
    try:
        yield deployed
    finally:
        deployed.close()
