"""``uvicorn --workers 2``: one port, a supervisor and two processes sharing the Redis run store.
Runs through it arrive whole; SIGTERM to the supervisor stops both processes, and the run still
going ends on its own first (``shutdown_grace``), all of it in Redis for any other worker."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.harness import Worker, worker_env
from tests.deploy.several_workers import runs_then_terminate
from tests.redis_helpers import RedisServer

pytestmark = pytest.mark.anyio


async def test_uvicorn_workers_flag(redis_server: RedisServer, tmp_path: Path) -> None:
    worker = Worker(
        worker_env(redis_server), 1.0, tmp_path / "uvicorn.log", extra_args=("--workers", "2")
    )
    # The last run's stream is cut after uvicorn's 1 s; the run ends within its grace.
    took = await runs_then_terminate(worker, redis_server, "w")
    assert 1.0 < took < 8.0, took
