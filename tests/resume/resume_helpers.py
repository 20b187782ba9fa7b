"""Helpers for the resume tests: a transport seam that cuts connections, a deterministic agent
with text, tool calls and state, and an in-process client with the endpoint's lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any, Optional

import anyio
import httpx
from starlette.applications import Starlette

from ag_ui.client import HttpAgent, ReconnectPolicy
from ag_ui.core import RunAgentInput
from ag_ui.server import Agent, RunContext

FAST = ReconnectPolicy(max_attempts=5, initial_delay=0.001, max_delay=0.01)


class _CutStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        sent = 0
        async for chunk in self._inner:
            if sent + len(chunk) >= self._limit:
                if self._limit > sent:
                    yield chunk[: self._limit - sent]
                raise httpx.RemoteProtocolError("peer closed connection (cut by the test)")
            sent += len(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CuttingTransport(httpx.AsyncBaseTransport):
    """Wraps a transport; the n-th event-stream response breaks after ``cuts[n]`` bytes
    (``None``: not cut). Later responses are not cut. Records every request."""

    def __init__(self, inner: httpx.AsyncBaseTransport, cuts: list[Optional[int]]) -> None:
        self._inner = inner
        self._cuts = list(cuts)
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = await self._inner.handle_async_request(request)
        streaming = "event" in response.headers.get("content-type", "")
        limit = self._cuts.pop(0) if streaming and self._cuts else None
        if limit is None:
            return response
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_CutStream(response.stream, limit),
            request=request,
        )


def make_story_agent(delay: float = 0.0) -> Agent:
    """Text in many pieces, a tool call, state snapshot and deltas: a stream worth resuming.
    ``delay`` seconds between pieces keeps the run going while a client reconnects."""

    async def pieces(turn: int) -> AsyncIterator[str]:
        for n in range(6):
            if delay:
                await anyio.sleep(delay)
            yield f"part {turn}.{n} "

    async def story_agent(run_input: RunAgentInput, ctx: RunContext) -> None:
        await ctx.state.snapshot({"count": 0, "log": []})
        for turn in range(3):
            await ctx.say(pieces(turn))
            log = [f"turn {t}" for t in range(turn + 1)]
            await ctx.state.update({"count": turn + 1, "log": log})
        async with ctx.tool_call("search") as call:
            await call.send_all(['{"q":', ' "resume', ' me"}'])
        await ctx.say("done")

    return story_agent


story_agent = make_story_agent()


def in_process_agent(
    app: Starlette, cuts: list[Optional[int]], **options: Any
) -> tuple[HttpAgent, CuttingTransport]:
    transport = CuttingTransport(httpx.ASGITransport(app=app), cuts)
    client = httpx.AsyncClient(transport=transport, base_url="http://agent")
    options.setdefault("reconnect", FAST)
    agent = HttpAgent("http://agent/agent", http_client=client, thread_id="t1", **options)
    return agent, transport


@asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """What an ASGI server does at start and stop (httpx's ASGI transport does not)."""
    async with app.state.endpoint.lifespan(app):
        yield


def wire(models: Iterator[Any] | list[Any]) -> list[Any]:
    return [m.model_dump(by_alias=True, mode="json") for m in models]
