"""docs/deploy.md's gunicorn setup, run: ``gunicorn -k uvicorn_worker.UvicornWorker -w 2`` on one
port, two processes sharing the Redis run store. Runs through it arrive whole; SIGTERM to the
arbiter lets the run still going end on its own (``shutdown_grace``) within gunicorn's
``--graceful-timeout``, all of it in Redis for any other worker."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.deploy.harness import Worker, worker_env
from tests.deploy.several_workers import runs_then_terminate
from tests.redis_helpers import RedisServer

pytestmark = pytest.mark.anyio


class GunicornWorker(Worker):
    """The same app under gunicorn's arbiter with uvicorn workers (as docs/deploy.md shows)."""

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "gunicorn",
            "tests.deploy.deploy_app:app",
            "-k",
            "uvicorn_worker.UvicornWorker",
            "-w",
            "2",
            "-b",
            f"127.0.0.1:{self.port}",
            "--graceful-timeout",
            "8",
            "--keep-alive",
            "5",
            "--log-level",
            "warning",
        ]


async def test_gunicorn_with_uvicorn_workers(redis_server: RedisServer, tmp_path: Path) -> None:
    worker = GunicornWorker(worker_env(redis_server), 1.0, tmp_path / "gunicorn.log")
    took = await runs_then_terminate(worker, redis_server, "g")
    assert took < 8.0 + 2.0, took
