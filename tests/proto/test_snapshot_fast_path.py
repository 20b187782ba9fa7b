"""MESSAGES_SNAPSHOT's fast path (``_snapshot``, messages by ``_c/messages.c``) and the
encoder's direct call of the flat writer (``EventEncoder.encode_binary``) give the bytes of the
general path through the generated code, and step aside for every shape they do not handle.

Runs in both modes: compiled (the fast path taken for the plain shape), and under
``AG_UI_PURE_PYTHON=1`` (``test_without_speedups.py``), where the fast path must return None
and every event takes the general path."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import given, settings

from ag_ui.core import (
    MessagesSnapshotEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    ToolCallResultEvent,
    UserMessage,
    parse_event,
)
from ag_ui.encoder import EventEncoder
from ag_ui.proto import _values, encode_event, encode_frame
from ag_ui.proto._accelerator import IMPLEMENTATION
from ag_ui.proto._codec import encode_general
from ag_ui.proto._snapshot import encode_messages_snapshot
from tests.proto.proto_strategies import messages as message_lists

COMPILED = IMPLEMENTATION == "c"
PROTO = "application/vnd.ag-ui.event+proto"

CALL = {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
PLAIN: dict[str, list[dict[str, Any]]] = {
    "none": [],
    "a conversation": [
        {"id": "u1", "role": "user", "content": "What is the weather in Paris?"},
        {"id": "a1", "role": "assistant", "content": "Let me look.", "toolCalls": [CALL]},
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "sunny, 21 °C"},
    ],
    "empty strings": [
        {"id": "", "role": "assistant", "content": ""},
        {"id": "t", "role": "tool", "toolCallId": "", "content": "", "error": ""},
    ],
    "every optional field": [
        {
            "id": "a",
            "role": "assistant",
            "name": "bot",
            "subagentRunId": "s1",
            "encryptedValue": "ev",
            "encryptedValueType": "t",
            "metadata": {"b": [1, 2.5, None, True], "a": {}},
            "toolCalls": [
                {**CALL, "metadata": {"z": 1, "y": "ü"}, "encryptedValue": "e"},
                {"id": "", "function": {"name": "", "arguments": ""}},
            ],
        }
    ],
    "every other role": [
        {"id": "d", "role": "developer", "content": "be brief"},
        {"id": "s", "role": "system", "content": "ü 你好 👋"},
        {"id": "r", "role": "reasoning", "content": "think", "encryptedValue": "x"},
    ],
}
GENERAL: dict[str, list[dict[str, Any]]] = {
    "content parts": [{"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"}]}],
    "tool content parts": [
        {"id": "t", "role": "tool", "toolCallId": "c", "content": [{"type": "text", "text": "x"}]}
    ],
    "an extra field": [{"id": "u", "role": "user", "content": "x", "extra": 1}],
    "an extra in a tool call": [
        {"id": "a", "role": "assistant", "toolCalls": [{**CALL, "extra": 1}]}
    ],
    "an activity message": [{"id": "a", "role": "activity", "activityType": "P", "content": {}}],
    "a lone surrogate": [{"id": "u", "role": "user", "content": "cut \ud83d"}],
    "a plain message after one it cannot take": [
        {"id": "a", "role": "activity", "activityType": "P", "content": {"a": 1}},
        {"id": "u", "role": "user", "content": "x"},
    ],
}


def _snapshot(messages: list[dict[str, Any]], **base: Any) -> Any:
    return parse_event({"type": "MESSAGES_SNAPSHOT", "messages": messages, **base})


def _general_bytes(event: Any) -> bytes:
    saved = _values.speedups  # the generated code alone, as tests/proto/test_fast_paths.py
    _values.speedups = None
    try:
        return encode_general(event)
    finally:
        _values.speedups = saved


def _same_bytes_everywhere(event: Any) -> bytes:
    general = _general_bytes(event)
    assert encode_event(event) == general
    frame = encode_frame(event)
    assert frame[4:] == general
    assert int.from_bytes(frame[:4], "big") == len(general)
    assert EventEncoder(accept=PROTO).encode_binary(event) == frame
    return general


@pytest.mark.parametrize("timestamp", [None, 0, 1_700_000_000_000, -5, 2**53 - 1])
@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_snapshots_take_the_fast_path_with_the_general_paths_bytes(
    name: str, timestamp: Any
) -> None:
    event = _snapshot(PLAIN[name], **({} if timestamp is None else {"timestamp": timestamp}))
    general = _same_bytes_everywhere(event)
    fast = encode_messages_snapshot(event)
    assert fast == (general if COMPILED else None)
    framed = encode_messages_snapshot(event, True)
    assert framed == (encode_frame(event) if COMPILED else None)


@pytest.mark.parametrize("name", sorted(GENERAL))
def test_other_shapes_are_left_to_the_general_path(name: str) -> None:
    event = _snapshot(GENERAL[name])
    _same_bytes_everywhere(event)
    assert encode_messages_snapshot(event) is None


@pytest.mark.parametrize(
    "event",
    [
        _snapshot(PLAIN["a conversation"], rawEvent={"from": "elsewhere"}),
        _snapshot(PLAIN["a conversation"], metadata={"k": "v"}),
        MessagesSnapshotEvent.model_construct(messages=[], timestamp=2**53),  # beyond the bound
        MessagesSnapshotEvent.model_construct(messages=(), timestamp=None),  # not a list
        TextMessageContentEvent(message_id="m", delta="hi"),
    ],
    ids=["raw_event", "metadata", "timestamp", "tuple", "another event"],
)
def test_the_envelope_steps_aside_too(event: Any) -> None:
    assert encode_messages_snapshot(event) is None


def test_subclasses_are_left_to_the_general_path() -> None:
    class Snapshot(MessagesSnapshotEvent):
        pass

    class Message(UserMessage):
        pass

    plain = _snapshot(PLAIN["a conversation"])
    subclassed = Snapshot(messages=plain.messages)
    assert encode_messages_snapshot(subclassed) is None
    assert encode_event(subclassed) == encode_event(plain)
    odd_message = MessagesSnapshotEvent(messages=[Message(id="u", content="x")])
    assert encode_messages_snapshot(odd_message) is None
    _same_bytes_everywhere(odd_message)


@settings(max_examples=200, deadline=None)
@given(messages=message_lists)
def test_any_snapshot_gives_the_general_paths_bytes(messages: list[dict[str, Any]]) -> None:
    _same_bytes_everywhere(_snapshot(messages))


def test_the_messages_writer_keeps_reference_counts() -> None:
    # A reference the compiled writer takes and does not give back shows up here.
    event = _snapshot(PLAIN["every optional field"] + GENERAL["an extra field"])
    plain = _snapshot(PLAIN["every optional field"])
    watched = [plain.messages[0].__dict__, plain.messages[0].tool_calls[0].__dict__]
    before = [sys.getrefcount(item) for item in watched]
    for _ in range(10_000):
        encode_messages_snapshot(plain)
        encode_messages_snapshot(event)
    assert [sys.getrefcount(item) for item in watched] == before


@pytest.mark.parametrize(
    "event",
    [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "from a dict"},
        TextMessageContentEvent(message_id="m", delta="hi", raw_event={"x": 1}),
        ToolCallResultEvent(
            message_id="t", tool_call_id="c", content=[{"type": "text", "text": "parts"}]
        ),
        RunStartedEvent(thread_id="t", run_id="r"),
    ],
    ids=["dict", "raw_event", "content parts", "flat"],
)
def test_encode_binary_gives_encode_frames_bytes_for_any_input(event: Any) -> None:
    expected = encode_frame(parse_event(event) if isinstance(event, dict) else event)
    assert EventEncoder(accept=PROTO).encode_binary(event) == expected


def test_encode_binary_still_answers_sse_when_sse_was_negotiated() -> None:
    event = TextMessageContentEvent(message_id="m", delta="hi")
    assert EventEncoder().encode_binary(event) == EventEncoder().encode_sse(event)


def test_a_message_built_without_pydantic_is_left_to_the_general_path() -> None:
    message = object.__new__(UserMessage)  # no __pydantic_extra__ slot set
    object.__setattr__(message, "__dict__", {"id": "u", "role": "user", "content": "x"})
    event = MessagesSnapshotEvent.model_construct(messages=[message])
    assert encode_messages_snapshot(event) is None
