"""The client side of resuming: connect_agent, bounded reconnects, on_reconnect, a run that
vanished meanwhile, and plain servers (no resume key) keep the old behaviour."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

from ag_ui.client import HttpAgent, Reconnect, ReconnectPolicy, SyncHttpAgent
from ag_ui.core.errors import HTTPStatusError, IncompleteStreamError
from ag_ui.server import AgentEndpoint, create_app
from ag_ui.store import InMemoryRunStore
from tests.support.servers import serve

from .resume_helpers import (
    in_process_agent,
    lifespan,
    make_story_agent,
    story_agent,
    wire,
)

pytestmark = pytest.mark.anyio


async def reference(app: Any) -> HttpAgent:
    agent = in_process_agent(app, [])[0]
    with anyio.fail_after(10):
        await agent.run_agent(run_id="r1")
    return agent


async def test_connect_agent_attaches_to_a_run_by_key_last_id_or_thread() -> None:
    app = create_app(story_agent, store=InMemoryRunStore(), public_thread_history=True)
    async with lifespan(app):
        ref = await reference(app)
        key = (await _post(app)).headers["ag-ui-resume-key"]

        by_key, _ = in_process_agent(app, [])
        result = await by_key.connect_agent(run_key=key)
        assert result.finished
        assert wire(by_key.messages) == wire(ref.messages)
        assert by_key.state == ref.state

        # Resuming after event 29 (the last state delta) gives exactly what followed it.
        seen: list[str] = []
        partial, _ = in_process_agent(app, [])
        partial.subscribe(on_event=lambda p: seen.append(p.event.type.value))
        assert (await partial.connect_agent(last_event_id=f"{key}:29")).finished
        assert seen == [
            "TOOL_CALL_START",
            *["TOOL_CALL_ARGS"] * 3,
            "TOOL_CALL_END",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED",
        ]

        thread, _ = in_process_agent(app, [])
        history = await thread.connect_agent()  # thread "t1": every stored run, compacted
        assert history.finished
        assert thread.state == ref.state
        assert [m.id for m in thread.messages] == [m.id for m in ref.messages]


async def _post(app: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        return await http.post("/agent", json={"threadId": "t1", "runId": "r1", "messages": []})


async def test_reconnects_are_bounded_and_reported() -> None:
    app = create_app(story_agent, store=InMemoryRunStore())
    reports: list[Reconnect] = []
    async with lifespan(app):
        agent, transport = in_process_agent(
            app,
            [400, 3, 3, 3, 3],  # progress, then three connections that deliver nothing
            reconnect=ReconnectPolicy(max_attempts=3, initial_delay=0.001, max_delay=0.002),
            on_reconnect=reports.append,
        )
        with anyio.fail_after(10), pytest.raises(IncompleteStreamError) as caught:
            await agent.run_agent(run_id="r1")
    assert "gave up after 3 reconnect attempt(s)" in str(caught.value)
    assert [r.attempt for r in reports] == [1, 2, 3]
    assert len({r.last_event_id for r in reports}) == 1  # no progress after the first cut
    assert all(0 <= r.delay <= 0.002 for r in reports)
    assert agent.reconnects == 3
    assert len(transport.requests) == 4


async def test_a_run_that_vanished_meanwhile_is_a_404() -> None:
    now = [0.0]
    store = InMemoryRunStore(finished_ttl=5, clock=lambda: now[0])
    app = create_app(story_agent, store=store)

    def expire(reconnect: Reconnect) -> None:
        now[0] += 10  # the run finished and its history expired before the reconnect

    async with lifespan(app):
        agent, _ = in_process_agent(app, [300], on_reconnect=expire)
        with anyio.fail_after(10), pytest.raises(HTTPStatusError) as caught:
            await agent.run_agent(run_id="r1")
    assert caught.value.status == 404
    assert caught.value.body["error"]["code"] == "run_not_found"


async def test_a_plain_server_gets_no_reconnect() -> None:
    app = create_app(story_agent)  # no store: the run lives and dies with the request
    agent, transport = in_process_agent(app, [300])
    with anyio.fail_after(10), pytest.raises(IncompleteStreamError):
        await agent.run_agent(run_id="r1")
    assert len(transport.requests) == 1
    assert agent.reconnects == 0


async def test_reconnecting_can_be_switched_off() -> None:
    app = create_app(story_agent, store=InMemoryRunStore())
    async with lifespan(app):
        agent, transport = in_process_agent(app, [300], reconnect=ReconnectPolicy(max_attempts=0))
        with anyio.fail_after(10), pytest.raises(IncompleteStreamError):
            await agent.run_agent(run_id="r1")
    assert len(transport.requests) == 1


def test_backoff_grows_and_is_capped() -> None:
    policy = ReconnectPolicy(initial_delay=0.1, max_delay=1.0)
    for attempt, ceiling in [(1, 0.1), (2, 0.2), (3, 0.4), (4, 0.8), (5, 1.0), (9, 1.0)]:
        delays = [policy.delay(attempt) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling / 2  # jitter spreads over the whole range


def test_the_sync_client_reconnects_and_connects() -> None:
    store = InMemoryRunStore()
    app = create_app(make_story_agent(), store=store, keepalive=None, public_thread_history=True)
    with serve(app) as url, SyncHttpAgent(f"{url}/agent", thread_id="t1") as agent:
        result = agent.run_agent(run_id="r1")
        assert result.finished
        with SyncHttpAgent(f"{url}/agent", thread_id="t1") as reader:
            history = reader.connect_agent()
            assert history.finished
            assert reader.state == agent.state
            assert [m.id for m in reader.messages] == [m.id for m in agent.messages]


def test_connect_keeps_the_agent_urls_query_after_the_connect_path() -> None:
    # An agent URL with a query (an API version, a deployment): the connect request goes to
    # <path>/connect?<query>, not to <path>?<query>/connect (which reached the run endpoint).
    store = InMemoryRunStore()
    app = create_app(make_story_agent(), store=store, keepalive=None, public_thread_history=True)
    with serve(app) as url:
        with SyncHttpAgent(f"{url}/agent?v=1", thread_id="t1") as agent:
            assert agent.run_agent(run_id="r1").finished
        with SyncHttpAgent(f"{url}/agent/?v=1", thread_id="t1") as reader:
            assert reader.connect_agent().finished
            assert reader.state == agent.state


def test_a_detached_run_stops_a_little_before_the_store_forgets_it() -> None:
    endpoint = AgentEndpoint(story_agent, store=InMemoryRunStore(run_ttl=100))
    assert endpoint.run_ttl == 90.0
    assert AgentEndpoint(story_agent, store=InMemoryRunStore(), run_ttl=5).run_ttl == 5
