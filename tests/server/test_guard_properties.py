"""Whatever an agent yields or raises, the stream that leaves the server starts with RUN_STARTED,
ends with exactly one terminal event, and (guard on) passes the verifier."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Optional

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    EventType,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.server import run_agent
from ag_ui.verify import ChunkExpander, EventVerifier

ids = st.sampled_from(["a", "b"])
tags = st.sampled_from([None, None, "s1"])

events = st.one_of(
    st.builds(TextMessageStartEvent, message_id=ids, subagent_run_id=tags),
    st.builds(TextMessageContentEvent, message_id=ids, delta=st.just("x")),
    st.builds(TextMessageEndEvent, message_id=ids),
    st.builds(TextMessageChunkEvent, message_id=ids, delta=st.just("y")),
    st.builds(ToolCallStartEvent, tool_call_id=ids, tool_call_name=st.just("t")),
    st.builds(ToolCallArgsEvent, tool_call_id=ids, delta=st.just("{")),
    st.builds(ToolCallEndEvent, tool_call_id=ids),
    st.builds(ReasoningStartEvent, message_id=ids),
    st.builds(ReasoningEndEvent, message_id=ids),
    st.builds(ReasoningMessageStartEvent, message_id=ids),
    st.builds(ReasoningMessageContentEvent, message_id=ids, delta=st.just("z")),
    st.builds(ReasoningMessageEndEvent, message_id=ids),
    st.builds(StepStartedEvent, step_name=ids),
    st.builds(StepFinishedEvent, step_name=ids),
    st.builds(CustomEvent, name=st.just("c"), value=st.none()),
    st.just(RunFinishedEvent(thread_id="t1", run_id="r1")),
    st.just(RunErrorEvent(message="m", code="c")),
)
TERMINAL = {EventType.RUN_FINISHED, EventType.RUN_ERROR}


def run(script: list[BaseEvent], raise_at: Optional[int], verify: bool) -> list[BaseEvent]:
    sent: list[BaseEvent] = []

    async def sink(batch: list[BaseEvent]) -> None:
        sent.extend(batch)

    async def agent(run_input: Any, ctx: Any) -> AsyncIterator[BaseEvent]:
        for index, event in enumerate(script):
            if index == raise_at:
                raise RuntimeError("boom")
            yield event

    run_input = RunAgentInput(thread_id="t1", run_id="r1", messages=[])
    anyio.run(lambda: run_agent(agent, run_input, sink, verify=verify))
    return sent


def assert_framed(sent: list[BaseEvent]) -> None:
    assert sent[0].type == EventType.RUN_STARTED
    assert [e.type in TERMINAL for e in sent].count(True) == 1
    assert sent[-1].type in TERMINAL


@settings(max_examples=300, deadline=None)
@given(st.lists(events, max_size=12), st.one_of(st.none(), st.integers(0, 12)))
def test_guarded_stream_is_always_legal(script: list[BaseEvent], raise_at: Optional[int]) -> None:
    sent = run(script, raise_at, verify=True)
    assert_framed(sent)
    verifier = EventVerifier(null_checks=False)
    expander = ChunkExpander()
    for event in sent:
        for expanded in expander.feed(event):
            verifier.feed(expanded)
    verifier.finish()


@settings(max_examples=150, deadline=None)
@given(st.lists(events, max_size=12), st.one_of(st.none(), st.integers(0, 12)))
def test_unguarded_stream_is_still_framed(script: list[BaseEvent], raise_at: Optional[int]) -> None:
    assert_framed(run(script, raise_at, verify=False))
