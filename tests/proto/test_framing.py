"""``encode_frame`` and the sans-IO ``FrameDecoder``, including every kind of bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ag_ui.core import StepStartedEvent, TextMessageContentEvent, parse_event
from ag_ui.core.errors import (
    DecodeError,
    FrameTooLargeError,
    MalformedFrameError,
    TruncatedFrameError,
    UnknownEventArmError,
    UnknownEventTypeError,
)
from ag_ui.proto import DEFAULT_MAX_FRAME_SIZE, FrameDecoder, encode_event, encode_frame
from ag_ui.proto._generated import events_pb2
from tests.proto.proto_corpus import corpus

EVENTS = [parse_event(item) for item in corpus()]
STREAM = b"".join(encode_frame(event) for event in EVENTS)
HI = TextMessageContentEvent(message_id="m", delta="hi")


def _frame(message: bytes) -> bytes:
    return len(message).to_bytes(4, "big") + message


def test_frame_is_big_endian_length_then_message() -> None:
    assert encode_frame(HI) == bytes.fromhex("0000000d") + encode_event(HI)


def test_whole_stream_in_one_feed() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(STREAM) == EVENTS
    assert decoder.close() == []
    assert decoder.frames_read == len(EVENTS)


def test_stream_fed_one_byte_at_a_time() -> None:
    decoder = FrameDecoder()
    events = []
    for offset in range(len(STREAM)):
        events += decoder.feed(STREAM[offset : offset + 1])
    assert events == EVENTS
    assert decoder.close() == []


def test_accepts_bytearray_and_memoryview() -> None:
    decoder = FrameDecoder()
    frame = encode_frame(HI)
    assert decoder.feed(bytearray(frame[:7])) + decoder.feed(memoryview(frame)[7:]) == [HI]


def test_default_limit_is_16_mib() -> None:
    assert FrameDecoder().max_frame_size == DEFAULT_MAX_FRAME_SIZE == 16 * 1024 * 1024


def test_garbage_bytes() -> None:
    decoder = FrameDecoder()
    with pytest.raises(MalformedFrameError) as caught:
        decoder.feed(_frame(b"\xff\xff\xff\xff\xff"))
    assert caught.value.frame_index == 0
    assert caught.value.reason == "truncated varint"


def test_truncated_frame_at_end_of_stream() -> None:
    decoder = FrameDecoder()
    frame = encode_frame(HI)
    assert decoder.feed(frame + frame[:9]) == [HI]
    with pytest.raises(TruncatedFrameError) as caught:
        decoder.close()
    assert (caught.value.frame_index, caught.value.received, caught.value.expected) == (1, 5, 13)


def test_truncated_length_prefix_at_end_of_stream() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\x00\x00") == []
    with pytest.raises(TruncatedFrameError) as caught:
        decoder.close()
    assert (caught.value.frame_index, caught.value.received, caught.value.expected) == (0, 2, None)


def test_length_prefix_above_the_limit_is_refused_before_buffering() -> None:
    decoder = FrameDecoder(max_frame_size=1024)
    with pytest.raises(FrameTooLargeError) as caught:
        decoder.feed(b"\x7f\xff\xff\xff" + b"x" * 10)
    assert (caught.value.frame_index, caught.value.size, caught.value.limit) == (
        0,
        0x7FFFFFFF,
        1024,
    )
    # The rest of the oversized frame streams past without being kept.
    for _ in range(100):
        assert decoder.feed(b"x" * 65536) == []
        assert len(decoder._buffer) == 0
    with pytest.raises(TruncatedFrameError) as cut:
        decoder.close()
    assert cut.value.frame_index == 0


def test_oversized_frame_is_skipped_and_the_stream_continues() -> None:
    big = encode_frame(StepStartedEvent(step_name="x" * 200))
    decoder = FrameDecoder(max_frame_size=100)
    with pytest.raises(FrameTooLargeError):
        decoder.feed(big[:50])
    assert decoder.feed(big[50:] + encode_frame(HI)) == [HI]
    assert decoder.frames_read == 2


def test_unknown_oneof_arm_can_be_caught_and_skipped() -> None:
    future = _frame(bytes([0xC2, 0x02, 0x02, 0x08, 0x01]))  # envelope field 40
    decoder = FrameDecoder()
    with pytest.raises(UnknownEventTypeError) as caught:  # one except clause for SSE and proto
        decoder.feed(encode_frame(HI) + future + encode_frame(HI))
    assert isinstance(caught.value, UnknownEventArmError)
    assert isinstance(caught.value, DecodeError)
    assert (caught.value.frame_index, caught.value.field_numbers) == (1, (40,))
    # The event before the bad frame was kept, the one after it is still buffered.
    assert decoder.feed(b"") == [HI, HI]
    assert decoder.close() == []


def test_skip_unknown_drops_and_counts_future_frames() -> None:
    future = _frame(bytes([0xC2, 0x02, 0x00]))
    decoder = FrameDecoder(skip_unknown=True)
    assert decoder.feed(future + encode_frame(HI) + future) == [HI]
    assert (decoder.skipped_unknown, decoder.frames_read) == (2, 3)


def test_invalid_utf8_in_a_string_field_names_the_field() -> None:
    message = bytearray(encode_event(HI))
    assert message.endswith(b"hi")
    message[-2:] = b"\xc3\x28"
    decoder = FrameDecoder()
    with pytest.raises(MalformedFrameError) as caught:
        decoder.feed(encode_frame(HI) + _frame(bytes(message)))
    error = caught.value
    assert (error.frame_index, error.field_path) == (1, "text_message_content.delta")
    assert error.reason == "invalid UTF-8 at byte 0"
    assert decoder.feed(b"") == [HI]


def test_invalid_utf8_deep_inside_a_struct_is_located() -> None:
    event = parse_event({"type": "CUSTOM", "name": "n", "value": {"key": ["ok", "zz"]}})
    message = bytearray(encode_event(event))
    index = message.rindex(b"zz")
    message[index : index + 2] = b"\xff\xfe"
    with pytest.raises(MalformedFrameError) as caught:
        FrameDecoder().feed(_frame(bytes(message)))
    assert caught.value.field_path == (
        "custom.value.struct_value.fields.value.list_value.values.string_value"
    )


def test_two_arms_in_one_envelope_are_refused() -> None:
    # upb would keep the last arm silently; the TypeScript decoder rejects the frame.
    two = encode_event(HI) + encode_event(StepStartedEvent(step_name="s"))
    with pytest.raises(MalformedFrameError) as caught:
        FrameDecoder().feed(_frame(two))
    assert (
        caught.value.reason
        == "oneof 'event' carries two arms: text_message_content and step_started"
    )


def test_base_event_type_must_match_the_arm() -> None:
    message = events_pb2.Event()
    message.text_message_content.base_event.type = events_pb2.TOOL_CALL_ARGS
    with pytest.raises(MalformedFrameError) as caught:
        FrameDecoder().feed(_frame(message.SerializeToString()))
    assert caught.value.field_path == "text_message_content.base_event.type"
    assert "declares TOOL_CALL_ARGS" in caught.value.reason


def test_missing_base_event_and_empty_envelope() -> None:
    message = events_pb2.Event()
    message.text_message_end.message_id = "m"
    decoder = FrameDecoder()
    with pytest.raises(MalformedFrameError) as no_base:
        decoder.feed(_frame(message.SerializeToString()) + _frame(b""))
    assert (no_base.value.frame_index, no_base.value.reason) == (0, "the event has no base_event")
    with pytest.raises(MalformedFrameError) as empty:
        decoder.feed(b"")
    assert empty.value.frame_index == 1
    assert empty.value.reason == "the envelope carries no event (empty ag_ui.Event)"


def test_decoded_values_out_of_the_model_range_are_reported() -> None:
    message = events_pb2.Event()
    message.step_started.base_event.type = events_pb2.STEP_STARTED
    message.step_started.base_event.timestamp = 2**60
    with pytest.raises(MalformedFrameError) as caught:
        FrameDecoder().feed(_frame(message.SerializeToString()))
    assert caught.value.frame_index == 0
    assert [p.split(":")[0] for p in caught.value.problems] == ["timestamp"]


def test_a_repeated_singular_message_field_is_merged_like_protobuf() -> None:
    first = events_pb2.Event()
    first.text_message_content.base_event.type = events_pb2.TEXT_MESSAGE_CONTENT
    first.text_message_content.message_id = "m"
    second = events_pb2.Event()
    second.text_message_content.delta = "hi"
    assert FrameDecoder().feed(_frame(first.SerializeToString() + second.SerializeToString())) == [
        HI
    ]


def test_invalid_max_frame_size() -> None:
    with pytest.raises(ValueError, match="max_frame_size"):
        FrameDecoder(max_frame_size=0)


def _drain(decoder: FrameDecoder, data: bytes) -> list[object]:
    """Feed ``data``, skipping every bad frame the way a lenient client would."""
    results: list[object] = []
    try:
        results += decoder.feed(data)
    except DecodeError as exc:
        results.append(type(exc))
        for _ in range(len(data) + 2):  # each retry consumes at least one frame
            try:
                results += decoder.feed(b"")
                break
            except DecodeError as again:
                results.append(type(again))
    try:
        results += decoder.close()
    except DecodeError as exc:
        results.append(type(exc))
    return results


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(st.sampled_from(EVENTS), max_size=12),
    chunk=st.integers(min_value=1, max_value=64),
)
def test_any_chunking_gives_the_same_events(items: list[object], chunk: int) -> None:
    stream = b"".join(encode_frame(event) for event in items)  # type: ignore[arg-type]
    decoder = FrameDecoder()
    events = []
    for offset in range(0, len(stream), chunk):
        events += decoder.feed(stream[offset : offset + chunk])
    assert events + decoder.close() == items


@settings(max_examples=300, deadline=None)
@given(noise=st.binary(max_size=300))
def test_random_bytes_only_ever_raise_decode_errors(noise: bytes) -> None:
    _drain(FrameDecoder(max_frame_size=4096), noise)


@settings(max_examples=300, deadline=None)
@given(position=st.integers(min_value=0), value=st.integers(min_value=0, max_value=255))
def test_corrupted_streams_only_ever_raise_decode_errors(position: int, value: int) -> None:
    corrupted = bytearray(STREAM)
    corrupted[position % len(corrupted)] = value
    _drain(FrameDecoder(), bytes(corrupted))


def test_a_value_with_two_kinds_is_refused_like_typescript_does() -> None:
    value = b"\x1a\x01a" + b"\x11" + bytes(8)  # string_value "a" and number_value 0
    arm = bytes.fromhex("0a02080a") + b"\x12\x01n" + b"\x1a" + bytes([len(value)]) + value
    message = b"\x5a" + bytes([len(arm)]) + arm  # envelope field 11: custom
    with pytest.raises(MalformedFrameError) as caught:
        FrameDecoder().feed(_frame(message))
    assert caught.value.field_path == "custom.value"
    assert caught.value.reason == "oneof 'kind' carries two arms: string_value and number_value"
