"""``ASGIStreamTransport``: an ASGI app in process, its response streamed as the app sends it."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import httpx
import pytest

from ag_ui.server import RunContext, create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.testing import ASGIStreamTransport

from .kit_helpers import run_body

pytestmark = pytest.mark.anyio


async def test_each_chunk_arrives_while_the_app_is_still_running() -> None:
    # The agent waits for the test to have read its first event: with a buffering transport
    # (httpx's own) this deadlocks and fails after 5 s.
    first_read = anyio.Event()

    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.say("first")
        await first_read.wait()
        await ctx.say("second")

    transport = ASGIStreamTransport(create_app(agent))
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://agent") as http,
        http.stream("POST", "/agent", json=run_body()) as response,
    ):
        assert response.status_code == 200
        seen = b""
        with anyio.fail_after(5):
            async for chunk in response.aiter_raw():
                seen += chunk
                if b'"first"' in seen:
                    first_read.set()
        assert b'"second"' in seen
        assert seen.endswith(b'"RUN_FINISHED","threadId":"t1","runId":"r1"}\n\n')


async def test_closing_the_response_disconnects_and_cancels_the_agent() -> None:
    cancelled = anyio.Event()

    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.say("working")
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()

    transport = ASGIStreamTransport(create_app(agent))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent") as http:
        async with http.stream("POST", "/agent", json=run_body()) as response:
            async for chunk in response.aiter_raw():
                if b"working" in chunk:
                    break
        with anyio.fail_after(5):
            await cancelled.wait()


async def test_the_lifespan_runs_so_detached_runs_work() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.say("stored")

    transport = ASGIStreamTransport(create_app(agent, store=InMemoryRunStore()))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent") as http:
        response = await http.post("/agent", json=run_body())
    assert response.status_code == 200
    assert response.text.startswith("id: ")  # resumable frames: the store is being served


async def test_an_app_that_stops_mid_body_looks_like_a_cut_connection() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"partial", "more_body": True})

    async with (
        httpx.AsyncClient(transport=ASGIStreamTransport(app), base_url="http://agent") as http,
        http.stream("GET", "/") as response,
    ):
        with pytest.raises(httpx.RemoteProtocolError, match="without sending complete"):
            await response.aread()


async def test_an_exception_before_the_response_is_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            raise ValueError("the app is broken")

    async with httpx.AsyncClient(
        transport=ASGIStreamTransport(app, lifespan=False), base_url="http://agent"
    ) as http:
        with (
            caplog.at_level(logging.ERROR, "ag_ui.testing"),
            pytest.raises(ValueError, match="the app is broken"),
        ):
            await http.get("/")
    assert "exception in ASGI application" in caplog.text


async def test_requests_need_the_transport_opened() -> None:
    client = httpx.AsyncClient(transport=ASGIStreamTransport(create_app(_noop)))
    with pytest.raises(RuntimeError, match="async with"):
        await client.get("http://agent/agent")


async def test_a_required_lifespan_that_the_app_lacks_is_an_error() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            raise RuntimeError("no lifespan here")

    with pytest.raises(RuntimeError, match="does not support the ASGI lifespan"):
        async with ASGIStreamTransport(app, lifespan=True):
            pass


async def _noop(run_input: Any, ctx: RunContext) -> None:
    return None
