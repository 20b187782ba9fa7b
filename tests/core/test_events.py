"""Every event type constructs, encodes and decodes back equal; the event set is pinned."""

from __future__ import annotations

import json
import typing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ag_ui.core import (
    ActivitySnapshotEvent,
    BaseEvent,
    Event,
    EventType,
    RunStartedEvent,
    StateDeltaEvent,
    TextMessageStartEvent,
    parse_event,
)
from ag_ui.encoder import EventEncoder
from tests.strategies import model_instances

EVENT_CLASSES: list[type[BaseEvent]] = list(typing.get_args(typing.get_args(Event)[0]))


def test_the_union_has_one_class_per_event_type() -> None:
    assert len(EventType) == 31
    types = {cls.model_fields["type"].default for cls in EVENT_CLASSES}
    assert types == set(EventType)


def test_class_names_follow_the_event_type() -> None:
    for cls in EVENT_CLASSES:
        event_type = cls.model_fields["type"].default
        expected = "".join(part.title() for part in event_type.value.split("_")) + "Event"
        assert cls.__name__ == expected


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda cls: cls.__name__)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_event_round_trips_through_sse(cls: type[BaseEvent], data: st.DataObject) -> None:
    event = data.draw(model_instances(cls))
    frame = EventEncoder().encode(event)
    assert frame.startswith("data: ")
    assert frame.endswith("\n\n")
    assert "\n" not in frame[:-2]
    decoded = parse_event(frame[len("data: ") : -2])
    assert type(decoded) is cls
    assert decoded.model_dump(by_alias=True, mode="json") == event.model_dump(
        by_alias=True, mode="json"
    )


def test_wire_names_are_camel_case_and_python_names_snake_case() -> None:
    event = RunStartedEvent(thread_id="t", run_id="r", parent_run_id="p", protocol_version="1.0")
    assert json.loads(event.model_dump_json(by_alias=True)) == {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r",
        "protocolVersion": "1.0",
        "parentRunId": "p",
    }
    assert event.model_dump() == {
        "type": EventType.RUN_STARTED,
        "thread_id": "t",
        "run_id": "r",
        "protocol_version": "1.0",
        "parent_run_id": "p",
    }


def test_both_spellings_are_accepted_on_input() -> None:
    by_wire = parse_event({"type": "TEXT_MESSAGE_START", "messageId": "m"})
    by_python = parse_event({"type": "TEXT_MESSAGE_START", "message_id": "m"})
    assert by_wire == by_python == TextMessageStartEvent(message_id="m")


def test_unknown_fields_are_kept_and_re_emitted_with_their_nulls() -> None:
    event = parse_event({"type": "STEP_STARTED", "stepName": "s", "vendorTrace": None, "x": [1]})
    assert json.loads(event.model_dump_json(by_alias=True)) == {
        "type": "STEP_STARTED",
        "stepName": "s",
        "vendorTrace": None,
        "x": [1],
    }


def test_zero_x_defaults_are_kept() -> None:
    start = TextMessageStartEvent(message_id="m")
    activity = ActivitySnapshotEvent(message_id="a", activity_type="plan", content={})
    assert start.role == "assistant"
    assert activity.replace is True


def test_patch_operations_are_plain_dicts_and_typed_ops_are_accepted() -> None:
    from ag_ui.core import AddOperation, MoveOperation

    event = StateDeltaEvent(
        delta=[AddOperation(path="/a", value=None), MoveOperation(from_="/a", path="/b")]
    )
    assert event.delta == [
        {"op": "add", "path": "/a", "value": None},
        {"op": "move", "from": "/a", "path": "/b"},
    ]
    wire = parse_event({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/x"}]})
    assert isinstance(wire, StateDeltaEvent)
    assert wire.delta == [{"op": "remove", "path": "/x"}]


def test_timestamps_are_bounded_integers() -> None:
    from ag_ui.core import AGUIValidationError

    assert parse_event({"type": "RAW", "event": None, "timestamp": 2.0}).timestamp == 2
    for bad in (1.5, 2**53, "soon"):
        with pytest.raises(AGUIValidationError):
            parse_event({"type": "RAW", "event": None, "timestamp": bad})


def test_encrypted_value_type_travels_beside_every_encrypted_value() -> None:
    from ag_ui.core import (
        AssistantMessage,
        DeveloperMessage,
        FunctionCall,
        ReasoningEncryptedValueEvent,
        ReasoningMessage,
        SystemMessage,
        ToolCall,
        ToolMessage,
        UserMessage,
    )

    event = parse_event(
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "r1",
            "encryptedValue": "E",
            "encryptedValueType": "vendor.kind",
        }
    )
    assert isinstance(event, ReasoningEncryptedValueEvent)
    assert event.encrypted_value_type == "vendor.kind"
    assert json.loads(EventEncoder().encode(event)[len("data: ") : -2]) == {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "message",
        "entityId": "r1",
        "encryptedValue": "E",
        "encryptedValueType": "vendor.kind",
    }
    # Unset, it is omitted, so a 1.0 producer's bytes are unchanged.
    assert "encryptedValueType" not in ReasoningEncryptedValueEvent(
        subtype="message", entity_id="r1", encrypted_value="E"
    ).model_dump_json(by_alias=True)
    call = ToolCall(
        id="c",
        function=FunctionCall(name="f", arguments="{}"),
        encrypted_value="E",
        encrypted_value_type="t",
    )
    assert call.model_dump(by_alias=True, exclude_none=True)["encryptedValueType"] == "t"
    carriers = [
        DeveloperMessage(id="m", content="x"),
        SystemMessage(id="m", content="x"),
        AssistantMessage(id="m"),
        UserMessage(id="m", content="x"),
        ToolMessage(id="m", content="x", tool_call_id="c"),
        ReasoningMessage(id="m", content=""),
    ]
    for message in carriers:
        typed = type(message).model_validate(
            {
                **message.model_dump(by_alias=True),
                "encryptedValue": "E",
                "encryptedValueType": "t",
            }
        )
        assert typed.encrypted_value_type == "t", type(message).__name__
        assert json.loads(typed.model_dump_json(by_alias=True))["encryptedValueType"] == "t"


def _every_subclass(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in type.__subclasses__(cls):  # the raw hook: nothing looked through
        found |= {sub} | _every_subclass(sub)
    return found


def test_every_base_event_subclass_reachable_from_core_is_in_the_union() -> None:
    # The official 0.x test_all_event_subclasses_in_event_union, in every spelling a caller may
    # use: reflection on BaseEvent, the classes named in ag_ui.core.events (private names too).
    import inspect

    import ag_ui.core
    import ag_ui.core.events

    union = set(EVENT_CLASSES)
    assert set(BaseEvent.__subclasses__()) <= union
    ours = {
        cls
        for cls in _every_subclass(BaseEvent)
        if cls.__module__.startswith("ag_ui.")  # not subclasses other tests define
    }
    assert ours == union
    for module in (ag_ui.core, ag_ui.core.events):
        named = {
            value
            for _, value in inspect.getmembers(module, inspect.isclass)
            if issubclass(value, BaseEvent) and value is not BaseEvent
        }
        assert named <= union, sorted(cls.__name__ for cls in named - union)
