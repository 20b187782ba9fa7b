"""One event <-> one ``ag_ui.Event`` protobuf message (PROTOCOL.md §4.4, §4.5).

Messages are built and read field by field through the generated classes (upb, in C) rather
than through ``json_format`` (measured 15x slower). Each of the 31 arms gets a precomputed plan
at import time: its scalar fields (read straight off the model's attributes), its open-JSON
fields (``google.protobuf.Value`` / ``Struct``) and, for the eight events with nested types, a
hand-written hook. Every event first tries the flat-event fast paths in ``_fast`` (compiled
when the extension is built), which carry 30 of the 31 arms in their common shape; this module
is the general path and the reference the fast paths are tested against.

Decoding builds the event's wire dict (camelCase, as SSE would carry it) and validates it with
the event class's own validator, so a protobuf event and the same event read from JSON are equal
and fail the same way. Unknown JSON fields ("extras") have no protobuf form and are not encoded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional, get_args

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError as ProtobufDecodeError
from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from ag_ui.core._readable import readable_problems
from ag_ui.core._surrogates import replace_lone_surrogates
from ag_ui.core.errors import EncodingError, MalformedFrameError, UnknownEventArmError
from ag_ui.core.events import BaseEvent, Event, EventType
from ag_ui.proto import _fast
from ag_ui.proto._generated import events_pb2
from ag_ui.proto._nested import SPECIAL_FIELDS, decode_nested, encode_nested
from ag_ui.proto._snapshot import encode_messages_snapshot
from ag_ui.proto._values import (
    WireProblem,
    encoding_error,
    fill_struct,
    fill_value,
    struct_to_dict,
    value_to_python,
)
from ag_ui.proto._wire import find_problem, unknown_arms

__all__ = [
    "decode_event",
    "decode_general",
    "encode_event",
    "encode_general",
    "event_message",
    "wire_dict",
]

_ENVELOPE = events_pb2.Event
_ENVELOPE_DESCRIPTOR = _ENVELOPE.DESCRIPTOR
_VALUE = "google.protobuf.Value"
_STRUCT = "google.protobuf.Struct"


def _event_classes() -> dict[str, type[BaseEvent]]:
    union = get_args(get_args(Event)[0])
    return {cls.model_fields["type"].default.value: cls for cls in union}


@dataclass(frozen=True)
class _Plan:
    """How one event type maps onto its envelope arm."""

    type_name: str
    arm: str
    number: int
    cls: type[BaseEvent]
    validate: Callable[[Any], BaseEvent]
    # (attribute/proto name, wire key, python field required?)
    scalars: tuple[tuple[str, str, bool], ...]  # implicit (always written) scalars
    optionals: tuple[tuple[str, str], ...]  # explicit-presence scalars
    values: tuple[tuple[str, str, bool], ...]  # google.protobuf.Value fields
    structs: tuple[tuple[str, str], ...]  # google.protobuf.Struct fields


def _build_plans() -> dict[str, _Plan]:
    classes = _event_classes()
    plans = {}
    for arm_field in _ENVELOPE_DESCRIPTOR.oneofs_by_name["event"].fields:
        type_name = arm_field.name.upper()
        cls = classes[type_name]
        special = SPECIAL_FIELDS.get(type_name, frozenset())
        scalars, optionals, values, structs = [], [], [], []
        for field in arm_field.message_type.fields:
            name = field.name
            if name == "base_event" or name in special:
                continue
            wire = to_camel(name)
            required = cls.model_fields[name].is_required()
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                full_name = field.message_type.full_name
                if full_name == _VALUE:
                    values.append((name, wire, required))
                elif full_name == _STRUCT:
                    structs.append((name, wire))
                else:  # pragma: no cover - guarded by the schema tests
                    raise AssertionError(f"unplanned message field {type_name}.{name}")
            elif field.has_presence:
                optionals.append((name, wire))
            else:
                scalars.append((name, wire, required))
        plans[type_name] = _Plan(
            type_name=type_name,
            arm=arm_field.name,
            number=events_pb2.EventType.Value(type_name),
            cls=cls,
            validate=cls.__pydantic_validator__.validate_python,
            scalars=tuple(scalars),
            optionals=tuple(optionals),
            values=tuple(values),
            structs=tuple(structs),
        )
    return plans


_PLANS = _build_plans()
_PLANS_BY_ARM = {plan.arm: plan for plan in _PLANS.values()}
_fast.install({name: plan.cls for name, plan in _PLANS.items()})


# --- encode ---------------------------------------------------------------------------------


def event_message(event: BaseEvent) -> Any:
    """The ``ag_ui.Event`` protobuf message for ``event`` (an ``events_pb2.Event``).

    Protobuf strings are UTF-8, which has no form for a lone surrogate (``"\\ud83d"``): such a
    code point is written as U+FFFD, as the TypeScript encoder writes it (``core/_surrogates``).
    """
    try:
        return _event_message(event)
    except EncodingError:
        clean = _without_lone_surrogates(event)
        if clean is None:
            raise
    return _event_message(clean)


def _without_lone_surrogates(event: BaseEvent) -> Optional[BaseEvent]:
    """A copy of ``event`` with lone surrogates replaced by U+FFFD; None when it holds none."""
    try:
        fields = event.model_dump(by_alias=True, warnings=False)
    except ValueError:
        return None
    clean = replace_lone_surrogates(fields)
    if clean == fields:
        return None
    return type(event).model_validate(clean)


def _event_message(event: BaseEvent) -> Any:
    type_value = getattr(event, "type", None)
    type_name = type_value.value if isinstance(type_value, EventType) else type_value
    plan = _PLANS.get(type_name)  # type: ignore[arg-type]
    if plan is None or not isinstance(event, BaseEvent):
        raise EncodingError(
            f"{type_name or type(event).__name__} has no protobuf form: only the 31 protocol "
            "1.0 events travel as protobuf (translate THINKING_* to REASONING_* first)"
        )
    envelope = _ENVELOPE()
    arm = getattr(envelope, plan.arm)
    base = arm.base_event
    base.type = plan.number
    where = "base_event"
    try:
        if event.timestamp is not None:
            base.timestamp = event.timestamp
        if event.raw_event is not None:
            where = "rawEvent"
            fill_value(base.raw_event, event.raw_event)
        if event.metadata is not None:
            where = "metadata"
            base.metadata.SetInParent()
            fill_struct(base.metadata, event.metadata)
        # The stored values, not attribute reads: a field such as TEXT_MESSAGE_START.role
        # reads its 0.x default when absent, and absent is what goes on the wire.
        stored = event.__dict__
        for name, _wire, _required in plan.scalars:
            setattr(arm, name, stored.get(name))
        for name, _wire in plan.optionals:
            value = stored.get(name)
            if value is not None:
                setattr(arm, name, value)
        for name, where, required in plan.values:  # noqa: B007 - named in errors
            value = stored.get(name)
            if value is not None or required:
                fill_value(getattr(arm, name), value)
        for name, where in plan.structs:  # noqa: B007 - named in errors
            value = stored.get(name)
            if value is not None:
                target = getattr(arm, name)
                target.SetInParent()
                fill_struct(target, value)
        where = plan.type_name
        if plan.type_name in SPECIAL_FIELDS:
            encode_nested(plan.type_name, event, arm)
    except EncodingError as exc:
        raise encoding_error(exc, f"{plan.type_name} {where}") from None
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        # Only reachable with models built without validation (model_construct) or mutated
        # after it: say which event could not be encoded instead of leaking a raw error.
        raise EncodingError(
            f"{plan.type_name}: cannot encode as protobuf: {type(exc).__name__}: {exc}"
        ) from None
    return envelope


def encode_event(event: BaseEvent) -> bytes:
    """Serialize one event as one ``ag_ui.Event`` protobuf message (no length prefix).

    >>> from ag_ui.core import TextMessageContentEvent
    >>> encode_event(TextMessageContentEvent(message_id="m", delta="hi")).hex()
    '120b0a02080112016d1a026869'
    """
    fast = _fast.encode_flat(event)
    if fast is None:
        fast = encode_messages_snapshot(event)
    return fast if fast is not None else encode_general(event)


def encode_general(event: BaseEvent) -> bytes:
    """``encode_event`` through the generated classes only (what the fast paths left)."""
    # Deterministic: Struct map entries in key order, so equal events give equal bytes in every
    # process (upb's own map order varies); costs ~0.2 µs per event.
    return bytes(event_message(event).SerializeToString(deterministic=True))


# --- decode ---------------------------------------------------------------------------------


def _malformed(problem: WireProblem, prefix: str = "") -> MalformedFrameError:
    path = ""
    for part in (prefix, *problem.path):
        if part:
            path += part if part.startswith("[") or not path else "." + part
    return MalformedFrameError(problem.reason, field_path=path or None)


def _parse_envelope(data: bytes) -> Any:
    try:
        envelope = _ENVELOPE.FromString(data)
    except ProtobufDecodeError as exc:
        problem = find_problem(data, _ENVELOPE_DESCRIPTOR)
        if problem is None:
            problem = WireProblem(f"not a protobuf ag_ui.Event ({exc})")
        raise _malformed(problem) from None
    if envelope.ByteSize() != len(data):
        # Re-serializing lost or merged something: look for what upb resolves silently but
        # the TypeScript decoder rejects (two arms of one oneof).
        problem = find_problem(data, _ENVELOPE_DESCRIPTOR)
        if problem is not None:
            raise _malformed(problem)
    return envelope


def wire_dict(data: bytes) -> dict[str, Any]:
    """The wire (camelCase JSON) dict of the event in one protobuf message, not validated."""
    envelope = _parse_envelope(data)
    arm_name = envelope.WhichOneof("event")
    if arm_name is None:
        numbers = unknown_arms(data, _ENVELOPE_DESCRIPTOR)
        if numbers:
            raise UnknownEventArmError(numbers)
        raise MalformedFrameError("the envelope carries no event (empty ag_ui.Event)")
    plan = _PLANS_BY_ARM[arm_name]
    arm = getattr(envelope, arm_name)
    if not arm.HasField("base_event"):
        raise MalformedFrameError("the event has no base_event", field_path=arm_name)
    base = arm.base_event
    if base.type != plan.number:
        declared = events_pb2.EventType.Name(base.type) if 0 <= base.type <= 30 else base.type
        raise MalformedFrameError(
            f"the envelope carries {plan.type_name} but the base event declares {declared}",
            field_path=f"{arm_name}.base_event.type",
        )
    wire: dict[str, Any] = {"type": plan.type_name}
    if base.HasField("timestamp"):
        wire["timestamp"] = base.timestamp
    try:
        if base.HasField("raw_event"):
            wire["rawEvent"] = value_to_python(base.raw_event)
    except WireProblem as exc:
        raise _malformed(exc, f"{arm_name}.base_event.raw_event") from None
    try:
        if base.HasField("metadata"):
            wire["metadata"] = struct_to_dict(base.metadata)
    except WireProblem as exc:
        raise _malformed(exc, f"{arm_name}.base_event.metadata") from None
    for name, key, required in plan.scalars:
        value = getattr(arm, name)
        # An implicit string is "" when unset; that only means "absent" for a field with a
        # Python default (REASONING_MESSAGE_START.role), otherwise "" is the value.
        if required or value != "":
            wire[key] = value
    for name, key in plan.optionals:
        if arm.HasField(name):
            wire[key] = getattr(arm, name)
    try:
        for name, key, _required in plan.values:
            if arm.HasField(name):
                try:
                    wire[key] = value_to_python(getattr(arm, name))
                except WireProblem as exc:
                    raise exc.at(name) from None
        for name, key in plan.structs:
            if arm.HasField(name):
                try:
                    wire[key] = struct_to_dict(getattr(arm, name))
                except WireProblem as exc:
                    raise exc.at(name) from None
        if plan.type_name in SPECIAL_FIELDS:
            decode_nested(plan.type_name, arm, wire)
    except WireProblem as exc:
        raise _malformed(exc, arm_name) from None
    return wire


def decode_event(data: bytes | bytearray | memoryview) -> Event:
    """Parse one ``ag_ui.Event`` protobuf message (no length prefix) into its event model.

    Raises ``UnknownEventArmError`` for an event from a newer protocol (skip it) and
    ``MalformedFrameError`` (naming the field path) for anything else that is not a valid event.

    >>> decode_event(bytes.fromhex("120b0a02080112016d1a026869")).delta
    'hi'
    """
    if not isinstance(data, bytes):
        data = bytes(data)
    fast = _fast.decode_flat(data)
    if fast is not None:
        return fast  # type: ignore[return-value]
    return decode_general(data)


def decode_general(data: bytes) -> Event:
    """``decode_event`` through the generated classes only (what the fast paths left)."""
    wire = wire_dict(data)
    plan = _PLANS[wire["type"]]
    try:
        return plan.validate(wire)  # type: ignore[return-value]
    except ValidationError as exc:
        raise MalformedFrameError(
            f"the decoded {plan.type_name} event is invalid",
            problems=readable_problems(exc, wire),
        ) from None
