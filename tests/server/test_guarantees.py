"""The run guarantees: RUN_STARTED first, exactly one terminal event, safe RUN_ERROR after
closing what was open, whatever the agent does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunError,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)
from ag_ui.core.types import RunAgentInput
from ag_ui.server import RunContext, create_app, run_agent
from tests.support.sse import sse_events

from .conftest import run_body

pytestmark = pytest.mark.anyio

STARTED = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}
SAFE = "The agent failed while handling this run; see the server log for details."


async def collect(agent: Any, *, debug: bool = False, **body: Any) -> list[dict[str, Any]]:
    """Run ``agent`` without HTTP and return the wire dicts of everything it sent."""
    sent: list[BaseEvent] = []

    async def sink(events: list[BaseEvent]) -> None:
        sent.extend(events)

    run_input = RunAgentInput.model_validate(run_body(**body))
    await run_agent(agent, run_input, sink, debug=debug)
    return [event.model_dump(by_alias=True, mode="json") for event in sent]


async def test_run_started_and_finished_are_added() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield CustomEvent(name="n", value=None)

    assert await collect(agent) == [
        STARTED,
        {"type": "CUSTOM", "name": "n", "value": None},
        FINISHED,
    ]


async def test_an_agent_that_sends_nothing_still_gets_a_full_run() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        return
        yield  # pragma: no cover

    assert await collect(agent) == [STARTED, FINISHED]


async def test_parent_run_id_is_carried_on_the_added_run_started() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        return None

    events = await collect(agent, parentRunId="r0")
    assert events == [{**STARTED, "parentRunId": "r0"}, FINISHED]


async def test_agent_lifecycle_events_are_kept_not_doubled() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id="t1", run_id="r1")
        yield RunFinishedEvent(thread_id="t1", run_id="r1", result={"ok": True})

    assert await collect(agent) == [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {**FINISHED, "result": {"ok": True}},
    ]


async def test_agent_run_error_is_the_only_terminal_event() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield RunErrorEvent(message="quota exceeded", code="quota")

    assert await collect(agent) == [
        STARTED,
        {"type": "RUN_ERROR", "message": "quota exceeded", "code": "quota"},
    ]


async def test_events_after_the_terminal_event_are_dropped_and_the_agent_stopped() -> None:
    stopped: list[str] = []

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        try:
            yield RunFinishedEvent(thread_id="t1", run_id="r1")
            yield CustomEvent(name="late", value=1)
            yield CustomEvent(name="later", value=2)
        finally:
            stopped.append("finally")

    assert await collect(agent) == [STARTED, FINISHED]
    assert stopped == ["finally"]


async def test_coroutine_agent_return_value_is_the_result() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> Any:
        return {"answer": 42}

    assert await collect(agent) == [STARTED, {**FINISHED, "result": {"answer": 42}}]


async def test_event_dicts_are_accepted() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[Any]:
        yield {"type": "CUSTOM", "name": "n", "value": [1]}

    assert await collect(agent) == [
        STARTED,
        {"type": "CUSTOM", "name": "n", "value": [1]},
        FINISHED,
    ]


async def test_exception_closes_open_streams_then_safe_run_error() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield TextMessageStartEvent(message_id="m1")
        yield TextMessageContentEvent(message_id="m1", delta="par")
        yield ToolCallStartEvent(tool_call_id="c1", tool_call_name="search", subagent_run_id="s1")
        yield ToolCallArgsEvent(tool_call_id="c1", delta="{", subagent_run_id="s1")
        yield ReasoningStartEvent(message_id="g1")
        yield ReasoningMessageStartEvent(message_id="g2")
        raise ValueError("password=hunter2")

    assert await collect(agent) == [
        STARTED,
        {"type": "TEXT_MESSAGE_START", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "par"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c1",
            "toolCallName": "search",
            "subagentRunId": "s1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{", "subagentRunId": "s1"},
        {"type": "REASONING_START", "messageId": "g1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "g2", "role": "reasoning"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1", "subagentRunId": "s1"},
        {"type": "REASONING_MESSAGE_END", "messageId": "g2"},
        {"type": "REASONING_END", "messageId": "g1"},
        {"type": "RUN_ERROR", "message": SAFE, "code": "agent_error"},
    ]


async def test_exception_before_any_event() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        raise RuntimeError("db down")

    assert await collect(agent) == [
        STARTED,
        {"type": "RUN_ERROR", "message": SAFE, "code": "agent_error"},
    ]


async def test_debug_mode_shows_the_exception() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        raise RuntimeError("db down")

    assert (await collect(agent, debug=True))[-1] == {
        "type": "RUN_ERROR",
        "message": "RuntimeError: db down",
        "code": "agent_error",
    }


async def test_run_error_raised_by_the_agent_is_public_with_its_code() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        async with ctx.text_message(message_id="m1") as message:
            await message.send("x")
            raise RunError("Your plan has no quota left.", code="quota")

    assert await collect(agent) == [
        STARTED,
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "x"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_ERROR", "message": "Your plan has no quota left.", "code": "quota"},
    ]


async def test_exception_after_the_terminal_event_sends_nothing_more() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.finish(result=1)
        raise RuntimeError("late")

    assert await collect(agent) == [STARTED, {**FINISHED, "result": 1}]


async def test_yielding_a_non_event_is_an_agent_error() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[Any]:
        yield 42

    assert await collect(agent) == [
        STARTED,
        {"type": "RUN_ERROR", "message": SAFE, "code": "agent_error"},
    ]


async def test_agent_that_is_not_async_is_an_agent_error() -> None:
    def agent(run_input: Any, ctx: RunContext) -> Any:
        return [1]

    assert (await collect(agent, debug=True))[-1]["code"] == "agent_error"


async def test_guarantees_hold_over_http() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield TextMessageStartEvent(message_id="m1")
        raise KeyError("x")

    app = create_app(agent)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://localhost"
    ) as http:
        # A current client: an undeclared one gets the downgraded stream, declared "1.0".
        response = await http.post("/agent", json=run_body(protocolVersion="1.1"))
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-accel-buffering"] == "no"
    assert sse_events(response.text) == [
        STARTED,
        {"type": "TEXT_MESSAGE_START", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_ERROR", "message": SAFE, "code": "agent_error"},
    ]
