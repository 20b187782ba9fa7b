"""What the tests of one port served by several processes (``uvicorn --workers``, gunicorn with
uvicorn workers) share: runs through it, then SIGTERM to the supervisor while one goes."""

from __future__ import annotations

import anyio
import httpx

from ag_ui.core.events import EventType
from ag_ui.store import RedisRunStore
from tests.deploy.harness import Worker
from tests.deploy.streams import StreamResult, body, read_stream
from tests.redis_helpers import RedisServer


async def runs_then_terminate(worker: Worker, redis_server: RedisServer, tag: str) -> float:
    """Start ``worker``; 20 runs through it arrive whole; then a run of 2 s, during which the
    supervisor gets SIGTERM: the run's whole stream is in Redis afterwards (for any other
    worker of the same store). Returns how long the supervisor took to stop, in seconds."""
    await anyio.to_thread.run_sync(worker.start)
    try:
        results: list[StreamResult] = []
        async with httpx.AsyncClient(timeout=30) as client:

            async def one(n: int) -> None:
                results.append(
                    await read_stream(client, f"{worker.url}/agent", body(f"{tag}{n}", 5, 0.05))
                )

            async with anyio.create_task_group() as tasks:
                for n in range(20):
                    tasks.start_soon(one, n)
            for result in results:
                result.check(5)
            request = body(f"{tag}-last", 20, 0.1)
            async with client.stream("POST", f"{worker.url}/agent", json=request) as response:
                key = response.headers["ag-ui-resume-key"]
                took = await anyio.to_thread.run_sync(worker.terminate)
    finally:
        worker.stop()
    store = RedisRunStore(redis_server.url, prefix=worker.env["AGUI_TEST_PREFIX"])
    try:
        events = [stored.event async for stored in store.read(key)]
    finally:
        await store.aclose()
    assert [e.type for e in events].count(EventType.TEXT_MESSAGE_CONTENT) == 20
    assert events[-1].type == EventType.RUN_FINISHED
    return took
