"""The verification guard: on by default, stops an illegal event and ends the run with a
RUN_ERROR naming the rule; ``verify=False`` sends what the agent produces."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunAgentInput,
    StepFinishedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallStartEvent,
)
from ag_ui.server import RunContext, SequenceViolation, create_app, run_agent
from tests.support.sse import sse_events

from .conftest import run_body

pytestmark = pytest.mark.anyio

STARTED = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}


def violation(rule: str, detail: str) -> dict[str, Any]:
    return {
        "type": "RUN_ERROR",
        "message": f"The agent produced an invalid event sequence (rule {rule}): {detail}",
        "code": "protocol_violation",
    }


async def collect(agent: Any, *, verify: bool = True) -> list[dict[str, Any]]:
    sent: list[BaseEvent] = []

    async def sink(events: list[BaseEvent]) -> None:
        sent.extend(events)

    await run_agent(agent, RunAgentInput.model_validate(run_body()), sink, verify=verify)
    return [event.model_dump(by_alias=True, mode="json") for event in sent]


async def test_illegal_event_is_stopped_and_named() -> None:
    cleaned: list[str] = []

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        try:
            yield CustomEvent(name="before", value=1)
            yield TextMessageContentEvent(message_id="ghost", delta="boo")
            yield CustomEvent(name="after", value=2)
        finally:
            cleaned.append("finally")

    assert await collect(agent) == [
        STARTED,
        {"type": "CUSTOM", "name": "before", "value": 1},
        violation(
            "T2",
            "Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message found with ID "
            "'ghost'. Start a text message with 'TEXT_MESSAGE_START' first.",
        ),
    ]
    assert cleaned == ["finally"]


async def test_open_streams_are_closed_before_the_violation_error() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield TextMessageStartEvent(message_id="m1")
        yield ToolCallStartEvent(tool_call_id="c1", tool_call_name="t")
        yield ToolCallStartEvent(tool_call_id="c1", tool_call_name="t")

    events = await collect(agent)
    assert [e["type"] for e in events] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TOOL_CALL_START",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_END",
        "RUN_ERROR",
    ]
    assert events[-1]["message"].startswith(
        "The agent produced an invalid event sequence (rule C1):"
    )


async def test_returning_with_an_open_message_fails_the_finish_rule() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield TextMessageStartEvent(message_id="m1")

    assert await collect(agent) == [
        STARTED,
        {"type": "TEXT_MESSAGE_START", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        violation(
            "F2",
            "Cannot send 'RUN_FINISHED' while text messages are still active: m1. "
            "Close them first.",
        ),
    ]


async def test_the_violation_is_raised_into_a_context_agent_and_nothing_more_is_sent() -> None:
    caught: list[str] = []

    async def agent(run_input: Any, ctx: RunContext) -> None:
        try:
            await ctx.emit(StepFinishedEvent(step_name="never-started"))
        except SequenceViolation as exc:
            caught.append(exc.rule)
        await ctx.custom("ignored", None)  # the run is over: raises RunEndedError

    events = await collect(agent)
    assert caught == ["S3"]
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == "protocol_violation"


async def test_chunks_are_verified_after_expansion() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield TextMessageChunkEvent(message_id="m1", delta="a")
        yield TextMessageChunkEvent(delta="b")

    assert await collect(agent) == [
        STARTED,
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "a"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
        FINISHED,
    ]


async def test_verify_off_sends_the_illegal_event() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield TextMessageContentEvent(message_id="ghost", delta="boo")

    assert await collect(agent, verify=False) == [
        STARTED,
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "boo"},
        FINISHED,
    ]


async def test_guard_is_on_by_default_over_http_and_can_be_turned_off() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield TextMessageContentEvent(message_id="ghost", delta="boo")

    for options, expected in (
        ({}, ["RUN_STARTED", "RUN_ERROR"]),
        ({"verify": False}, ["RUN_STARTED", "TEXT_MESSAGE_CONTENT", "RUN_FINISHED"]),
    ):
        app = create_app(agent, **options)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://localhost"
        ) as http:
            response = await http.post("/agent", json=run_body())
        assert [e["type"] for e in sse_events(response.text)] == expected
