"""The deployment every test of tests/deploy shares (started once per module: four workers and
nginx take a few seconds to start on two cores); a test that stops a worker restarts it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deploy.harness import Deployment
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
