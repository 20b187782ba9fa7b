"""Any sequence of well-formed events, legal or not, ends in a result or a typed ``AGUIError``:
never another exception (no ``KeyError``, ``TypeError`` ... from inside the pipeline)."""

from __future__ import annotations

import warnings
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ag_ui.apply import EventPipeline
from ag_ui.core import parse_any_event
from ag_ui.core.errors import AGUIError


def assert_consistent(state: Any) -> None:
    """Whatever happened, the state's indexes agree with its messages."""
    first: dict[str, int] = {}
    carriers: dict[str, str] = {}
    for position, message in enumerate(state.messages):
        assert isinstance(message, dict)
        assert isinstance(message["id"], str)
        first.setdefault(message["id"], position)
        for call in message.get("toolCalls") or ():
            carriers.setdefault(call["id"], message["id"])
    assert state._index == first
    # every tool call is indexed (stale entries for removed calls are allowed)
    assert set(carriers) <= set(state._tool_index)


ids = st.sampled_from(["a", "b", "c"])
tags = st.sampled_from([None, "s1", "s2"])
deltas = st.sampled_from(["x", "", '{"', "}"])


def _tagged(event: dict[str, Any], tag: str | None) -> dict[str, Any]:
    return event if tag is None else {**event, "subagentRunId": tag}


@st.composite
def any_event(draw: st.DrawFn) -> dict[str, Any]:
    i, tag = draw(ids), draw(tags)
    maybe = draw(st.sampled_from([{}, {"messageId": i}]))
    options: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": i},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": i},
        {"type": "RUN_ERROR", "message": "x"},
        {"type": "TEXT_MESSAGE_START", "messageId": i},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": i, "delta": draw(deltas)},
        {"type": "TEXT_MESSAGE_END", "messageId": i},
        {"type": "TEXT_MESSAGE_CHUNK", **maybe, "delta": draw(deltas)},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": i,
            "toolCallName": "f",
            **draw(st.sampled_from([{}, {"parentMessageId": draw(ids)}])),
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": i, "delta": draw(deltas)},
        {"type": "TOOL_CALL_END", "toolCallId": i},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": i, "toolCallName": "f", "delta": "x"},
        {"type": "TOOL_CALL_RESULT", "messageId": draw(ids), "toolCallId": i, "content": "r"},
        {"type": "STATE_SNAPSHOT", "snapshot": draw(st.sampled_from([None, {}, [1], {"a": 1}]))},
        {
            "type": "STATE_DELTA",
            "delta": [
                draw(
                    st.sampled_from(
                        [
                            {"op": "add", "path": "/a", "value": 1},
                            {"op": "remove", "path": "/a"},
                            {"op": "move", "from": "/a", "path": "/b"},
                            {"op": "test", "path": "", "value": {}},
                            {"op": "add", "path": "/0", "value": 1},
                        ]
                    )
                )
            ],
        },
        {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": i, "role": "user", "content": "u"}]},
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": i,
            "activityType": "p",
            "content": {},
            "replace": draw(st.booleans()),
        },
        {
            "type": "ACTIVITY_DELTA",
            "messageId": i,
            "activityType": "p",
            "patch": [{"op": "add", "path": "/x", "value": 1}],
        },
        {"type": "STEP_STARTED", "stepName": i},
        {"type": "STEP_FINISHED", "stepName": i},
        {"type": "REASONING_START", "messageId": i},
        {"type": "REASONING_MESSAGE_START", "messageId": i, "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": i, "delta": "r"},
        {"type": "REASONING_MESSAGE_END", "messageId": i},
        {"type": "REASONING_MESSAGE_CHUNK", **maybe, "delta": "r"},
        {"type": "REASONING_END", "messageId": i},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": draw(st.sampled_from(["message", "tool-call"])),
            "entityId": i,
            "encryptedValue": "e",
        },
        {"type": "SUBAGENT_STARTED", "subagentRunId": i, "name": "n"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": i},
        {"type": "SUBAGENT_ERROR", "subagentRunId": i, "message": "m"},
        {"type": "THINKING_START"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "t"},
        {"type": "THINKING_END"},
        {"type": "CUSTOM", "name": "c", "value": None},
    ]
    event = draw(st.sampled_from(options))
    untaggable = ("RUN_", "MESSAGES_SNAPSHOT", "SUBAGENT_", "THINKING_")
    return event if event["type"].startswith(untaggable) else _tagged(event, tag)


@settings(max_examples=400, deadline=None)
@given(st.lists(any_event(), max_size=25), st.booleans())
def test_pipeline_never_crashes(events: list[dict[str, Any]], strict: bool) -> None:
    pipeline = EventPipeline(strict_end=strict)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for event in events:
                pipeline.feed(parse_any_event(event))
            pipeline.finish()
        except AGUIError:
            pass
    assert_consistent(pipeline.agent_state)


@settings(max_examples=400, deadline=None)
@given(st.lists(any_event(), max_size=30))
def test_reducer_alone_never_crashes_on_illegal_sequences(events: list[dict[str, Any]]) -> None:
    from ag_ui.apply import AgentState, apply_event
    from ag_ui.verify import ChunkExpander, CompatibilityTranslator

    translator, expander, state = CompatibilityTranslator(), ChunkExpander(), AgentState()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for raw in events:
            try:
                for event in expander.feed(translator.translate(parse_any_event(raw))):
                    state = apply_event(state, event)
            except AGUIError as error:
                state = getattr(error, "agent_state", None) or state
    assert_consistent(state)
