"""Fault injection on both sides of the wire, over SSE and protobuf: what each fault does to the
stream, what the grader and this SDK's own ``HttpAgent`` make of it, and on a real socket."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

from ag_ui.client import HttpAgent
from ag_ui.core import IncompleteStreamError, ProtocolError
from ag_ui.core.errors import DecodeError
from ag_ui.server import RunContext, create_app
from ag_ui.testing import AgentClient, ASGIStreamTransport, ScriptedAgent, serve
from ag_ui.testing.faults import (
    Cut,
    Drop,
    DropTerminal,
    Duplicate,
    FaultPlan,
    FaultyApp,
    FaultyTransport,
    Malformed,
    Reorder,
    Stall,
    Throttle,
)

from .kit_helpers import run, text

pytestmark = pytest.mark.anyio

# RUN_STARTED, TEXT_MESSAGE_START, CONTENT x3, END, RUN_FINISHED (7 events)
SCRIPT = run(*text("m", "one ", "two ", "three"))


def script_app() -> Any:
    return ScriptedAgent(SCRIPT).app()


def both_sides(fault: Any) -> list[AgentClient]:
    """A client damaged on the way in, and a server damaged on the way out."""
    return [
        AgentClient(script_app(), faults=[fault]),
        AgentClient(FaultyApp(script_app(), fault)),
    ]


CASES = [
    (Cut(after_events=3), 3, "wire.cut"),
    (Cut(after_bytes=120), None, "wire.cut"),
    (Drop(event=1), 6, "T2"),
    (Duplicate(event=1), 8, "T1"),
    (Reorder(event=1), 7, "T2"),
    (DropTerminal(), 6, "END"),
    (Malformed(before_event=2), 2, "wire.frame"),
]


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "protobuf"])
@pytest.mark.parametrize(
    ("fault", "events", "rule"), CASES, ids=[type(c[0]).__name__ for c in CASES]
)
async def test_each_fault_on_either_side(fault: Any, events: Any, rule: str, proto: bool) -> None:
    for client in both_sides(fault):
        result = await client.run("go", proto=proto)
        assert result.verification.error is not None
        assert result.verification.error.rule == rule, result.verification
        if events is not None:
            assert len(result.events) == events


async def test_reorder_swaps_two_events() -> None:
    result = await AgentClient(script_app(), faults=[Reorder(event=3)]).run("go")
    deltas = [getattr(e, "delta", None) for e in result.events if getattr(e, "delta", None)]
    assert deltas == ["one ", "three", "two "]
    assert result.verification.ok


async def test_a_stall_delays_and_a_keepalive_does_not_count_as_an_event() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.say("a")
        await anyio.sleep(0.3)  # the endpoint sends a keepalive comment meanwhile
        await ctx.say("b")

    app = FaultyApp(create_app(agent, keepalive=0.1), Stall(0.2, before_event=1))
    result = await AgentClient(app).run("go")
    assert result.ok
    assert b": " in result.body
    assert result.times[1] - result.times[0] >= 0.19


async def test_throttle_slows_the_body() -> None:
    result = await AgentClient(FaultyApp(script_app(), Throttle(4000))).run("go")
    assert result.ok
    assert result.times[-1] >= len(result.body) / 4000 * 0.9


async def test_responses_limits_the_faults_to_the_first_ones() -> None:
    app = FaultyApp(script_app(), Cut(after_events=1), responses=1)
    client = AgentClient(app)
    assert not (await client.run("go")).ok
    assert (await client.run("go")).ok
    assert app.faulted == 1


async def test_json_error_answers_are_left_alone() -> None:
    app = FaultyApp(script_app(), Cut(after_bytes=0))
    bad = await AgentClient(app).post(b"{")
    assert bad.status == 400
    assert bad.json() is not None
    assert app.faulted == 0


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "protobuf"])
async def test_httpagent_reports_each_fault(proto: bool) -> None:
    expected = {
        Cut(after_events=3): IncompleteStreamError,
        DropTerminal(): IncompleteStreamError,
        Drop(event=1): ProtocolError,
        Malformed(before_event=2): DecodeError,
    }
    for fault, error in expected.items():
        transport = FaultyTransport(ASGIStreamTransport(script_app()), fault)
        async with httpx.AsyncClient(transport=transport) as http:
            agent = HttpAgent("http://testserver/agent", http_client=http, proto=proto)
            agent.add_message({"id": "u", "role": "user", "content": "go"})
            with pytest.raises(error):
                await agent.run_agent()
        assert transport.faulted == 1
        assert len(transport.requests) == 1


async def test_a_cut_on_a_real_socket_reaches_the_client_as_a_broken_connection() -> None:
    cancelled = anyio.Event()

    async def agent(run_input: Any, ctx: RunContext) -> None:
        try:
            for n in range(50):
                await ctx.say(f"part {n}")
                await anyio.sleep(0.01)
        finally:
            cancelled.set()

    with serve(FaultyApp(create_app(agent), Cut(after_events=4))) as server:
        agent_client = HttpAgent(server.agent_url())
        agent_client.add_message({"id": "u", "role": "user", "content": "go"})
        with pytest.raises(IncompleteStreamError, match=r"events|connection"):
            await agent_client.run_agent()
        result = await AgentClient(url=server.agent_url()).run("go")
        assert result.verification.error is not None
        assert result.verification.error.rule == "wire.cut"
        assert len(result.events) == 4
        with anyio.fail_after(5):
            await cancelled.wait()  # the app was told the client left


def test_fault_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Cut()
    with pytest.raises(ValueError, match="exactly one"):
        Cut(after_events=1, after_bytes=1)
    with pytest.raises(ValueError, match="> 0"):
        Throttle(0)
    with pytest.raises(TypeError, match="not a fault"):
        FaultyApp(script_app(), "cut")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="responses"):
        FaultyTransport(httpx.AsyncHTTPTransport(), Cut(after_events=1), responses=-1)


def test_the_plan_splits_frames_across_chunks() -> None:
    plan = FaultPlan([Drop(event=0)], "text/event-stream")
    frames = b'data: {"type":"A"}\n\n: keepalive\n\ndata: {"type":"B"}\n\n'
    actions = [a for i in range(len(frames)) for a in plan.feed(frames[i : i + 1])]
    actions += plan.close()
    written = b"".join(getattr(a, "data", b"") for a in actions)
    assert written == b': keepalive\n\ndata: {"type":"B"}\n\n'


async def test_per_response_schedules() -> None:
    app = FaultyApp(script_app(), per_response=[[Cut(after_events=1)], [], [Drop(event=1)]])
    client = AgentClient(app)
    rules = []
    for _ in range(4):
        result = await client.run("go")
        rules.append(result.verification.error.rule if result.verification.error else None)
    assert rules == ["wire.cut", None, "T2", None]
    assert app.faulted == 2
    transport = FaultyTransport(
        ASGIStreamTransport(script_app()), per_response=[[], [Cut(after_bytes=10)]]
    )
    client = AgentClient(script_app(), transport=transport)
    assert (await client.run("go")).ok
    assert not (await client.run("go")).ok
    assert (await client.run("go")).ok
    assert transport.faulted == 1
    assert len(transport.requests) == 3
