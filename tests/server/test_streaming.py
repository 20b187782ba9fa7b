"""Streaming behaviour, driving the ASGI endpoint directly (the transport seam): each event
flushed as it is sent, keepalive comments on silence, client disconnect cancels the agent."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any, Optional

import anyio
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream

from ag_ui.core import BaseEvent, CustomEvent
from ag_ui.server import DEFAULT_KEEPALIVE, AgentEndpoint, RunContext
from tests.support.clock import run_on_virtual_clock

from .conftest import run_body

pytestmark = pytest.mark.anyio

SCOPE = {
    "type": "http",
    "method": "POST",
    "path": "/agent",
    "headers": [(b"content-type", b"application/json"), (b"accept", b"text/event-stream")],
    "query_string": b"",
}


class Harness:
    """An ASGI server stand-in: one request body, then waits; ``leave()`` disconnects."""

    def __init__(self) -> None:
        self._body_sent = False
        self._left = anyio.Event()
        self._out_send, self.sent = anyio.create_memory_object_stream[dict[str, Any]](1000)
        self.body = b""

    async def receive(self) -> dict[str, Any]:
        if not self._body_sent:
            self._body_sent = True
            return {"type": "http.request", "body": json.dumps(run_body()).encode()}
        await self._left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.body += message.get("body", b"")
        await self._out_send.send(message)

    def leave(self) -> None:
        self._left.set()

    async def wait_for(self, needle: bytes) -> None:
        """Wait until the response body contains ``needle`` (5 s at most)."""
        receive: MemoryObjectReceiveStream[dict[str, Any]] = self.sent
        with anyio.fail_after(5):
            while needle not in self.body:
                await receive.receive()


def custom(name: str) -> CustomEvent:
    return CustomEvent(name=name, value=None)


async def test_each_event_is_flushed_before_the_agent_continues() -> None:
    harness = Harness()
    saw_first = anyio.Event()

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield custom("first")
        # Only reachable if "first" reached the client while this run is still going.
        await saw_first.wait()
        yield custom("second")

    endpoint = AgentEndpoint(agent, keepalive=None)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(endpoint, SCOPE, harness.receive, harness.send)
        await harness.wait_for(b'"name":"first"')
        assert b"second" not in harness.body
        saw_first.set()
        await harness.wait_for(b"RUN_FINISHED")


async def test_keepalive_comment_on_silence() -> None:
    harness = Harness()
    release = anyio.Event()

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield custom("a")
        await release.wait()
        yield custom("b")

    endpoint = AgentEndpoint(agent, keepalive=0.05)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(endpoint, SCOPE, harness.receive, harness.send)
        await harness.wait_for(b": keepalive\n\n")
        release.set()
        await harness.wait_for(b"RUN_FINISHED")
    # However many comments fit in the pause, they sit between the two events only.
    body = re.sub(rb"(: keepalive\n\n)+", b": keepalive\n\n", harness.body)
    assert body == (
        b'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1","protocolVersion":"1.0"}\n\n'
        b'data: {"type":"CUSTOM","name":"a","value":null}\n\n'
        b": keepalive\n\n"
        b'data: {"type":"CUSTOM","name":"b","value":null}\n\n'
        b'data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}\n\n'
    )


SILENCE = 4 * DEFAULT_KEEPALIVE + 1
"""A pause of the agent long enough for four keepalives at the default interval."""


async def _pausing_agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
    yield custom("a")
    await anyio.sleep(SILENCE)
    yield custom("b")


def _body_on_virtual_clock(endpoint: AgentEndpoint) -> bytes:
    """The whole response, served on a virtual clock: the minute of silence takes no time."""

    async def main() -> bytes:
        harness = Harness()
        with anyio.fail_after(2 * SILENCE):
            await endpoint(SCOPE, harness.receive, harness.send)
        return harness.body

    return run_on_virtual_clock(main)


def test_keepalive_comments_fill_a_silence_at_the_default_interval() -> None:
    # The control for the test below: the same pause does carry keepalives when they are on.
    body = _body_on_virtual_clock(AgentEndpoint(_pausing_agent))
    assert body.count(b": keepalive\n\n") == 4
    assert body.endswith(b'"runId":"r1"}\n\n')


@pytest.mark.parametrize("keepalive", [None, 0])
def test_keepalive_can_be_turned_off(keepalive: Optional[float]) -> None:
    body = _body_on_virtual_clock(AgentEndpoint(_pausing_agent, keepalive=keepalive))
    assert b"keepalive" not in body
    assert body.count(b"data: ") == 4  # RUN_STARTED, a, b, RUN_FINISHED
    assert body.endswith(b'"runId":"r1"}\n\n')


def _tasks() -> set[Any]:
    import asyncio

    return set(asyncio.all_tasks())


@pytest.mark.parametrize("style", ["generator", "coroutine"])
async def test_disconnect_cancels_the_agent_within_a_second(style: str) -> None:
    harness = Harness()
    cleaned_up = anyio.Event()
    cancelled: list[bool] = []
    before = _tasks()

    async def wait_forever() -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append(True)
            raise
        finally:
            cleaned_up.set()

    async def generator_agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield custom("started")
        await wait_forever()

    async def coroutine_agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.custom("started", None)
        await wait_forever()

    agent: Any = generator_agent if style == "generator" else coroutine_agent
    endpoint = AgentEndpoint(agent, keepalive=0.05)
    finished: Optional[float] = None
    async with anyio.create_task_group() as tasks:

        async def serve() -> None:
            nonlocal finished
            await endpoint(SCOPE, harness.receive, harness.send)
            finished = anyio.current_time()

        tasks.start_soon(serve)
        await harness.wait_for(b'"name":"started"')
        left_at = anyio.current_time()
        harness.leave()
        with anyio.fail_after(1):
            await cleaned_up.wait()
    assert cancelled == [True]
    assert finished is not None
    assert finished - left_at < 1.0
    assert b"RUN_FINISHED" not in harness.body
    assert b"RUN_ERROR" not in harness.body
    assert _tasks() == before  # nothing the endpoint started outlives it


async def _serve_to_end(agent: Any, send: Any, *, keepalive: Optional[float] = None) -> None:
    body = json.dumps(run_body()).encode()
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body}
        await anyio.sleep_forever()
        raise AssertionError

    await AgentEndpoint(agent, keepalive=keepalive)(SCOPE, receive, send)


def _names(body: bytes) -> list[str]:
    return [name.decode() for name in re.findall(rb'"name":"([^"]+)"', body)]


async def test_events_keep_their_order_when_bursts_and_paced_events_mix() -> None:
    """An agent that yields some events without awaiting (queued, sent together) and others
    after an await (sent straight away): the client gets them all, in the agent's order."""
    chunks: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        chunks.append(message.get("body", b""))

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        number = 0
        for burst in (1, 3, 1, 1, 5, 2, 1):
            for _ in range(burst):
                yield custom(f"e{number}")
                number += 1
            await anyio.sleep(0)

    await _serve_to_end(agent, send)
    assert _names(b"".join(chunks)) == [f"e{number}" for number in range(14)]


async def test_a_burst_leaves_in_few_sends_and_a_paced_event_in_its_own() -> None:
    """The first event of a turn of the loop goes out alone (no wait for company); what the
    agent yields after it without awaiting leaves together once the loop turns."""
    sends: list[list[str]] = []

    async def send(message: dict[str, Any]) -> None:
        names = _names(message.get("body", b""))
        if names:
            sends.append(names)

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield custom("alone")
        await anyio.sleep(0)
        for number in range(100):
            yield custom(f"b{number}")
        await anyio.sleep(0.01)  # a model thinking: the burst's tail must not wait for it
        yield custom("last")

    await _serve_to_end(agent, send)
    # "alone" shares RUN_STARTED's turn: it leaves with the next turn's first event ("b0").
    assert sends == [
        ["alone", "b0"],
        [f"b{number}" for number in range(1, 100)],
        ["last"],
    ]


async def test_a_slow_socket_holds_the_agent_back() -> None:
    """While a send waits for the socket, the agent waits too (backpressure): it does not run
    ahead and pile events up in memory."""
    release = anyio.Event()
    sent = 0
    produced = 0

    async def send(message: dict[str, Any]) -> None:
        nonlocal sent
        body = message.get("body", b"")
        if b'"name":"first"' in body:
            await release.wait()  # the client reads nothing for a while
        sent += body.count(b'"name":"x"')

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        nonlocal produced
        yield custom("first")
        for _ in range(300):
            await anyio.sleep(0)
            produced += 1
            yield custom("x")

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_serve_to_end, agent, send)
        for _ in range(200):
            await anyio.sleep(0)
        # "first" shares RUN_STARTED's turn, so it leaves with the next event: that send is
        # stuck, and the agent with it.
        assert produced == 1
        release.set()
    assert sent == 300


async def test_a_failing_send_cancels_the_agent() -> None:
    """The server reports the client gone by raising from ``send`` (``OSError``): the agent is
    cancelled, its cleanup runs, nothing more is sent."""
    cleaned_up: list[bool] = []
    sent_after = 0

    async def send(message: dict[str, Any]) -> None:
        nonlocal sent_after
        if b'"name":"gone"' in message.get("body", b""):
            raise OSError("connection reset")
        if cleaned_up:
            sent_after += 1

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        try:
            yield custom("gone")
            while True:
                yield custom("more")  # never awaits: the cancellation arrives in put
        finally:
            cleaned_up.append(True)

    with anyio.fail_after(5):
        await _serve_to_end(agent, send)
    assert cleaned_up == [True]
    assert sent_after == 0
