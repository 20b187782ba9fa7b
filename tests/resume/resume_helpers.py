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
from ag_ui.testing.faults import Cut, FaultyTransport

FAST = ReconnectPolicy(max_attempts=5, initial_delay=0.001, max_delay=0.01)


class CuttingTransport(FaultyTransport):
    """The n-th event-stream response breaks after ``cuts[n]`` bytes (``None``: not cut);
    later responses are not cut; ``requests`` records every request (the test kit's fault
    injection, ``ag_ui.testing.faults``)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, cuts: list[Optional[int]]) -> None:
        schedule = [[] if cut is None else [Cut(after_bytes=cut)] for cut in cuts]
        super().__init__(inner, per_response=schedule)


WORKER_BLOCK_SECONDS = 0.2
"""The ``block_seconds`` of the store of tests/resume/worker_app.py."""
WORKER_HEARTBEAT = 0.5
"""The ``heartbeat_interval`` of the store of tests/resume/worker_app.py."""


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
    client = httpx.AsyncClient(transport=transport, base_url="http://localhost")
    options.setdefault("reconnect", FAST)
    agent = HttpAgent("http://localhost/agent", http_client=client, thread_id="t1", **options)
    return agent, transport


@asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """What an ASGI server does at start and stop (httpx's ASGI transport does not)."""
    async with app.state.endpoint.lifespan(app):
        yield


def wire(models: Iterator[Any] | list[Any]) -> list[Any]:
    return [m.model_dump(by_alias=True, mode="json") for m in models]
