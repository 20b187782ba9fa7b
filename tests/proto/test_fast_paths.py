"""The flat-event fast paths agree with the general path through the generated code: same
bytes out, same events (and fields-set) in, and they step aside for anything unusual.

Every test runs against both implementations: the pure-Python reference and the compiled
``_speedups`` (which must be built: it is what ships, and what the benchmarks measure). The
general path they are compared with runs with the compiled Value codec switched off, so the
reference is the generated code alone."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Optional

import pytest
from google.protobuf import struct_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from ag_ui.core import (
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallResultEvent,
    parse_event,
)
from ag_ui.core.errors import EncodingError, MalformedFrameError
from ag_ui.proto import _fast, _values, decode_event, encode_event
from ag_ui.proto._codec import decode_general, encode_general
from ag_ui.proto._generated import events_pb2, patch_pb2
from ag_ui.proto._nested import SPECIAL_FIELDS
from ag_ui.proto._varint import write_varint
from tests.proto.proto_corpus import corpus
from tests.proto.proto_strategies import EVENTS, fields

FLAT = sorted(name for name, plan in _fast._PLANS.items() if plan.python)
FLAT_C = sorted(_fast._PLANS)  # the compiled paths also carry open JSON


@dataclass(frozen=True)
class Paths:
    encode_flat: Callable[..., Optional[bytes]]
    decode_flat: Callable[..., Any]


IMPLEMENTATIONS = {
    "python": Paths(_fast.encode_flat_python, _fast.decode_flat_python),
    "c": Paths(_fast.encode_flat, _fast.decode_flat),
}


@pytest.fixture(scope="module", params=sorted(IMPLEMENTATIONS))
def paths(request: pytest.FixtureRequest) -> Paths:
    return IMPLEMENTATIONS[request.param]


@contextmanager
def generated_code_only() -> Iterator[None]:
    saved = _values.speedups
    _values.speedups = None
    try:
        yield
    finally:
        _values.speedups = saved


def _general_bytes(event: Any) -> bytes:
    with generated_code_only():
        return encode_general(event)


def test_the_compiled_paths_are_built_and_in_use() -> None:
    # scripts/test installs with AG_UI_REQUIRE_SPEEDUPS=1; this catches a silent fallback.
    assert _fast.IMPLEMENTATION == "c"
    assert _fast.decode_flat is not _fast.decode_flat_python


def test_the_flat_events() -> None:
    assert sorted(set(FLAT_C) - set(FLAT)) == [
        "ACTIVITY_DELTA",
        "ACTIVITY_SNAPSHOT",
        "CUSTOM",
        "RAW",
        "RUN_ERROR",
        "RUN_FINISHED",
        "RUN_STARTED",
        "STATE_DELTA",
        "STATE_SNAPSHOT",
        "SUBAGENT_FINISHED",
        "TOOL_CALL_RESULT",
    ]
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
    with generated_code_only():
        return decode_general(data)


@pytest.mark.parametrize(
    ("implementation", "event_type"),
    [("python", name) for name in FLAT] + [("c", name) for name in FLAT_C],
)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fast_and_general_paths_agree(implementation: str, event_type: str, data: Any) -> None:
    paths = IMPLEMENTATIONS[implementation]
    required, optional = EVENTS[event_type]
    if implementation == "python":  # open JSON is for the compiled paths only
        optional = {k: v for k, v in optional.items() if k not in ("rawEvent", "metadata")}
    event = parse_event(data.draw(fields({"type": st.just(event_type), **required}, optional)))
    plan_fields = _fast._PLANS[event_type].fields
    absent = [f.name for f in plan_fields if f.kind == _fast._ABSENT]
    special = SPECIAL_FIELDS.get(event_type, frozenset())
    str_only = [f.name for f in plan_fields if f.kind == _fast._STRING and f.name in special]
    if any(getattr(event, name) not in (None, []) for name in absent) or any(
        not isinstance(getattr(event, name), str) for name in str_only
    ):
        # Nested messages (RUN_FINISHED's outcome, TOOL_CALL_RESULT's content parts...): both
        # directions take the general path.
        assert paths.encode_flat(event) is None
        assert paths.decode_flat(_general_bytes(event)) is None
        return
    fast_bytes = paths.encode_flat(event)
    assert fast_bytes == _general_bytes(event)
    framed = paths.encode_flat(event, True)
    assert framed == len(fast_bytes).to_bytes(4, "big") + fast_bytes
    fast_event = paths.decode_flat(fast_bytes)
    general_event = _general_decode(fast_bytes)
    assert fast_event == general_event
    assert fast_event.model_fields_set == general_event.model_fields_set


def test_python_leaves_open_json_to_the_general_path() -> None:
    event = TextMessageContentEvent(message_id="m", delta="d", metadata={"k": 1})
    assert _fast.encode_flat_python(event) is None
    raw = TextMessageContentEvent(message_id="m", delta="d", raw_event={"k": 1})
    assert _fast.encode_flat_python(raw) is None


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
def test_fast_decoder_steps_aside_for_anything_unusual(paths: Paths, data: bytes) -> None:
    assert paths.decode_flat(data) is None


def test_fast_decoder_reads_a_timestamp(paths: Paths) -> None:
    event = TextMessageStartEvent(message_id="m", timestamp=-5)
    data = _general_bytes(event)
    assert paths.encode_flat(event) == data
    assert paths.decode_flat(data) == event


@pytest.mark.parametrize(
    "arm",
    ["text_message_start", "reasoning_message_start", "text_message_chunk", "subagent_started"],
)
def test_fields_with_python_defaults_that_did_not_arrive(paths: Paths, arm: str) -> None:
    # Peers may leave out what our encoder always writes (TEXT_MESSAGE_START.role...).
    message = events_pb2.Event()
    getattr(message, arm).base_event.type = events_pb2.EventType.Value(arm.upper())
    data = message.SerializeToString()
    fast_event = paths.decode_flat(data)
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
    paths: Paths, sample: bytes, position: int, value: int
) -> None:
    corrupted = bytearray(sample)
    corrupted[position % len(corrupted)] = value
    data = bytes(corrupted)
    fast_event = paths.decode_flat(data)
    if fast_event is not None:
        general_event = _general_decode(data)
        assert fast_event == general_event
        assert fast_event.model_fields_set == general_event.model_fields_set


def test_an_explicitly_written_empty_implicit_string_reads_as_unset(paths: Paths) -> None:
    # REASONING_MESSAGE_START.role is implicit: "" on the wire means unset, whoever wrote it.
    arm = bytes.fromhex("0a020819") + b"\x1a\x01r" + b"\x22\x00"  # base, message_id, role ""
    data = bytes([0xD2, 0x01, len(arm)]) + arm  # envelope field 26
    fast_event = paths.decode_flat(data)
    general_event = _general_decode(data)
    assert fast_event == general_event
    assert fast_event.model_fields_set == general_event.model_fields_set == {"type", "message_id"}


class _Text(str):
    pass


@pytest.mark.parametrize(
    "event",
    [
        TextMessageContentEvent(message_id="m", delta="\ud800"),  # a lone surrogate
        TextMessageContentEvent.model_construct(message_id="m", delta=5),  # not a str
        TextMessageContentEvent.model_construct(message_id="m", delta="d", timestamp=2**53),
        TextMessageStartEvent.model_construct(message_id="m", role=None, timestamp="1"),
    ],
    ids=["surrogate", "int-field", "unsafe-timestamp", "str-timestamp"],
)
def test_the_encoder_steps_aside_for_values_only_the_general_path_can_report(
    paths: Paths, event: Any
) -> None:
    assert paths.encode_flat(event) is None
    assert paths.encode_flat(event, True) is None


def test_subclasses_and_str_subclasses_encode_to_the_same_bytes() -> None:
    class Mine(TextMessageContentEvent):
        pass

    expected = encode_event(TextMessageContentEvent(message_id="m", delta="hé"))
    assert encode_event(Mine(message_id="m", delta="hé")) == expected
    assert encode_event(TextMessageContentEvent(message_id="m", delta=_Text("hé"))) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"\xff" * 11,  # a varint longer than 64 bits
        b"\x12\x8a",  # a length cut off
        b"\x12\x0b\x0a\x02\x08",  # the base event cut off
        bytes.fromhex("12100a0b0801108080808080808010") + b"\x12\x01m",  # timestamp 2**53
        bytes.fromhex("12050a0308011a") + b"\x12",  # field length past the end
    ],
)
def test_malformed_bytes_never_read_past_the_end(paths: Paths, data: bytes) -> None:
    assert paths.decode_flat(data) is None
    # The same bytes inside a bigger buffer, read through offsets as FrameDecoder does.
    padded = b"\x12\x7f" + data + b"\x1a\x03abc" * 8
    assert paths.decode_flat(padded, 2, 2 + len(data)) is None


def test_offsets_select_one_message_in_a_buffer(paths: Paths) -> None:
    first = encode_event(TextMessageContentEvent(message_id="m", delta="one"))
    second = encode_event(TextMessageContentEvent(message_id="m", delta="twö"))
    buffer = first + second
    assert paths.decode_flat(buffer, 0, len(first)).delta == "one"
    assert paths.decode_flat(buffer, len(first), len(buffer)).delta == "twö"
    assert paths.decode_flat(buffer) is None  # two messages are not one
    assert paths.decode_flat(buffer, len(first), len(first)) is None


def test_the_compiled_paths_do_not_leak() -> None:
    import datetime
    import tracemalloc

    event = TextMessageStartEvent(message_id="m", name="n", timestamp=7, role="user")
    data = encode_event(event)
    bad = data[:-1]
    state = {"items": [{"id": i, "title": f"tïtle {i}", "ok": None} for i in range(20)]}
    snapshot = StateSnapshotEvent(snapshot=state, metadata={"k": ["v", 1.5]})
    snapshot_data = encode_event(snapshot)
    bad_snapshot = snapshot_data.replace(b"t\xc3\xaftle 7", b"t\xff\xaftle 7")  # bad UTF-8
    late_refusal = StateSnapshotEvent(snapshot={"a": [1, 2, {"b": datetime.date(2026, 1, 1)}]})
    delta = StateDeltaEvent(
        delta=[
            {"op": "add", "path": "/a", "value": {"b": [1]}},
            {"op": "move", "from": "/a", "path": "/c"},
        ]
    )
    delta_data = encode_event(delta)
    invalid_delta = _state_delta(patch_pb2.JsonPatchOperation(op=patch_pb2.ADD, path="/a"))

    def churn() -> None:
        for _ in range(20_000):
            _fast.encode_flat(event)
            _fast.encode_flat(event, True)
            _fast.decode_flat(data)
            _fast.decode_flat(bad)
        for _ in range(2_000):
            _fast.encode_flat(snapshot)
            _fast.encode_flat(late_refusal)
            _fast.decode_flat(snapshot_data)
            assert _fast.decode_flat(bad_snapshot) is None
            _fast.encode_flat(delta)
            assert _fast.decode_flat(delta_data) == delta
            assert _fast.decode_flat(invalid_delta) is None  # the validator refused it

    churn()  # warm caches (interned strings, free lists)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        churn()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # A leaked event, dict, str or bytes per call would be megabytes over these 94k calls.
    assert grown < 64 * 1024


def _state_delta(*operations: Any) -> bytes:
    message = events_pb2.Event()
    arm = message.state_delta
    arm.base_event.type = events_pb2.STATE_DELTA
    arm.delta.extend(operations)
    return bytes(message.SerializeToString())


@pytest.mark.parametrize(
    "operation",
    [
        patch_pb2.JsonPatchOperation(op=patch_pb2.ADD, path="/a"),  # add needs a value
        patch_pb2.JsonPatchOperation(op=patch_pb2.MOVE, path="/a"),  # move needs from
    ],
    ids=["add-without-value", "move-without-from"],
)
def test_invalid_patches_are_refused_with_the_general_paths_error(operation: Any) -> None:
    data = _state_delta(operation)
    assert _fast.decode_flat(data) is None
    with pytest.raises(MalformedFrameError) as raised:
        decode_event(data)
    assert "STATE_DELTA" in str(raised.value)


def test_an_op_this_build_cannot_name_is_kept_as_its_number() -> None:
    # As the TypeScript decoder does: the decimal string, an open union's unknown member that
    # the reducer skips with a warning (ag_ui.verify._forward), not a broken frame.
    data = _state_delta(patch_pb2.JsonPatchOperation(op=9, path="/a"))
    assert _fast.decode_flat(data) is None
    assert decode_event(data).delta == [{"op": "9", "path": "/a"}]


def test_patch_operations_decode_through_the_models_validator() -> None:
    data = _state_delta(
        patch_pb2.JsonPatchOperation(op=patch_pb2.COPY, path="/b", **{"from": "/a"}),
        patch_pb2.JsonPatchOperation(op=patch_pb2.ADD, path="", value=struct_pb2.Value()),
    )
    # An empty Value has no JSON form: the general path names it; the fast path steps aside.
    assert _fast.decode_flat(data) is None
    data = _state_delta(
        patch_pb2.JsonPatchOperation(op=patch_pb2.COPY, path="/b", **{"from": "/a"}),
        patch_pb2.JsonPatchOperation(
            op=patch_pb2.ADD, path="", value=struct_pb2.Value(string_value="whole")
        ),
    )
    event = _fast.decode_flat(data)
    assert event == _general_decode(data)
    assert event.delta == [
        {"op": "copy", "from": "/a", "path": "/b"},
        {"op": "add", "path": "", "value": "whole"},
    ]


def test_unknown_patch_ops_are_left_to_the_general_encoder() -> None:
    event = StateDeltaEvent.model_construct(delta=[{"op": "jump", "path": "/a"}])
    assert _fast.encode_flat(event) is None
    with pytest.raises(EncodingError, match="jump"):
        encode_event(event)


@pytest.mark.parametrize(
    ("replace", "expected", "is_set"),
    [(None, True, False), (False, False, True), (True, True, True), (2, True, True)],
)
def test_activity_snapshot_replace(replace: Optional[int], expected: bool, is_set: bool) -> None:
    arm = events_pb2.ActivitySnapshotEvent(message_id="m", activity_type="PLAN")
    arm.base_event.type = events_pb2.ACTIVITY_SNAPSHOT
    arm.content.SetInParent()
    body = bytes(arm.SerializeToString())
    if replace is not None:  # field 6 as a varint, written by hand so 2 can be tried
        body += bytes([0x30, replace])
    number = events_pb2.Event.DESCRIPTOR.fields_by_name["activity_snapshot"].number
    data = write_varint(number << 3 | 2) + write_varint(len(body)) + body
    event = _fast.decode_flat(data)
    assert event == _general_decode(data)
    assert event.replace is expected
    assert ("replace" in event.model_fields_set) is is_set


def test_tool_call_result_content_as_a_string_or_left_to_the_general_path() -> None:
    def result(**fields: Any) -> bytes:
        message = events_pb2.Event()
        arm = message.tool_call_result
        arm.base_event.type = events_pb2.TOOL_CALL_RESULT
        arm.message_id, arm.tool_call_id = "t1", "c1"
        for name, value in fields.items():
            setattr(arm, name, value)
        return bytes(message.SerializeToString())

    empty = result(content="")  # explicit presence: "" is a value, written and read back
    assert _fast.decode_flat(empty) == _general_decode(empty)
    assert _fast.decode_flat(empty).content == ""
    nothing = result()  # neither content nor parts: the general path reads it as no parts
    assert _fast.decode_flat(nothing) is None
    assert _general_decode(nothing).content == []
    event = ToolCallResultEvent(message_id="t1", tool_call_id="c1", content="sunny", role="tool")
    assert _fast.encode_flat(event) == _general_bytes(event)
    assert _fast.decode_flat(_general_bytes(event)) == event
