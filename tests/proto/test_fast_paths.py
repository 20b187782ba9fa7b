"""The flat-event fast paths agree with the general path through the generated code: same
bytes out, same events (and fields-set) in, and they step aside for anything unusual."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from proto_corpus import corpus
from proto_strategies import EVENTS, fields

from ag_ui.core import TextMessageContentEvent, TextMessageStartEvent, parse_event
from ag_ui.proto import _fast, encode_event
from ag_ui.proto._codec import _PLANS, event_message, wire_dict
from ag_ui.proto._generated import events_pb2

FLAT = sorted(_fast._PLANS)


def test_the_flat_events() -> None:
    assert FLAT == [
        "REASONING_ENCRYPTED_VALUE",
        "REASONING_END",
        "REASONING_MESSAGE_CHUNK",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_MESSAGE_START",
        "REASONING_START",
        "STEP_FINISHED",
        "STEP_STARTED",
        "SUBAGENT_ERROR",
        "SUBAGENT_STARTED",
        "TEXT_MESSAGE_CHUNK",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_CHUNK",
        "TOOL_CALL_END",
        "TOOL_CALL_START",
    ]


def _general_decode(data: bytes) -> Any:
    wire = wire_dict(data)
    return _PLANS[wire["type"]].validate(wire)


@pytest.mark.parametrize("event_type", FLAT)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fast_and_general_paths_agree(event_type: str, data: Any) -> None:
    required, optional = EVENTS[event_type]
    optional = {k: v for k, v in optional.items() if k not in ("rawEvent", "metadata")}
    event = parse_event(data.draw(fields({"type": st.just(event_type), **required}, optional)))
    fast_bytes = _fast.encode_flat(event)
    assert fast_bytes == event_message(event).SerializeToString()
    fast_event = _fast.decode_flat(fast_bytes)
    general_event = _general_decode(fast_bytes)
    assert fast_event == general_event
    assert fast_event.model_fields_set == general_event.model_fields_set


def test_events_with_open_json_take_the_general_path() -> None:
    event = TextMessageContentEvent(message_id="m", delta="d", metadata={"k": 1})
    assert _fast.encode_flat(event) is None


def _message(**fields: Any) -> events_pb2.Event:
    message = events_pb2.Event()
    arm = message.text_message_start
    arm.base_event.type = events_pb2.TEXT_MESSAGE_START
    arm.message_id = "m"
    for name, value in fields.items():
        setattr(arm, name, value)
    return message


@pytest.mark.parametrize(
    "data",
    [
        _message(role="robot").SerializeToString(),  # not a TextMessageRole
        _message().SerializeToString() + b"\x12\x00",  # a second envelope arm
        _message().SerializeToString()[:-1],  # truncated
        bytes.fromhex("0a070a000a0012016d"),  # base_event twice
        bytes.fromhex("0a080a0012016d3a0178"),  # unknown field 7 inside the arm
        bytes.fromhex("0a050a00120190"),  # invalid UTF-8
        bytes.fromhex("0a060a0208021200"),  # base type TEXT_MESSAGE_END in a start arm
    ],
)
def test_fast_decoder_steps_aside_for_anything_unusual(data: bytes) -> None:
    assert _fast.decode_flat(data) is None


def test_fast_decoder_reads_a_timestamp() -> None:
    event = TextMessageStartEvent(message_id="m", timestamp=-5)
    data = event_message(event).SerializeToString()
    assert _fast.encode_flat(event) == data
    assert _fast.decode_flat(data) == event


@pytest.mark.parametrize(
    "arm",
    ["text_message_start", "reasoning_message_start", "text_message_chunk", "subagent_started"],
)
def test_fields_with_python_defaults_that_did_not_arrive(arm: str) -> None:
    # Peers may leave out what our encoder always writes (TEXT_MESSAGE_START.role...).
    message = events_pb2.Event()
    getattr(message, arm).base_event.type = events_pb2.EventType.Value(arm.upper())
    data = message.SerializeToString()
    fast_event = _fast.decode_flat(data)
    general_event = _general_decode(data)
    assert fast_event == general_event
    assert fast_event.model_fields_set == general_event.model_fields_set
    assert fast_event.model_dump_json(by_alias=True) == general_event.model_dump_json(by_alias=True)


_FLAT_SAMPLES = [
    encode_event(parse_event(item)) for item in corpus() if item["type"] in _fast._PLANS
]


@settings(max_examples=1000, deadline=None)
@given(
    sample=st.sampled_from(_FLAT_SAMPLES),
    position=st.integers(min_value=0),
    value=st.integers(min_value=0, max_value=255),
)
def test_fast_decoder_never_accepts_what_the_general_path_reads_differently(
    sample: bytes, position: int, value: int
) -> None:
    corrupted = bytearray(sample)
    corrupted[position % len(corrupted)] = value
    data = bytes(corrupted)
    fast_event = _fast.decode_flat(data)
    if fast_event is not None:
        general_event = _general_decode(data)
        assert fast_event == general_event
        assert fast_event.model_fields_set == general_event.model_fields_set


def test_an_explicitly_written_empty_implicit_string_reads_as_unset() -> None:
    # REASONING_MESSAGE_START.role is implicit: "" on the wire means unset, whoever wrote it.
    arm = bytes.fromhex("0a020819") + b"\x1a\x01r" + b"\x22\x00"  # base, message_id, role ""
    data = bytes([0xD2, 0x01, len(arm)]) + arm  # envelope field 26
    fast_event = _fast.decode_flat(data)
    general_event = _general_decode(data)
    assert fast_event == general_event
    assert fast_event.model_fields_set == general_event.model_fields_set == {"type", "message_id"}
