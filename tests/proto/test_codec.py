"""``encode_event`` / ``decode_event``: exact bytes, the JSON⇄protobuf mapping rules, edge cases."""

from __future__ import annotations

import datetime
import math
import warnings
from typing import Any

import pytest

from ag_ui.core import (
    ActivitySnapshotEvent,
    CustomEvent,
    MessagesSnapshotEvent,
    ReasoningMessageStartEvent,
    RunFinishedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    parse_event,
)
from ag_ui.core.errors import EncodingError, MalformedFrameError
from ag_ui.core.legacy_events import ThinkingStartEvent
from ag_ui.proto import decode_event, encode_event
from ag_ui.proto._generated import events_pb2
from tests.proto.proto_corpus import corpus


def _wire(event: Any) -> dict[str, Any]:
    return event.model_dump(by_alias=True, mode="json")


def test_text_message_content_bytes_match_the_typescript_encoder() -> None:
    # PROTOCOL.md §4.3: verified output of @ag-ui/proto 1.0.0 for this event.
    event = TextMessageContentEvent(message_id="m", delta="hi")
    assert encode_event(event) == bytes.fromhex("120b0a02080112016d1a026869")


@pytest.mark.parametrize("item", corpus(), ids=lambda item: item["type"])
def test_corpus_round_trips(item: dict[str, Any]) -> None:
    event = parse_event(item)
    decoded = decode_event(encode_event(event))
    assert type(decoded) is type(event)
    assert _wire(decoded) == _wire(event)


def test_numbers_keep_json_meaning() -> None:
    snapshot = {
        "int": 5,
        "neg": -7,
        "float": 2.5,
        "whole_float": 3.0,
        "max": 2**53 - 1,
        "big": 1e300,
    }
    decoded = decode_event(encode_event(StateSnapshotEvent(snapshot=snapshot)))
    assert decoded.snapshot == snapshot
    assert [type(decoded.snapshot[k]) for k in ("int", "whole_float", "float", "big")] == [
        int,
        int,
        float,
        float,
    ]


def test_integer_beyond_the_double_range_is_refused_with_its_path() -> None:
    with pytest.raises(
        EncodingError, match=r"STATE_SNAPSHOT snapshot\.a\[1\]: integer 9007199254740992"
    ):
        encode_event(StateSnapshotEvent(snapshot={"a": [0, 2**53]}))


def test_nan_and_infinity_become_null_as_over_sse() -> None:
    event = CustomEvent(name="n", value=[math.nan, math.inf, 1.5])
    assert decode_event(encode_event(event)).value == [None, None, 1.5]


def test_python_objects_encode_as_their_json() -> None:
    when = datetime.datetime(2026, 11, 30, 4, 0, tzinfo=datetime.timezone.utc)
    event = CustomEvent(name="n", value={"when": when, "tags": ("a", "b"), 1: "int key"})
    assert decode_event(encode_event(event)).value == {
        "when": "2026-11-30T04:00:00Z",
        "tags": ["a", "b"],
        "1": "int key",
    }


def test_python_defaults_and_empty_implicit_strings() -> None:
    # TEXT_MESSAGE_START.role defaults to "assistant" in Python and travels explicitly.
    start = TextMessageStartEvent(message_id="m")
    assert decode_event(encode_event(start)).role == "assistant"
    # REASONING_MESSAGE_START.role is an implicit proto string: "" (unset) reads as the default.
    message = events_pb2.Event()
    message.reasoning_message_start.base_event.type = events_pb2.REASONING_MESSAGE_START
    message.reasoning_message_start.message_id = "r"
    assert decode_event(message.SerializeToString()) == ReasoningMessageStartEvent(message_id="r")


def test_activity_replace_false_and_empty_content_survive() -> None:
    event = ActivitySnapshotEvent(message_id="a", activity_type="T", content={}, replace=False)
    assert _wire(decode_event(encode_event(event))) == _wire(event)


def test_run_finished_outcome_mapping_on_the_wire() -> None:
    event = parse_event(
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r",
            "outcome": {"type": "success", "pendingToolCallIds": ["c1"]},
        }
    )
    message = events_pb2.Event.FromString(encode_event(event)).run_finished
    assert (message.outcome, list(message.pending_tool_call_ids)) == ("success", ["c1"])
    absent = events_pb2.Event.FromString(encode_event(RunFinishedEvent(thread_id="t", run_id="r")))
    assert absent.run_finished.outcome == ""


def test_legacy_binary_part_travels_as_a_marked_document() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        event = parse_event(
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {
                        "id": "u",
                        "role": "user",
                        "content": [
                            {
                                "type": "binary",
                                "mimeType": "application/pdf",
                                "data": "AAE=",
                                "filename": "a.pdf",
                            }
                        ],
                    }
                ],
            }
        )
    decoded = decode_event(encode_event(event))
    assert isinstance(decoded, MessagesSnapshotEvent)
    assert _wire(decoded)["messages"][0]["content"] == [
        {
            "type": "document",
            "source": {"type": "data", "value": "AAE=", "mimeType": "application/pdf"},
            "metadata": {"legacyBinary": True, "filename": "a.pdf"},
        }
    ]


def test_extras_have_no_protobuf_form_and_are_left_out() -> None:
    event = parse_event({"type": "STEP_STARTED", "stepName": "s", "vendorField": 1})
    assert _wire(decode_event(encode_event(event))) == {"type": "STEP_STARTED", "stepName": "s"}


def test_legacy_thinking_event_is_refused() -> None:
    with pytest.raises(EncodingError, match="THINKING_START has no protobuf form"):
        encode_event(ThinkingStartEvent())  # type: ignore[arg-type]


def test_decoded_event_that_breaks_the_model_names_the_problem() -> None:
    message = events_pb2.Event()
    arm = message.reasoning_encrypted_value
    arm.base_event.type = events_pb2.REASONING_ENCRYPTED_VALUE
    arm.subtype = "bogus"
    with pytest.raises(MalformedFrameError) as caught:
        decode_event(message.SerializeToString())
    assert caught.value.reason == "the decoded REASONING_ENCRYPTED_VALUE event is invalid"
    assert len(caught.value.problems) == 1
    assert caught.value.problems[0].startswith("subtype")


def test_equal_events_give_equal_bytes_whatever_the_key_order() -> None:
    one = StateSnapshotEvent(snapshot={"a": 1, "b": {"x": 1, "y": 2}})
    two = StateSnapshotEvent(snapshot={"b": {"y": 2, "x": 1}, "a": 1})
    assert encode_event(one) == encode_event(two)


def _custom_with_empty_value_inside() -> bytes:
    message = events_pb2.Event()
    custom = message.custom
    custom.base_event.type = events_pb2.CUSTOM
    custom.value.struct_value.fields["a"].list_value.values.add()  # a Value with no kind
    return message.SerializeToString()


def _user_part_with_empty_metadata() -> bytes:
    message = events_pb2.Event()
    started = message.run_started
    started.base_event.type = events_pb2.RUN_STARTED
    user = started.input.messages.add(id="u", role="user")
    user.content_parts.add().image.metadata.SetInParent()
    return message.SerializeToString()


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (_custom_with_empty_value_inside(), "custom.value['a'][0]"),
        (
            _user_part_with_empty_metadata(),
            "run_started.input.messages[0].content_parts[0].image.metadata",
        ),
    ],
)
def test_an_empty_value_is_reported_with_its_path(data: bytes, path: str) -> None:
    with pytest.raises(MalformedFrameError) as caught:
        decode_event(data)
    assert caught.value.field_path == path
    assert (
        caught.value.reason == "google.protobuf.Value has no kind set (an empty Value is not JSON)"
    )


def test_message_content_carriers_must_match_the_role() -> None:
    message = events_pb2.Event()
    snapshot = message.messages_snapshot
    snapshot.base_event.type = events_pb2.MESSAGES_SNAPSHOT
    assistant = snapshot.messages.add(id="a", role="assistant")
    assistant.content_parts.add().text.text = "x"
    with pytest.raises(MalformedFrameError) as caught:
        decode_event(message.SerializeToString())
    assert caught.value.field_path == "messages_snapshot.messages[0]"
    assert caught.value.reason == 'a "assistant" message carries content parts (that role has none)'


def test_a_lone_surrogate_is_written_as_the_replacement_character() -> None:
    # Protobuf strings are UTF-8, which has no form for "\ud800"; the TypeScript encoder
    # (TextEncoder) writes U+FFFD, and so does this one, in every string and JSON value.
    cut = TextMessageContentEvent(message_id="m", delta="ok \ud83d")
    assert decode_event(encode_event(cut)).delta == "ok \ufffd"
    assert encode_event(cut) == encode_event(
        TextMessageContentEvent(message_id="m", delta="ok \ufffd")
    )
    custom = CustomEvent(name="n\udc00", value={"k\ud800": ["\ud83d", 1]})
    back = decode_event(encode_event(custom))
    assert (back.name, back.value) == ("n\ufffd", {"k\ufffd": ["\ufffd", 1]})


def test_unvalidated_models_give_encoding_errors() -> None:
    built = TextMessageContentEvent.model_construct(message_id="m", delta=7, timestamp=1.5)
    with pytest.raises(EncodingError, match="TEXT_MESSAGE_CONTENT"):
        encode_event(built)


def test_a_message_missing_a_required_field_is_an_encoding_error() -> None:
    snapshot = MessagesSnapshotEvent.model_construct(messages=[{"role": "user", "content": "x"}])
    with pytest.raises(
        EncodingError, match="MESSAGES_SNAPSHOT: cannot encode as protobuf: KeyError"
    ):
        encode_event(snapshot)


# Protocol 1.1: encryptedValueType on the event (slot 6), on messages (14) and tool calls (6).
TYPED_1_1 = [
    {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "message",
        "entityId": "r1",
        "encryptedValue": "blob",
        "encryptedValueType": "anthropic.redacted_thinking",
        "subagentRunId": "s1",
    },
    {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {
                "id": "a1",
                "role": "assistant",
                "encryptedValue": "m",
                "encryptedValueType": "vendor.message",
                "toolCalls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "encryptedValue": "t",
                        "encryptedValueType": "vendor.call",
                    }
                ],
            },
            {
                "id": "r1",
                "role": "reasoning",
                "content": "",
                "encryptedValue": "e",
                "encryptedValueType": "openai.encrypted_content",
            },
        ],
    },
]


@pytest.mark.parametrize("item", TYPED_1_1, ids=lambda item: item["type"])
def test_encrypted_value_type_round_trips_sse_and_protobuf(item: dict[str, Any]) -> None:
    from ag_ui.encoder import EventEncoder

    event = parse_event(item)
    frame = EventEncoder().encode(event)
    from_sse = parse_event(frame[len("data: ") : -2])
    from_proto = decode_event(encode_event(from_sse))
    assert _wire(from_proto) == _wire(from_sse) == _wire(event)
    assert "encryptedValueType" in str(_wire(from_proto))


def test_encrypted_value_type_takes_its_1_1_slots() -> None:
    message = events_pb2.Event()
    message.ParseFromString(encode_event(parse_event(TYPED_1_1[0])))
    arm = message.reasoning_encrypted_value
    assert arm.DESCRIPTOR.fields_by_name["encrypted_value_type"].number == 6
    assert arm.encrypted_value_type == "anthropic.redacted_thinking"
    snapshot = events_pb2.Event()
    snapshot.ParseFromString(encode_event(parse_event(TYPED_1_1[1])))
    first = snapshot.messages_snapshot.messages[0]
    assert first.DESCRIPTOR.fields_by_name["encrypted_value_type"].number == 14
    assert first.encrypted_value_type == "vendor.message"
    assert first.tool_calls[0].DESCRIPTOR.fields_by_name["encrypted_value_type"].number == 6
    assert first.tool_calls[0].encrypted_value_type == "vendor.call"
