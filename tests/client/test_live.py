"""Timing and connection behaviour against a real uvicorn on 127.0.0.1: idle timeout,
keepalive comments, cancellation and abort close the connection."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import pytest
from starlette.requests import Request

from ag_ui.client import HttpAgent
from ag_ui.core import IdleTimeoutError, IncompleteStreamError
from tests.client.client_helpers import LiveServer, frames

pytestmark = pytest.mark.anyio

STARTED = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}


async def _wait_closed(server: LiveServer, name: str) -> None:
    assert await anyio.to_thread.run_sync(server.closed[name].wait, 10)


IDLE_TIMEOUT = 1.5
"""Long enough that a loaded 2-core machine always delivers the response headers and the first
event within it (so the timeout below fires between events, as the tests claim), short enough
to keep the tests quick."""


async def test_idle_timeout_between_events(live_server: LiveServer) -> None:
    release = anyio.Event()  # never set: the server stalls after RUN_STARTED
    started = anyio.Event()

    async def stalls(request: Request) -> AsyncIterator[bytes]:
        yield frames(STARTED)
        await release.wait()

    url = live_server.add("stalls", stalls)
    agent = HttpAgent(url, idle_timeout=IDLE_TIMEOUT)
    agent.subscribe(on_run_started_event=lambda params: started.set())
    with pytest.raises(IdleTimeoutError) as info:
        await agent.run_agent()
    assert started.is_set()  # the stall came after an event, not before the first one
    assert info.value.seconds == IDLE_TIMEOUT
    await _wait_closed(live_server, "stalls")
    assert "stalls" in live_server.disconnects


async def test_keepalive_comments_reset_the_idle_timeout(live_server: LiveServer) -> None:
    # Keepalives 0.1 s apart for 2 s: no event for longer than the idle timeout, so the run
    # only succeeds because each comment resets it; every gap is 15x shorter than the timeout,
    # which a busy machine does not stretch. (A stall longer than the timeout is the test above.)
    async def keepalives(request: Request) -> AsyncIterator[bytes]:
        yield frames(STARTED)
        for _ in range(20):
            await anyio.sleep(0.1)
            yield b": keepalive\n\n"
        yield frames(FINISHED)

    url = live_server.add("keepalives", keepalives)
    result = await HttpAgent(url, idle_timeout=IDLE_TIMEOUT).run_agent()
    assert result.outcome_type == "success"


async def test_cancelling_the_task_closes_the_connection(live_server: LiveServer) -> None:
    got_first = anyio.Event()

    async def endless(request: Request) -> AsyncIterator[bytes]:
        yield frames(STARTED)
        while True:
            await anyio.sleep(0.05)
            yield b": still here\n\n"

    url = live_server.add("endless", endless)
    agent = HttpAgent(url, idle_timeout=None)
    agent.subscribe(on_run_started_event=lambda params: got_first.set())
    async with anyio.create_task_group() as group:
        group.start_soon(agent.run_agent)
        await got_first.wait()
        group.cancel_scope.cancel()
    await _wait_closed(live_server, "endless")
    assert "endless" in live_server.disconnects
    assert agent.is_running is False


async def test_abort_run_stops_the_run_and_closes_the_connection(live_server: LiveServer) -> None:
    async def endless_text(request: Request) -> AsyncIterator[bytes]:
        body = json.loads(await request.body())
        yield frames(
            {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
            {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        )
        while True:
            await anyio.sleep(0.02)
            yield frames({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "la "})

    url = live_server.add("endless_text", endless_text)
    agent = HttpAgent(url, idle_timeout=5)
    deltas: list[str] = []

    def on_content(params: object) -> None:
        deltas.append(params.event.delta)  # type: ignore[attr-defined]
        if len(deltas) == 3:
            agent.abort_run()

    result = await agent.run_agent(subscriber={"on_text_message_content_event": on_content})
    assert result.aborted is True
    assert result.outcome_type == "aborted"
    assert deltas == ["la ", "la ", "la "]
    await _wait_closed(live_server, "endless_text")
    assert "endless_text" in live_server.disconnects


async def test_a_connection_broken_mid_stream_is_an_incomplete_stream(
    live_server: LiveServer,
) -> None:
    async def dies(request: Request) -> AsyncIterator[bytes]:
        yield frames(STARTED, {"type": "TEXT_MESSAGE_START", "messageId": "m1"})
        raise RuntimeError("agent process crashed")  # uvicorn aborts the chunked body

    url = live_server.add("dies", dies)
    with pytest.raises(IncompleteStreamError) as info:
        await HttpAgent(url).run_agent()
    assert info.value.events_received == 2
    assert "TEXT_MESSAGE_START" in str(info.value)


async def test_a_connection_broken_after_the_terminal_event_loses_nothing(
    live_server: LiveServer,
) -> None:
    async def dies_late(request: Request) -> AsyncIterator[bytes]:
        yield frames(STARTED, FINISHED)
        raise RuntimeError("crashed while cleaning up")

    url = live_server.add("dies_late", dies_late)
    result = await HttpAgent(url).run_agent()
    assert result.outcome_type == "success"


async def test_async_with_keeps_one_client_for_all_runs_and_closes_it(
    live_server: LiveServer,
) -> None:
    async def quick(request: Request) -> AsyncIterator[bytes]:
        body = json.loads(await request.body())
        yield frames(
            {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
            {"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]},
        )

    url = live_server.add("quick", quick)
    async with HttpAgent(url) as agent:
        client = agent.http_client
        assert client is not None
        await agent.run_agent()
        twin = agent.clone()
        await twin.run_agent()
        await twin.aclose()  # the clone shares the client but does not own it
        await agent.run_agent()
        assert agent.http_client is client
        assert not client.is_closed
    assert client.is_closed
    assert agent.http_client is None
