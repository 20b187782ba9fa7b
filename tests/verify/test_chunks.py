"""Chunk expansion (PROTOCOL.md §6.3): whole expanded event lists, lanes, and every error."""

from __future__ import annotations

from typing import Any

import pytest

from ag_ui.core import parse_event
from ag_ui.core.errors import ChunkExpansionError
from ag_ui.verify import ChunkExpander, ChunkTransformWarning


def expand(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    expander = ChunkExpander()
    out: list[dict[str, Any]] = []
    for event in events:
        out += [e.model_dump(by_alias=True, mode="json") for e in expander.feed(parse_event(event))]
    expander.finish()
    return out


RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RF = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def test_text_chunks_open_continue_and_close_at_run_end() -> None:
    assert expand(
        [
            RS,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "He", "metadata": {"a": 1}},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "llo", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CHUNK", "metadata": {"usage": 3}},
            RF,
        ]
    ) == [
        RS,
        {
            "type": "TEXT_MESSAGE_START",
            "metadata": {"a": 1},
            "messageId": "m1",
            "role": "assistant",
        },
        {"type": "TEXT_MESSAGE_CONTENT", "metadata": {"a": 1}, "messageId": "m1", "delta": "He"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "llo"},
        {"type": "TEXT_MESSAGE_CONTENT", "metadata": {"usage": 3}, "messageId": "m1", "delta": ""},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        RF,
    ]


def test_a_new_id_closes_the_previous_stream_and_raw_event_rides_on_content() -> None:
    assert expand(
        [
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "a"},
            {
                "type": "TEXT_MESSAGE_CHUNK",
                "messageId": "m2",
                "role": "user",
                "name": "bob",
                "rawEvent": {"p": 1},
                "extra": True,
            },
        ]
    ) == [
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "a"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "user", "name": "bob"},
        {
            "type": "TEXT_MESSAGE_CONTENT",
            "rawEvent": {"p": 1},
            "messageId": "m2",
            "delta": "",
            "extra": True,
        },
    ]


def test_unknown_fields_ride_on_the_opener_when_there_is_no_content() -> None:
    assert expand([{"type": "REASONING_MESSAGE_CHUNK", "messageId": "r1", "extra": 1}]) == [
        {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning", "extra": 1},
    ]
    with pytest.warns(ChunkTransformWarning):
        out = expand([{"type": "REASONING_MESSAGE_CHUNK", "messageId": "r1", "role": "x"}])
    assert out == [{"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}]


def test_tool_and_reasoning_chunks() -> None:
    assert expand(
        [
            {
                "type": "TOOL_CALL_CHUNK",
                "toolCallId": "c1",
                "toolCallName": "f",
                "parentMessageId": "m0",
                "delta": "{",
            },
            {"type": "TOOL_CALL_CHUNK", "delta": "}", "toolCallName": "f"},
            {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r1", "delta": "hm"},
            {"type": "STEP_STARTED", "stepName": "s"},
        ]
    ) == [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c1",
            "toolCallName": "f",
            "parentMessageId": "m0",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "hm"},
        {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
        {"type": "STEP_STARTED", "stepName": "s"},
    ]


def test_lanes_per_subagent() -> None:
    assert expand(
        [
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "p", "delta": "1"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "s", "delta": "2", "subagentRunId": "s1"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "3"},  # the parent lane first
            {"type": "RAW", "event": 1},  # passes without closing anything
            {"type": "STEP_STARTED", "stepName": "x", "subagentRunId": "s1"},  # closes s1 only
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "4"},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
            {"type": "MESSAGES_SNAPSHOT", "messages": []},  # closes every lane
        ]
    ) == [
        {"type": "TEXT_MESSAGE_START", "messageId": "p", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "p", "delta": "1"},
        {
            "type": "TEXT_MESSAGE_START",
            "subagentRunId": "s1",
            "messageId": "s",
            "role": "assistant",
        },
        {"type": "TEXT_MESSAGE_CONTENT", "subagentRunId": "s1", "messageId": "s", "delta": "2"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "p", "delta": "3"},
        {"type": "RAW", "event": 1},
        {"type": "TEXT_MESSAGE_END", "subagentRunId": "s1", "messageId": "s"},
        {"type": "STEP_STARTED", "subagentRunId": "s1", "stepName": "x"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "p", "delta": "4"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
        {"type": "TEXT_MESSAGE_END", "messageId": "p"},
        {"type": "MESSAGES_SNAPSHOT", "messages": []},
    ]


def test_id_less_chunk_goes_to_the_single_open_lane() -> None:
    assert expand(
        [
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "s", "delta": "a", "subagentRunId": "s1"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
        ]
    )[-1] == {"type": "TEXT_MESSAGE_CONTENT", "subagentRunId": "s1", "messageId": "s", "delta": "b"}


def test_open_streams_are_dropped_at_the_end_without_an_end_event() -> None:
    expander = ChunkExpander()
    expander.feed(parse_event({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"}))
    finished = parse_event({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    before_finish = ChunkExpander()
    before_finish.feed(parse_event({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"}))
    assert [e.type.value for e in before_finish.feed(finished)] == [
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    expander.finish()  # the stream is dropped: nothing closes it any more
    assert [e.type.value for e in expander.feed(finished)] == ["RUN_FINISHED"]


def test_lane_expansion_is_a_pure_function_of_the_pending_stream() -> None:
    from ag_ui.verify._chunk_streams import expand_chunk

    first = parse_event({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a", "delta": "1"})
    events, pending = expand_chunk("text", None, first)  # type: ignore[arg-type]
    assert [e.type.value for e in events] == ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert (pending.kind, pending.entity_id) == ("text", "a")
    second = parse_event({"type": "TEXT_MESSAGE_CHUNK", "messageId": "b", "delta": "2"})
    again, after = expand_chunk("text", pending, second)  # type: ignore[arg-type]
    assert [(e.type.value, e.message_id) for e in again] == [  # type: ignore[attr-defined]
        ("TEXT_MESSAGE_END", "a"),
        ("TEXT_MESSAGE_START", "b"),
        ("TEXT_MESSAGE_CONTENT", "b"),
    ]
    assert after.entity_id == "b"
    assert pending.entity_id == "a"  # the input is not changed


@pytest.mark.parametrize(
    ("events", "rule", "event_type"),
    [
        ([{"type": "TEXT_MESSAGE_CHUNK", "delta": "x"}], "X1", "TEXT_MESSAGE_CHUNK"),
        ([{"type": "REASONING_MESSAGE_CHUNK", "delta": "x"}], "X1", "REASONING_MESSAGE_CHUNK"),
        ([{"type": "TOOL_CALL_CHUNK", "toolCallName": "f"}], "X1", "TOOL_CALL_CHUNK"),
        ([{"type": "TOOL_CALL_CHUNK", "toolCallId": "c"}], "X1", "TOOL_CALL_CHUNK"),
        (
            [
                {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"},
                {"type": "TEXT_MESSAGE_CHUNK", "role": "user"},
            ],
            "X2",
            "TEXT_MESSAGE_CHUNK",
        ),
        (
            [
                {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"},
                {"type": "TEXT_MESSAGE_CHUNK", "name": "bob"},
            ],
            "X2",
            "TEXT_MESSAGE_CHUNK",
        ),
        (
            [
                {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f"},
                {"type": "TOOL_CALL_CHUNK", "toolCallName": "g"},
            ],
            "X2",
            "TOOL_CALL_CHUNK",
        ),
        (
            [
                {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f"},
                {"type": "TOOL_CALL_CHUNK", "parentMessageId": "p"},
            ],
            "X2",
            "TOOL_CALL_CHUNK",
        ),
        (
            [
                {
                    "type": "TEXT_MESSAGE_CHUNK",
                    "messageId": "m",
                    "delta": "x",
                    "subagentRunId": "a",
                },
                {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "subagentRunId": "b"},
            ],
            "X2",
            "TEXT_MESSAGE_CHUNK",
        ),
        (
            [
                {
                    "type": "TEXT_MESSAGE_CHUNK",
                    "messageId": "m",
                    "delta": "x",
                    "subagentRunId": "a",
                },
                {
                    "type": "TEXT_MESSAGE_CHUNK",
                    "messageId": "n",
                    "delta": "x",
                    "subagentRunId": "b",
                },
                {"type": "TEXT_MESSAGE_CHUNK", "delta": "?"},
            ],
            "X3",
            "TEXT_MESSAGE_CHUNK",
        ),
    ],
)
def test_errors(events: list[dict[str, Any]], rule: str, event_type: str) -> None:
    expander = ChunkExpander()
    *prefix, last = events
    for event in prefix:
        expander.feed(parse_event(event))
    with pytest.raises(ChunkExpansionError) as caught:
        expander.feed(parse_event(last))
    assert (caught.value.rule, caught.value.event_type) == (rule, event_type)
