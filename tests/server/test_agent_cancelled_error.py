"""A ``CancelledError`` raised by agent code (awaiting a task something else cancelled) is the
agent failing, not the run being cancelled: the run ends like any failing agent, every other
run on the worker goes on, and the worker keeps serving (issue 11, item 1). On a real uvicorn,
without a store, with the in-memory store and with a real redis-server."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any, Optional

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from ag_ui.core import RunAgentInput
from ag_ui.server import AgentEndpoint, RunContext
from ag_ui.store import InMemoryRunStore, RedisRunStore, RunStore
from tests.redis_helpers import RedisServer, free_port
from tests.support.servers import serve
from tests.support.sse import sse_events

pytestmark = pytest.mark.anyio

PIECES = 40


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    if run_input.thread_id == "culprit":
        async with ctx.text_message() as message:
            await message.send("working")
            inner = asyncio.ensure_future(asyncio.sleep(10))
            inner.cancel()
            await inner  # raises CancelledError: nobody cancelled this run
        return

    async def pieces() -> AsyncIterator[str]:
        for n in range(PIECES):
            await anyio.sleep(0.02)
            yield f"{n} "

    await ctx.say(pieces())


def body(thread_id: str) -> dict[str, Any]:
    return {"threadId": thread_id, "runId": f"run-{thread_id}", "messages": []}


@pytest.fixture(params=["no store", "memory", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[Optional[RunStore]]:
    if request.param == "no store":
        yield None
    elif request.param == "memory":
        yield InMemoryRunStore()
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        yield RedisRunStore(server.url, prefix=f"cancelled{free_port()}:", block_seconds=0.2)


async def test_a_cancelled_error_from_agent_code_fails_only_that_run(
    store: Optional[RunStore], caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = AgentEndpoint(agent, store=store, keepalive=None)

    @asynccontextmanager
    async def lifespan(app: object) -> AsyncIterator[None]:
        async with endpoint.lifespan(app):
            yield
        if store is not None:
            await store.aclose()  # in the server's event loop, where its connections live

    app = Starlette(routes=endpoint.routes("/agent"), lifespan=lifespan)
    with caplog.at_level(logging.ERROR, logger="ag_ui.server"), serve(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=20) as http:
            steady: list[dict[str, Any]] = []

            async def run_steady(started: anyio.Event) -> None:
                async with http.stream("POST", "/agent", json=body("steady")) as response:
                    frames = ""
                    async for text in response.aiter_text():
                        frames += text
                        if "TEXT_MESSAGE_CONTENT" in frames:
                            started.set()
                steady.extend(sse_events(frames))

            with anyio.fail_after(30):
                async with anyio.create_task_group() as group:
                    started = anyio.Event()
                    group.start_soon(run_steady, started)
                    await started.wait()  # the other run is under way on this worker
                    culprit = await http.post("/agent", json=body("culprit"))
                later = await http.post("/agent", json=body("later"))

    assert culprit.status_code == 200
    culprit_events = sse_events(culprit.text)
    assert [e["type"] for e in culprit_events] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_ERROR",
    ]
    assert culprit_events[-1] == {
        "type": "RUN_ERROR",
        "message": "The agent failed while handling this run; see the server log for details.",
        "code": "agent_error",
    }
    # The other run was not touched: every piece, then its RUN_FINISHED.
    contents = [e["delta"] for e in steady if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert contents == [f"{n} " for n in range(PIECES)]
    assert steady[-1]["type"] == "RUN_FINISHED"
    # The worker keeps serving.
    assert later.status_code == 200
    assert sse_events(later.text)[-1]["type"] == "RUN_FINISHED"
    # Logged server-side, as an agent failure with its traceback.
    failures = [r for r in caplog.records if r.getMessage() == "run run-culprit: agent failed"]
    assert len(failures) == 1
    assert failures[0].exc_info is not None
    assert "server is shutting down" not in caplog.text
