"""Connections cut at random points, 50 runs in-process and 50 over a real uvicorn: the client
reconnects and its subscriber sees exactly the events of an uninterrupted run, once each, and
ends with the same messages and state."""

from __future__ import annotations

import random
from typing import Any, Optional

import anyio
import httpx
import pytest

from ag_ui.client import HttpAgent
from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore, RedisRunStore
from tests.redis_helpers import RedisServer, free_port
from tests.support.servers import serve

from .resume_helpers import (
    FAST,
    CuttingTransport,
    in_process_agent,
    lifespan,
    make_story_agent,
    story_agent,
    wire,
)

pytestmark = pytest.mark.anyio

RUNS = 50


class Outcome:
    def __init__(self, agent: HttpAgent) -> None:
        self.agent = agent
        self.events: list[Any] = []
        agent.subscribe(on_event=lambda params: self.events.append(wire([params.event])[0]))

    async def run(self) -> Outcome:
        with anyio.fail_after(20):
            self.result = await self.agent.run_agent(run_id="r1")
        return self

    def summary(self) -> tuple[Any, Any, Any]:
        return self.events, wire(self.agent.messages), self.agent.state


def random_cuts(rng: random.Random, length: int) -> list[Optional[int]]:
    """1 to 3 cuts; the first inside the first response, the others anywhere."""
    return [rng.randrange(1, length)] + [rng.randrange(1, length) for _ in range(rng.randrange(3))]


async def test_fifty_runs_cut_in_process_see_every_event_once() -> None:
    app = create_app(story_agent, store=InMemoryRunStore())
    async with lifespan(app):
        reference = await Outcome(in_process_agent(app, [])[0]).run()
        assert reference.result.reconnects == 0
        assert len(reference.events) == 38
        length = len((await _post(app)).content)
        rng = random.Random(7)
        total_reconnects = 0
        for index in range(RUNS):
            proto = index % 5 == 4
            agent, transport = in_process_agent(app, random_cuts(rng, length), proto=proto)
            outcome = await Outcome(agent).run()
            assert outcome.summary() == reference.summary(), f"run {index}"
            assert outcome.result.reconnects == len(transport.requests) - 1
            total_reconnects += outcome.result.reconnects
        assert total_reconnects >= RUNS  # every run was cut at least once


async def _post(app: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        body = {"threadId": "t1", "runId": "r1", "messages": []}
        return await client.post("/agent", json=body)


def test_fifty_runs_cut_over_uvicorn_see_every_event_once() -> None:
    app = create_app(make_story_agent(delay=0.001), store=InMemoryRunStore(), keepalive=None)
    with serve(app) as url:
        anyio.run(_cut_runs_over_http, url)


async def _cut_runs_over_http(url: str) -> None:
    reference = await Outcome(HttpAgent(f"{url}/agent", thread_id="t1")).run()
    rng = random.Random(11)
    total_reconnects = 0
    for index in range(RUNS):
        proto = index % 5 == 4
        transport = CuttingTransport(httpx.AsyncHTTPTransport(), random_cuts(rng, 3000))
        async with httpx.AsyncClient(transport=transport, timeout=10) as client:
            agent = HttpAgent(
                f"{url}/agent", http_client=client, thread_id="t1", proto=proto, reconnect=FAST
            )
            outcome = await Outcome(agent).run()
        assert outcome.summary() == reference.summary(), f"run {index}"
        assert outcome.result.reconnects == len(transport.requests) - 1
        total_reconnects += outcome.result.reconnects
    assert total_reconnects >= RUNS * 3 // 4


async def test_twenty_runs_cut_in_process_on_redis_see_every_event_once(
    redis_server: RedisServer,
) -> None:
    store = RedisRunStore(redis_server.url, prefix=f"cuts{free_port()}:", block_seconds=0.2)
    app = create_app(story_agent, store=store)
    try:
        async with lifespan(app):
            reference = await Outcome(in_process_agent(app, [])[0]).run()
            rng = random.Random(3)
            for index in range(20):
                agent, transport = in_process_agent(
                    app, random_cuts(rng, 4000), proto=bool(index % 2)
                )
                outcome = await Outcome(agent).run()
                assert outcome.summary() == reference.summary(), f"run {index}"
                assert outcome.result.reconnects == len(transport.requests) - 1
    finally:
        await store.aclose()
