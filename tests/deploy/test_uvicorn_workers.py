"""``uvicorn --workers 2``: one port, a supervisor and two processes sharing the Redis run store.
Runs through it arrive whole; SIGTERM to the supervisor stops both processes, and the run still
going ends on its own first (``shutdown_grace``), all of it in Redis for any other worker."""

from __future__ import annotations

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


async def test_uvicorn_workers_flag(redis_server: RedisServer, tmp_path: Path) -> None:
    worker = Worker(
        worker_env(redis_server), 1.0, tmp_path / "uvicorn.log", extra_args=("--workers", "2")
    )
    await anyio.to_thread.run_sync(worker.start)
    try:
        results: list[StreamResult] = []
        async with httpx.AsyncClient(timeout=30) as client:

            async def one(n: int) -> None:
                results.append(
                    await read_stream(client, f"{worker.url}/agent", body(f"w{n}", 5, 0.05))
                )

            async with anyio.create_task_group() as tasks:
                for n in range(20):
                    tasks.start_soon(one, n)
            for result in results:
                result.check(5)
            # A run of 2 s, then SIGTERM while it goes: the stream is cut after uvicorn's 1 s,
            # the run ends within its grace, and reading it again from Redis gives all of it.
            request = body("w-last", 20, 0.1)
            async with client.stream("POST", f"{worker.url}/agent", json=request) as response:
                key = response.headers["ag-ui-resume-key"]
                took = await anyio.to_thread.run_sync(worker.terminate)
        assert 1.0 < took < 8.0, took
    finally:
        worker.stop()
    # The run's whole stream, as any worker of the same store would read it.
    store = RedisRunStore(redis_server.url, prefix=worker.env["AGUI_TEST_PREFIX"])
    try:
        events = [stored.event async for stored in store.read(key)]
    finally:
        await store.aclose()
    assert [e.type for e in events].count(EventType.TEXT_MESSAGE_CONTENT) == 20
    assert events[-1].type == EventType.RUN_FINISHED
