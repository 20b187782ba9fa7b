"""Live conversations: the inspector is the client (HttpAgent) of a real agent on uvicorn."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from ag_ui.core import RunAgentInput, ToolMessage
from ag_ui.demo import create_demo_app
from ag_ui.inspect import Inspector, InspectorError, Session, TurnOptions
from ag_ui.server import RunContext, create_app
from tests.inspect.conftest import serve

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with serve(create_demo_app(), lifespan="off") as base:
        yield base + "/agent"


async def color_agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    """Calls the frontend tool ``pick_color`` when offered, then says what came back."""
    results = [m for m in run_input.messages if isinstance(m, ToolMessage)]
    if results:
        await ctx.say(f"You picked {results[-1].content}.")
    elif any(tool.name == "pick_color" for tool in run_input.tools):
        await ctx.call_tool("pick_color", {"choices": ["red", "blue"]})
    else:
        await ctx.say("No tool offered.")


@pytest.fixture(scope="module")
def color_url() -> Iterator[str]:
    with serve(create_app(color_agent), lifespan="off") as base:
        yield base + "/agent"


@asynccontextmanager
async def running(inspector: Inspector) -> AsyncIterator[Inspector]:
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(inspector.run)
        await anyio.sleep(0)
        try:
            yield inspector
        finally:
            tasks.cancel_scope.cancel()


async def settled(session: Session, *states: str) -> dict[str, Any]:
    """Wait (at most 10 s) until the thread's state is one of ``states``."""
    with anyio.fail_after(10):
        await anyio.sleep(0.01)
        while session.status.get("state") not in states:
            await anyio.sleep(0.01)
    return session.status


async def test_weather_over_sse_shows_every_event_as_received(demo_url: str) -> None:
    async with running(Inspector(url=demo_url)) as inspector:
        session = inspector.new_thread()
        inspector.turn(session.id, TurnOptions(message="weather in Paris", state={"unit": "C"}))
        status = await settled(session, "idle", "failed")
    assert status["error"] is None
    types = [row.type for row in session.rows]
    assert types[0] == "RUN_STARTED"
    assert types[-1] == "RUN_FINISHED"
    assert {"TOOL_CALL_START", "TOOL_CALL_RESULT", "ACTIVITY_SNAPSHOT", "STEP_STARTED"} <= set(
        types
    )
    assert session.findings() == []
    # As received: the SSE data text, byte for byte what the server sent.
    assert all(row.raw is not None and row.raw.startswith('{"type":') for row in session.rows)
    [run] = session.runs
    assert run.input is not None
    assert run.input["messages"][0]["content"] == "weather in Paris"
    assert run.input["state"] == {"unit": "C"}
    final = session.state_at(len(session.rows) - 1)
    assert final["last_city"] == "Paris"
    assert final["unit"] == "C"
    assert session.conversation()["messages"][-1]["content"].startswith("It is ")
    assert all(row.at is not None and row.at >= 0 for row in session.rows)


async def test_protobuf_frames_are_decoded_and_shown_as_hex(demo_url: str) -> None:
    async with running(Inspector(url=demo_url)) as inspector:
        sse, proto = inspector.new_thread(), inspector.new_thread()
        inspector.turn(sse.id, TurnOptions(message="research tides"))
        inspector.turn(proto.id, TurnOptions(message="research tides", proto=True))
        await settled(sse, "idle", "failed")
        await settled(proto, "idle", "failed")
    assert proto.transport == "proto"
    assert [r.type for r in proto.rows] == [r.type for r in sse.rows]
    assert "SUBAGENT_STARTED" in {r.type for r in proto.rows}
    first = proto.rows[0].raw
    assert first is not None
    assert all(len(group) == 8 for group in first.split(" ")[:-1])  # hex, 4 bytes a group
    assert bytes.fromhex(first.replace(" ", ""))[:4] == (
        len(bytes.fromhex(first.replace(" ", ""))) - 4
    ).to_bytes(4, "big")
    lanes = {r.lane for r in proto.rows if r.lane}
    assert len(lanes) == 1  # the researcher's events carry its subagentRunId


async def test_an_interrupt_is_answered_and_the_thread_resumes(demo_url: str) -> None:
    async with running(Inspector(url=demo_url)) as inspector:
        session = inspector.new_thread()
        thread = inspector.thread(session.id)
        inspector.turn(session.id, TurnOptions(message="book a table for two"))
        status = await settled(session, "waiting", "failed")
        [interrupt] = status["interrupts"]
        assert interrupt["reason"] == "tool_call"
        assert interrupt["responseSchema"]["required"] == ["approved"]
        inspector.start(
            lambda: thread.resume(
                {interrupt["id"]: {"status": "resolved", "payload": {"approved": True}}}
            )
        )
        status = await settled(session, "idle", "failed")
    assert status["error"] is None
    assert len(session.runs) == 2
    assert session.runs[1].input is not None
    assert session.runs[1].input["resume"][0]["interruptId"] == interrupt["id"]
    assert session.state_at(len(session.rows) - 1)["booking"] == {"status": "confirmed"}
    assert session.conversation()["messages"][-1]["content"] == "Done: your booking is confirmed."


async def test_an_agent_failure_is_shown_not_raised(demo_url: str) -> None:
    async with running(Inspector(url=demo_url)) as inspector:
        session = inspector.new_thread()
        inspector.turn(session.id, TurnOptions(message="crash"))
        status = await settled(session, "idle", "failed")
    assert status["state"] == "failed"
    assert status["error"].startswith("RunError: ")
    assert session.rows[-1].type == "RUN_ERROR"
    assert session.findings() == []  # a RUN_ERROR is a legal end


async def test_frontend_tools_are_answered_automatically_or_by_the_person(color_url: str) -> None:
    tool = {"name": "pick_color", "description": "Ask", "parameters": {"type": "object"}}
    async with running(Inspector(url=color_url)) as inspector:
        auto = inspector.new_thread()
        options = TurnOptions(message="choose", tools=[{**tool, "auto": "blue"}])
        inspector.turn(auto.id, options)
        await settled(auto, "idle", "failed")
        manual = inspector.new_thread()
        inspector.turn(manual.id, TurnOptions(message="choose", tools=[tool]))
        status = await settled(manual, "waiting", "failed")
        [pending] = status["pendingTools"]
        assert pending["name"] == "pick_color"
        assert pending["arguments"] == '{"choices":["red","blue"]}'
        thread = inspector.thread(manual.id)
        with pytest.raises(ValueError, match="no pending tool call with id nope"):
            await thread.answer_tools({"nope": "x"})
        inspector.start(lambda: thread.answer_tools({pending["id"]: "red"}))
        await settled(manual, "idle", "failed")
    assert len(auto.runs) == 2
    assert auto.conversation()["messages"][-1]["content"] == "You picked blue."
    assert manual.conversation()["messages"][-1]["content"] == "You picked red."


async def test_an_unreachable_agent_is_one_line_in_the_status() -> None:
    async with running(Inspector(url="http://127.0.0.1:9/agent")) as inspector:
        session = inspector.new_thread()
        inspector.turn(session.id, TurnOptions(message="hi"))
        status = await settled(session, "failed")
    assert "\n" not in status["error"]
    assert status["error"].startswith("TransportError")


async def test_stop_aborts_the_run_in_progress() -> None:
    with serve(create_demo_app(delay=0.05), lifespan="off") as base:
        async with running(Inspector(url=base + "/agent")) as inspector:
            session = inspector.new_thread()
            inspector.turn(session.id, TurnOptions(message="weather in Lisbon"))
            with anyio.fail_after(10):
                while not session.rows:
                    await anyio.sleep(0.01)
            with pytest.raises(InspectorError, match="in progress"):
                inspector.turn(session.id, TurnOptions(message="again"))
            inspector.thread(session.id).abort()
            status = await settled(session, "stopped", "idle", "failed")
    assert status["state"] == "stopped"
    assert session.rows[-1].type != "RUN_FINISHED"
