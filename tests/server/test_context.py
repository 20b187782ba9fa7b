"""The RunContext emitter helpers: the exact events each one sends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunAgentInput,
    RunFinishedCancelledOutcome,
    RunStartedEvent,
    SubagentFinishedSuspendedOutcome,
    TextPart,
    TokenUsage,
    UserMessage,
)
from ag_ui.server import RunContext, run_agent

from .conftest import run_body

pytestmark = pytest.mark.anyio

STARTED = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}


async def events_of(agent: Any, **body: Any) -> list[dict[str, Any]]:
    """The wire dicts between RUN_STARTED and the terminal event (both checked)."""
    sent: list[BaseEvent] = []

    async def sink(events: list[BaseEvent]) -> None:
        sent.extend(events)

    await run_agent(agent, RunAgentInput.model_validate(run_body(**body)), sink)
    wire = [event.model_dump(by_alias=True, mode="json") for event in sent]
    assert wire[0] == STARTED
    return wire[1:]


async def test_say_streams_each_fragment() -> None:
    async def pieces() -> AsyncIterator[str]:
        yield "Hel"
        yield "lo"

    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.say("one")
        await ctx.say(["a", "b"], message_id="custom")
        await ctx.say(pieces())

    assert await events_of(agent) == [
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-r1-1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r1-1", "delta": "one"},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-r1-1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "custom", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "custom", "delta": "a"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "custom", "delta": "b"},
        {"type": "TEXT_MESSAGE_END", "messageId": "custom"},
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-r1-2", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r1-2", "delta": "Hel"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r1-2", "delta": "lo"},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-r1-2"},
        FINISHED,
    ]


async def test_text_message_stream_and_caught_error_still_closes() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        try:
            async with ctx.text_message(role="system", name="n") as message:
                await message.send("x")
                raise ValueError("inner")
        except ValueError:
            await ctx.custom("after", True)

    assert await events_of(agent) == [
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-r1-1", "role": "system", "name": "n"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r1-1", "delta": "x"},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-r1-1"},
        {"type": "CUSTOM", "name": "after", "value": True},
        FINISHED,
    ]


async def test_tool_call_with_streamed_args_and_results() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        first = await ctx.call_tool("search", ['{"q":', '"x"}'], parent_message_id="m0")
        await ctx.tool_result(first, "found")
        second = await ctx.call_tool("lookup", {"id": 7}, tool_call_id="c2")
        await ctx.tool_result(second, {"rows": [1]}, message_id="res2")
        async with ctx.tool_call("manual") as call:
            await call.send("{}")
        await ctx.tool_result(call.tool_call_id, [TextPart(text="part")])

    assert await events_of(agent) == [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "call-r1-1",
            "toolCallName": "search",
            "parentMessageId": "m0",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call-r1-1", "delta": '{"q":'},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call-r1-1", "delta": '"x"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "call-r1-1"},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "result-r1-2",
            "toolCallId": "call-r1-1",
            "content": "found",
            "role": "tool",
        },
        {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "lookup"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": '{"id":7}'},
        {"type": "TOOL_CALL_END", "toolCallId": "c2"},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "res2",
            "toolCallId": "c2",
            "content": '{"rows":[1]}',
            "role": "tool",
        },
        {"type": "TOOL_CALL_START", "toolCallId": "call-r1-3", "toolCallName": "manual"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call-r1-3", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "call-r1-3"},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "result-r1-4",
            "toolCallId": "call-r1-3",
            "content": [{"type": "text", "text": "part"}],
            "role": "tool",
        },
        FINISHED,
    ]


async def test_state_starts_from_the_input_and_updates_as_deltas() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        assert ctx.state.current == {"count": 1, "items": ["a"]}
        await ctx.state.update({"count": 2, "items": ["a"]})
        await ctx.state.update({"count": 2, "items": ["a"]})  # unchanged: nothing sent
        await ctx.state.snapshot({"fresh": True})
        await ctx.state.update({"fresh": False, "a/b": 1})
        await ctx.state.snapshot(None)
        assert ctx.state.current is None

    events = await events_of(agent, state={"count": 1, "items": ["a"]})
    assert events == [
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]},
        {"type": "STATE_SNAPSHOT", "snapshot": {"fresh": True}},
        {
            "type": "STATE_DELTA",
            "delta": [
                {"op": "replace", "path": "/fresh", "value": False},
                {"op": "add", "path": "/a~1b", "value": 1},
            ],
        },
        {"type": "STATE_SNAPSHOT", "snapshot": None},
        FINISHED,
    ]


async def test_state_update_merges_keys_like_dict_update() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        assert await ctx.state.update({"city": "Paris"}) == [
            {"op": "add", "path": "/city", "value": "Paris"}
        ]
        await ctx.state.update(count=2)  # keyword arguments, as dict.update takes them
        await ctx.state.update({"items": ["a", "b"]}, count=2)
        assert ctx.state.current == {"count": 2, "items": ["a", "b"], "city": "Paris"}

    events = await events_of(agent, state={"count": 1, "items": ["a"]})
    assert events == [
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/city", "value": "Paris"}]},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]},
        {
            "type": "STATE_DELTA",
            "delta": [{"op": "replace", "path": "/items", "value": ["a", "b"]}],
        },
        FINISHED,
    ]


async def test_state_replace_swaps_the_whole_state() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.state.replace({"city": "Paris"})
        await ctx.state.replace({"city": "Paris"})  # unchanged: nothing sent
        await ctx.state.replace(["a list now"])

    events = await events_of(agent, state={"count": 1})
    assert events == [
        {
            "type": "STATE_DELTA",
            "delta": [
                {"op": "remove", "path": "/count"},
                {"op": "add", "path": "/city", "value": "Paris"},
            ],
        },
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "", "value": ["a list now"]}]},
        FINISHED,
    ]


async def test_state_update_of_a_non_object_state_names_replace() -> None:
    seen: list[str] = []

    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.state.snapshot([1, 2])
        with pytest.raises(TypeError, match=r"state is a list; use ctx\.state\.replace") as info:
            await ctx.state.update({"x": 1})
        seen.append(str(info.value))

    events = await events_of(agent)
    assert events == [{"type": "STATE_SNAPSHOT", "snapshot": [1, 2]}, FINISHED]
    assert seen


async def test_state_mutation_by_the_agent_does_not_corrupt_the_baseline() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        state = {"list": [1]}
        await ctx.state.snapshot(state)
        state["list"].append(2)
        await ctx.state.update(state)

    assert await events_of(agent) == [
        {"type": "STATE_SNAPSHOT", "snapshot": {"list": [1]}},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/list", "value": [1, 2]}]},
        FINISHED,
    ]


async def test_steps_reasoning_and_activity() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        async with ctx.step("plan"):
            await ctx.think(["a", "b"])
            async with (
                ctx.reasoning(message_id="span") as span,
                span.message(message_id="rm") as message,
            ):
                await message.send("c")
            await ctx.reasoning_encrypted_value("message", "rm", "opaque")
            await ctx.reasoning_encrypted_value("message", "rm", "typed", "vendor.kind")
        progress = await ctx.activity("progress", {"percent": 0})
        await progress.update({"percent": 100, "done": True})
        await progress.update({"percent": 100, "done": True})

    assert await events_of(agent) == [
        {"type": "STEP_STARTED", "stepName": "plan"},
        {"type": "REASONING_START", "messageId": "reasoning-span-r1-1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "reasoning-r1-2", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "reasoning-r1-2", "delta": "a"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "reasoning-r1-2", "delta": "b"},
        {"type": "REASONING_MESSAGE_END", "messageId": "reasoning-r1-2"},
        {"type": "REASONING_END", "messageId": "reasoning-span-r1-1"},
        {"type": "REASONING_START", "messageId": "span"},
        {"type": "REASONING_MESSAGE_START", "messageId": "rm", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "rm", "delta": "c"},
        {"type": "REASONING_MESSAGE_END", "messageId": "rm"},
        {"type": "REASONING_END", "messageId": "span"},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "rm",
            "encryptedValue": "opaque",
        },
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "rm",
            "encryptedValue": "typed",
            "encryptedValueType": "vendor.kind",
        },
        {"type": "STEP_FINISHED", "stepName": "plan"},
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "activity-r1-3",
            "activityType": "progress",
            "content": {"percent": 0},
        },
        {
            "type": "ACTIVITY_DELTA",
            "messageId": "activity-r1-3",
            "activityType": "progress",
            "patch": [
                {"op": "replace", "path": "/percent", "value": 100},
                {"op": "add", "path": "/done", "value": True},
            ],
        },
        FINISHED,
    ]


async def test_custom_raw_and_messages_snapshot() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.custom("ui", {"x": 1})
        await ctx.raw({"provider": "event"}, source="openai")
        await ctx.messages_snapshot([UserMessage(id="u1", content="hi")])

    assert await events_of(agent) == [
        {"type": "CUSTOM", "name": "ui", "value": {"x": 1}},
        {"type": "RAW", "event": {"provider": "event"}, "source": "openai"},
        {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u1", "role": "user", "content": "hi"}]},
        FINISHED,
    ]


async def test_subagents_tag_their_events_and_report_outcomes() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        async with ctx.subagent("researcher", parent_tool_call_id="c0") as sub:
            await sub.say("found")
            async with sub.subagent("helper", subagent_run_id="h1") as helper:
                async with helper.step("dig"):
                    pass
                helper.outcome = SubagentFinishedSuspendedOutcome(interrupt_ids=["i1"])
            sub.result = {"ok": True}
        with pytest.raises(RuntimeError):
            async with ctx.subagent("flaky", subagent_run_id="f1"):
                raise RuntimeError("secret")

    assert await events_of(agent) == [
        {
            "type": "SUBAGENT_STARTED",
            "subagentRunId": "subagent-r1-1",
            "name": "researcher",
            "parentToolCallId": "c0",
        },
        {
            "type": "TEXT_MESSAGE_START",
            "subagentRunId": "subagent-r1-1",
            "messageId": "msg-r1-2",
            "role": "assistant",
        },
        {
            "type": "TEXT_MESSAGE_CONTENT",
            "subagentRunId": "subagent-r1-1",
            "messageId": "msg-r1-2",
            "delta": "found",
        },
        {"type": "TEXT_MESSAGE_END", "subagentRunId": "subagent-r1-1", "messageId": "msg-r1-2"},
        {
            "type": "SUBAGENT_STARTED",
            "subagentRunId": "h1",
            "name": "helper",
            "parentSubagentRunId": "subagent-r1-1",
        },
        {"type": "STEP_STARTED", "subagentRunId": "h1", "stepName": "dig"},
        {"type": "STEP_FINISHED", "subagentRunId": "h1", "stepName": "dig"},
        {
            "type": "SUBAGENT_FINISHED",
            "subagentRunId": "h1",
            "outcome": {"type": "suspended", "interruptIds": ["i1"]},
        },
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "subagent-r1-1", "result": {"ok": True}},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "f1", "name": "flaky"},
        {
            "type": "SUBAGENT_ERROR",
            "subagentRunId": "f1",
            "message": "flaky failed while handling this run; see the server log for details.",
            "code": "subagent_error",
        },
        FINISHED,
    ]


async def test_interrupt_ends_the_run_with_an_interrupt_outcome() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.interrupt(
            Interrupt(id="i1", reason="confirmation", message="Sure?"),
            Interrupt(id="i2", reason="tool_call", tool_call_id="c1"),
        )

    assert await events_of(agent) == [
        {
            **FINISHED,
            "outcome": {
                "type": "interrupt",
                "interrupts": [
                    {"id": "i1", "reason": "confirmation", "message": "Sure?"},
                    {"id": "i2", "reason": "tool_call", "toolCallId": "c1"},
                ],
            },
        }
    ]


async def test_interrupt_needs_an_interrupt() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.interrupt()

    assert (await events_of(agent))[-1]["code"] == "agent_error"


async def test_finish_with_outcome_and_usage() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.finish(
            outcome=RunFinishedCancelledOutcome(),
            usage=[TokenUsage(provider="p", input_tokens=3)],
        )

    assert await events_of(agent) == [
        {
            **FINISHED,
            "outcome": {"type": "cancelled"},
            "usage": [{"provider": "p", "inputTokens": 3}],
        }
    ]


async def test_input_accessors() -> None:
    seen: dict[str, Any] = {}

    async def agent(run_input: Any, ctx: RunContext) -> None:
        seen.update(
            thread=ctx.thread_id,
            run=ctx.run_id,
            text=ctx.last_user_text(),
            messages=len(ctx.messages),
            resume=[entry.interrupt_id for entry in ctx.resume],
        )

    await events_of(
        agent,
        messages=[
            {"id": "u1", "role": "user", "content": "first"},
            {"id": "a1", "role": "assistant", "content": "ok"},
            {"id": "u2", "role": "user", "content": [{"type": "text", "text": "second"}]},
        ],
        resume=[{"interruptId": "i1", "status": "cancelled"}],
    )
    assert seen == {"thread": "t1", "run": "r1", "text": "second", "messages": 3, "resume": ["i1"]}


async def test_start_sends_run_started_before_the_first_event_and_only_once() -> None:
    sent: list[BaseEvent] = []
    seen_at_start: list[int] = []

    async def sink(events: list[BaseEvent]) -> None:
        sent.extend(events)

    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.start()
        seen_at_start.append(len(sent))  # RUN_STARTED is out before anything else happens
        await ctx.start()  # once the run started: nothing
        async with ctx.subagent("helper", subagent_run_id="h1") as sub:
            await sub.start()  # a subagent's context: nothing (its parent's run started)
        await ctx.say("hi")
        await ctx.start()

    await run_agent(agent, RunAgentInput.model_validate(run_body()), sink)
    types = [event.type.value for event in sent]
    assert seen_at_start == [1]
    assert types.count("RUN_STARTED") == 1
    assert types[0] == "RUN_STARTED"
    assert types[-1] == "RUN_FINISHED"
    assert sent[0].model_dump(by_alias=True, mode="json") == STARTED


async def test_start_after_the_agents_own_run_started_does_nothing() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.emit(RunStartedEvent(thread_id="t1", run_id="r1", parent_run_id="p0"))
        await ctx.start()
        await ctx.say("hi")

    sent: list[BaseEvent] = []

    async def sink(events: list[BaseEvent]) -> None:
        sent.extend(events)

    await run_agent(agent, RunAgentInput.model_validate(run_body()), sink)
    started = [e for e in sent if e.type.value == "RUN_STARTED"]
    assert len(started) == 1
    assert started[0].parent_run_id == "p0"  # the agent's own, kept
