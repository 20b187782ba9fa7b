"""docs/deploy.md's gunicorn setup, run: ``gunicorn -k uvicorn_worker.UvicornWorker -w 2`` on one
port, two processes sharing the Redis run store. Runs through it arrive whole; SIGTERM to the
arbiter lets the run still going end on its own (``shutdown_grace``) within gunicorn's
``--graceful-timeout``, all of it in Redis for any other worker."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import httpx
import pytest

from ag_ui.core.events import EventType
from ag_ui.store import RedisRunStore
from tests.deploy.harness import Worker, worker_env
from tests.deploy.streams import StreamResult, body, read_stream
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
    await anyio.to_thread.run_sync(worker.start)
    try:
        results: list[StreamResult] = []
        async with httpx.AsyncClient(timeout=30) as client:

            async def one(n: int) -> None:
                results.append(
                    await read_stream(client, f"{worker.url}/agent", body(f"g{n}", 5, 0.05))
                )

            async with anyio.create_task_group() as tasks:
                for n in range(20):
                    tasks.start_soon(one, n)
            for result in results:
                result.check(5)
            # A run of 2 s, then SIGTERM to the arbiter while it goes.
            request = body("g-last", 20, 0.1)
            async with client.stream("POST", f"{worker.url}/agent", json=request) as response:
                key = response.headers["ag-ui-resume-key"]
                took = await anyio.to_thread.run_sync(worker.terminate)
        assert took < 8.0 + 2.0, took
    finally:
        worker.stop()
    store = RedisRunStore(redis_server.url, prefix=worker.env["AGUI_TEST_PREFIX"])
    try:
        events = [stored.event async for stored in store.read(key)]
    finally:
        await store.aclose()
    assert [e.type for e in events].count(EventType.TEXT_MESSAGE_CONTENT) == 20
    assert events[-1].type == EventType.RUN_FINISHED
