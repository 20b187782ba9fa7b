"""The deployments of tests/deploy (four workers and nginx take a few seconds to start on two
cores, so each is started once per session): ``deployment`` (Redis runs, nginx from the file
as it is, plus agui-tls.conf's lines on a second port; a test that stops a worker restarts it:
``deployed``) and ``threaded`` (the same with a PostgreSQL thread store). The read-timeout test
has a deployment of its own: with nginx's read timeout cut to 1 s, a response whose headers
wait on a busy store would get a 504."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deploy.harness import Deployment
from tests.postgres_helpers import PostgresServer
from tests.redis_helpers import RedisServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def deployment(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    deployed = Deployment(redis_server, tmp_path_factory.mktemp("deploy"), tls=True)
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
    threads = postgres_server.database()
    deployed = Deployment(redis_server, tmp_path_factory.mktemp("threaded"), threads_url=threads)
    try:
        yield deployed
    finally:
        deployed.close()
