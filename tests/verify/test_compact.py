"""Compaction (PROTOCOL.md §6.9): whole output streams."""

from __future__ import annotations

from typing import Any

import pytest

from ag_ui.core import parse_event
from ag_ui.verify import compact_events


def compact(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e.model_dump(by_alias=True, mode="json")
        for e in compact_events([parse_event(e) for e in events])
    ]


def test_text_and_tool_streams_collapse_with_metadata() -> None:
    assert compact(
        [
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "metadata": {"a": 1}},
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "metadata": {"b": 2}},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "He", "metadata": {"c": 3}},
            {"type": "CUSTOM", "name": "during", "value": 1},
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "name": "late", "metadata": {"d": 4}},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "llo"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m"},
            {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "}"},
            {"type": "TOOL_CALL_END", "toolCallId": "c"},
        ]
    ) == [
        {
            "type": "TEXT_MESSAGE_START",
            "metadata": {"a": 1, "b": 2},
            "messageId": "m",
            "name": "late",
        },
        {
            "type": "TEXT_MESSAGE_CONTENT",
            "metadata": {"c": 3, "d": 4},
            "messageId": "m",
            "delta": "Hello",
        },
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "CUSTOM", "name": "during", "value": 1},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
    ]


def test_state_windows_collapse_to_one_snapshot() -> None:
    with pytest.warns(RuntimeWarning, match="does not apply"):
        out = compact(
            [
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/x", "value": 0}]},
                {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}, "metadata": {"m": 1}},
                {
                    "type": "STATE_DELTA",
                    "delta": [{"op": "add", "path": "/b", "value": 2}],
                    "metadata": {"n": 2},
                },
                {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
                {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/c", "value": 3}]},
            ]
        )
    assert out == [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "STATE_SNAPSHOT", "metadata": {"m": 1, "n": 2}, "snapshot": {"a": 1, "b": 2}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
        # a window without a snapshot is kept as it is
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/c", "value": 3}]},
    ]


def test_unterminated_streams_are_flushed_at_the_end() -> None:
    assert compact(
        [
            {"type": "TEXT_MESSAGE_START", "messageId": "m"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"},
            {"type": "RAW", "event": 1},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"},
        ]
    ) == [
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "ab"},
        {"type": "RAW", "event": 1},
    ]


def test_reasoning_and_activity_pass_through() -> None:
    events = [
        {"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "a"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "b"},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "x", "activityType": "p", "content": {}},
    ]
    # replace was not given, so it is not written (as 1.0.0 writes it)
    assert compact(events) == [*events[:3], events[3]]


@pytest.mark.parametrize("events", [[]])
def test_empty(events: list[dict[str, Any]]) -> None:
    assert compact(events) == []
