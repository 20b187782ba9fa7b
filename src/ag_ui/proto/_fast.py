"""Fast paths for the *flat* events: those a plan of plain fields can carry. Strings, bools,
open JSON (``google.protobuf.Value`` / ``Struct``) and JSON Patch operations: the text,
tool-call, step and reasoning streaming events, which make up almost every frame of a run, the
state, activity, custom and raw events; and, while their nested messages are absent
(``_ABSENT`` fields), the run-level events and TOOL_CALL_RESULT with string content. 30 of the
31 arms; MESSAGES_SNAPSHOT is no flat event (``_snapshot`` encodes its plain shape).

Going through the generated classes costs a Python->C crossing per field (per JSON node for open
JSON). The fast paths handle only the plain shape (known fields, each message field once, valid
UTF-8, values the model accepts, JSON of plain dicts, lists, str, int, float, bool and None);
anything else returns ``None`` and the caller takes the general path through the generated
code, which also produces the precise errors. Tests check both paths give the same bytes and
the same events.

Two implementations: the compiled ``_speedups`` (``_c/``, built at install when a C
compiler is there), which is what ``encode_flat`` and ``decode_flat`` are when it loaded, and
the pure-Python functions below, which cover the all-string events only (``python`` plans).
The Python loops cost 1.5-1.8 µs per event, the SSE path they are measured against
1.1-1.3 µs; compiled, 0.2-0.5 µs. ``IMPLEMENTATION`` says which runs; ``AG_UI_PURE_PYTHON=1``
forces Python.

A decoded flat event is built without re-running pydantic validation: protobuf already
guarantees every field is a ``str`` (open JSON fields are typed ``Any``), and the two checks
the models add (the timestamp range, ``Literal`` roles and subtypes) are done here. Events with
patch operations are the exception (``validated`` plans): the model's validator checks them,
as it does for SSE.
"""

from __future__ import annotations

import functools
import typing
from dataclasses import dataclass
from typing import Any, Callable, Optional

from google.protobuf.descriptor import FieldDescriptor
from pydantic import BaseModel

from ag_ui.core._wire import MAX_SAFE_INTEGER
from ag_ui.core.events import BaseEvent, EventType
from ag_ui.proto._accelerator import IMPLEMENTATION, speedups
from ag_ui.proto._generated import events_pb2
from ag_ui.proto._nested import SPECIAL_FIELDS
from ag_ui.proto._varint import SMALL_VARINTS, VarintError, read_varint, write_varint

__all__ = ["IMPLEMENTATION", "decode_flat", "encode_flat"]

_MISSING = object()  # marks a field with a non-None default that did not arrive
_new = object.__new__
# pydantic keeps these in __slots__; their descriptors set them without __setattr__'s lookup.
_SLOTS = BaseModel.__dict__
_set_dict = _SLOTS["__dict__"].__set__
_set_fields_set = _SLOTS["__pydantic_fields_set__"].__set__
_set_extra = _SLOTS["__pydantic_extra__"].__set__
_set_private = _SLOTS["__pydantic_private__"].__set__


# Field kinds, as _c/plan.h numbers them (enum FieldKind).
_STRING, _VALUE, _STRUCT, _BOOL, _PATCH, _ABSENT = 0, 1, 2, 3, 4, 5
_JSON_KINDS = {"google.protobuf.Value": _VALUE, "google.protobuf.Struct": _STRUCT}
_PATCH_OPERATION = "ag_ui.JsonPatchOperation"


@dataclass(frozen=True, slots=True)
class _Field:
    name: str  # proto field name == Python attribute name
    tag: bytes
    kind: int  # _STRING, _VALUE, _STRUCT, _BOOL, _PATCH or _ABSENT (see _absent_fields)
    implicit: bool  # proto3 implicit presence: "" is not written
    required: bool  # the Python field has no default
    allowed: Optional[frozenset[str]]  # the values a Literal annotation admits


@dataclass(frozen=True, slots=True)
class _FlatPlan:
    cls: type[BaseEvent]
    number: int
    arm_tag: bytes
    base_type: bytes  # the BaseEvent.type field as written (nothing for enum value 0)
    fields: tuple[_Field, ...]  # in field-number order, as upb writes them
    by_tag: dict[int, str]  # string field tag byte -> field name
    defaults: dict[str, Any]  # every field before any arrive (see _starting_values)
    plain_base: bytes  # field 1 (base_event) as written when it carries only the type
    implicit_defaulted: tuple[str, ...]  # "" means absent (the Python default applies)
    literals: tuple[tuple[str, frozenset[str]], ...]
    defaulted: tuple[tuple[str, Any], ...]  # fields whose Python default is not None
    needs_checks: bool  # some field has a Literal type or a Python default behind ""
    always_set: frozenset[str]  # "type" and the implicit strings the wire always carries
    python: bool  # plain strings only: the pure-Python paths handle it too
    validated: bool  # patch operations: decoded events go through the model's validator


def _allowed_values(annotation: Any) -> Optional[frozenset[str]]:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return frozenset(args)
    for arg in args:  # Optional[Literal[...]]
        if typing.get_origin(arg) is typing.Literal:
            return frozenset(typing.get_args(arg))
    return None


def _kind(field: FieldDescriptor) -> Optional[int]:
    """The fast-path kind of a field, None when the fast paths cannot carry it."""
    if field.number >= 16:
        return None  # two-byte tags
    is_message = field.type == FieldDescriptor.TYPE_MESSAGE
    if field.is_repeated:
        return _PATCH if is_message and field.message_type.full_name == _PATCH_OPERATION else None
    if field.type == FieldDescriptor.TYPE_STRING:
        return _STRING
    if field.type == FieldDescriptor.TYPE_BOOL:
        return _BOOL
    return _JSON_KINDS.get(field.message_type.full_name) if is_message else None


def _tag(field: FieldDescriptor, kind: int) -> bytes:
    return bytes([field.number << 3 | (0 if kind == _BOOL else 2)])


def _admits_str(annotation: Any) -> bool:
    return annotation is str or any(_admits_str(arg) for arg in typing.get_args(annotation))


def _planned_kind(
    field: FieldDescriptor, special: frozenset[str], model_fields: dict[str, Any]
) -> Optional[int]:
    """The kind a fast plan gives ``field``; None when no fast path carries it. Of the fields
    mapped by hand on the general path (``SPECIAL_FIELDS``), the fast paths carry patch
    operations, and a string whose model field may hold a ``str`` (TOOL_CALL_RESULT's content;
    its list form, ``content_parts``, stays on the general path)."""
    kind = _kind(field)
    if field.name not in special or kind == _PATCH:
        return kind
    info = model_fields.get(field.name)
    if kind == _STRING and info is not None and _admits_str(info.annotation):
        return kind
    return None


def _absent_fields(
    carried: set[str], special: frozenset[str], model_fields: dict[str, Any]
) -> Optional[tuple[_Field, ...]]:
    """The model fields behind an arm's other hand-mapped fields (RUN_FINISHED's outcome and
    usage, RUN_STARTED's input...), which the compiled paths take only while they are None or
    empty: every run has these events, and most carry none of that. None when such a field is
    required (TOOL_CALL_RESULT's content): the arm stays on the general path."""
    names = sorted(name for name in special - carried if name in model_fields)
    if any(model_fields[name].is_required() for name in names):
        return None
    return tuple(
        _Field(name=name, tag=b"\x00", kind=_ABSENT, implicit=False, required=False, allowed=None)
        for name in names
    )


def _build(classes: dict[str, type[BaseEvent]]) -> dict[str, _FlatPlan]:
    plans = {}
    for arm in events_pb2.Event.DESCRIPTOR.oneofs_by_name["event"].fields:
        type_name = arm.name.upper()
        special = SPECIAL_FIELDS.get(type_name, frozenset())
        cls = classes[type_name]
        model_fields = cls.model_fields
        fields = [f for f in arm.message_type.fields if f.name != "base_event"]
        carried = [f for f in fields if _planned_kind(f, special, model_fields) is not None]
        if any(f.name not in special for f in fields if f not in carried):
            continue  # a field no fast path can carry
        absent = _absent_fields({f.name for f in carried}, special, model_fields)
        if absent is None:
            continue
        planned = (
            tuple(
                _Field(
                    name=f.name,
                    tag=_tag(f, _kind(f) or _STRING),
                    kind=_kind(f) or _STRING,
                    implicit=not f.has_presence,
                    required=model_fields[f.name].is_required(),
                    allowed=_allowed_values(model_fields[f.name].annotation),
                )
                for f in sorted(carried, key=lambda f: f.number)
            )
            + absent
        )
        strings = [f for f in planned if f.kind == _STRING]
        implicit_defaulted = tuple(f.name for f in strings if f.implicit and not f.required)
        literals = tuple((f.name, f.allowed) for f in planned if f.allowed is not None)
        defaulted = tuple(
            (name, info.default)
            for name, info in model_fields.items()
            if not info.is_required() and info.default is not None and name != "type"
        )
        number = events_pb2.EventType.Value(type_name)
        base_type = b"\x08" + write_varint(number) if number else b""
        always_set = frozenset(["type", *(f.name for f in strings if f.implicit and f.required)])
        validated = any(f.kind == _PATCH for f in planned)
        if validated:  # the validator fills in the rest: start from what is always on the wire
            defaults: dict[str, Any] = {
                name: EventType(type_name) if name == "type" else "" for name in always_set
            }
        else:
            json_fields = frozenset(f.name for f in planned if f.kind != _STRING)
            defaults = _starting_values(model_fields, EventType(type_name), json_fields)
        plans[type_name] = _FlatPlan(
            cls=cls,
            number=number,
            arm_tag=write_varint(arm.number << 3 | 2),
            base_type=base_type,
            fields=planned,
            by_tag={field.tag[0]: field.name for field in strings},
            defaults=defaults,
            plain_base=b"\x0a" + write_varint(len(base_type)) + base_type,
            implicit_defaulted=implicit_defaulted,
            literals=literals,
            defaulted=defaulted,
            needs_checks=bool(literals or implicit_defaulted or defaulted),
            always_set=always_set,
            python=len(strings) == len(planned) and not special,
            validated=validated,
        )
    return plans


def _starting_values(
    model_fields: dict[str, Any], event_type: EventType, json_fields: frozenset[str]
) -> dict[str, Any]:
    """Field values before any arrive, in declaration order: "" for required strings (proto3
    writes no ""), None for optional ones and open JSON (a required one must arrive: the C path
    checks), ``_MISSING`` where the Python default is not None (``_complete`` fills it)."""
    values: dict[str, Any] = {}
    for name, info in model_fields.items():
        if name == "type":
            values[name] = event_type
        elif info.is_required():
            values[name] = None if name in json_fields else ""
        else:
            values[name] = None if info.default is None else _MISSING
    return values


_PLANS: dict[str, _FlatPlan] = {}
_PLANS_BY_TAG: dict[int, _FlatPlan] = {}


def install(classes: dict[str, type[BaseEvent]]) -> None:
    """Build the plans (called once by ``_codec`` with the event classes it resolved)."""
    _PLANS.update(_build(classes))
    if speedups is not None:
        # A decoded event is filled through pydantic's slots, as model_construct would.
        speedups.configure(
            _SLOTS["__dict__"],
            _SLOTS["__pydantic_fields_set__"],
            _SLOTS["__pydantic_extra__"],
            _SLOTS["__pydantic_private__"],
        )
    for plan in _PLANS.values():
        tag, _ = read_varint(plan.arm_tag, 0)
        if plan.python:
            _PLANS_BY_TAG[tag] = plan
        if speedups is not None:
            checks = plan.needs_checks and not plan.validated
            complete = functools.partial(_complete, plan) if checks else None
            validator = plan.cls.__pydantic_validator__.validate_python if plan.validated else None
            speedups.register(
                plan.cls,
                plan.defaults["type"],
                tag,
                plan.number,
                tuple((f.name, f.tag[0], f.kind, f.implicit, f.required) for f in plan.fields),
                plan.defaults,
                plan.always_set,
                complete,
                validator,
            )


def encode_flat_python(event: BaseEvent, framed: bool = False) -> Optional[bytes]:
    """The ``ag_ui.Event`` bytes of a flat event (with the 4-byte length prefix when
    ``framed``), or None when the general path is needed."""
    event_type: Any = getattr(event, "type", None)
    plan = _PLANS.get(event_type.value if isinstance(event_type, EventType) else event_type)
    if plan is None or not plan.python:
        return None
    try:
        if event.raw_event is not None or event.metadata is not None:
            return None  # (inside the try: any object may be passed, see encode_flat_frame)
        timestamp = event.timestamp
        base = plan.base_type
        if timestamp is not None:
            if not -MAX_SAFE_INTEGER <= timestamp <= MAX_SAFE_INTEGER:
                return None
            base += b"\x10" + write_varint(timestamp & 0xFFFFFFFFFFFFFFFF)
        out = [b"\x0a", SMALL_VARINTS[len(base)], base]
        stored = event.__dict__  # as given (see _codec.encode_event)
        for field in plan.fields:
            value = stored.get(field.name)
            if value is None:
                continue
            encoded = value.encode()
            if field.implicit and not encoded:
                continue
            out += (field.tag, write_varint(len(encoded)), encoded)
    except (AttributeError, TypeError, UnicodeEncodeError):
        return None  # not a str/int, or a lone surrogate: the general path reports it
    inner = b"".join(out)
    message = plan.arm_tag + write_varint(len(inner)) + inner
    if not framed:
        return message
    if len(message) > 0xFFFFFFFF:
        return None  # the general path raises the EncodingError
    return len(message).to_bytes(4, "big") + message


def decode_flat_python(data: bytes, start: int = 0, end: int = -1) -> Optional[BaseEvent]:
    """The event in ``data[start:end]`` when it is a plain flat event, else None (use the
    general path). Taking offsets lets the frame decoder skip a copy per frame."""
    # Single-byte varints (tags and lengths under 128) are read inline: this is the hot loop.
    # Every read past ``end`` is caught by a bounds check below before its value is used.
    if end < 0:
        end = len(data)
    if start >= end:
        return None
    try:
        tag = data[start]
        pos = start + 1
        if tag > 0x7F:
            tag, pos = read_varint(data, start)
        plan = _PLANS_BY_TAG.get(tag)
        if plan is None:
            return None
        length = data[pos]
        pos += 1
        if length > 0x7F:
            length, pos = read_varint(data, pos - 1)
        if pos + length != end or data[pos] != 0x0A:
            return None  # other envelope fields, or base_event not first: the general path
        values: dict[str, Any] = plan.defaults.copy()
        # Set fields: the type, the implicit strings (always on the wire dict), what arrives.
        fields_set = set(plan.always_set)
        add = fields_set.add
        if data.startswith(plan.plain_base, pos):  # base_event carrying only its type
            pos += len(plan.plain_base)
            if pos > end:
                return None
        else:
            size = data[pos + 1]
            stop = pos + 2 + size
            if size > 0x7F or stop > end:
                return None
            if not _read_base(data, pos + 2, stop, plan.number, values):
                return None
            if values["timestamp"] is not None:
                fields_set.add("timestamp")
            pos = stop
        by_tag = plan.by_tag
        while pos < end:
            name = by_tag.get(data[pos])
            if name is None:
                return None
            size = data[pos + 1]
            pos += 2
            if size > 0x7F:
                size, pos = read_varint(data, pos - 1)
            stop = pos + size
            if stop > end:
                return None
            values[name] = data[pos:stop].decode()
            add(name)
            pos = stop
    except (IndexError, UnicodeDecodeError, VarintError):
        return None
    # ``values`` started from the defaults, where implicit strings that did not arrive are "".
    if plan.needs_checks and not _complete(plan, values, fields_set):
        return None
    instance = _new(plan.cls)
    _set_dict(instance, values)
    _set_fields_set(instance, fields_set)
    _set_extra(instance, {})
    _set_private(instance, None)
    return instance


def _complete(plan: _FlatPlan, values: dict[str, Any], fields_set: set[str]) -> bool:
    """Fill fields with non-None Python defaults and apply ``Literal`` checks; False: use upb."""
    for name in plan.implicit_defaulted:
        if values[name] == "":
            values[name] = _MISSING  # an unset implicit string: the Python default applies
            fields_set.discard(name)
    for name, default in plan.defaulted:
        if values[name] is _MISSING:
            values[name] = default
        else:
            fields_set.add(name)
    return all(values[name] in allowed for name, allowed in plan.literals if name in fields_set)


def _read_base(data: bytes, pos: int, stop: int, number: int, values: dict[str, Any]) -> bool:
    """A base event with a timestamp (or in an unusual shape); False sends it to upb."""
    event_type = 0
    while pos < stop:
        tag = data[pos]
        if tag == 0x08:
            event_type, pos = read_varint(data, pos + 1)
        elif tag == 0x10:
            timestamp, pos = read_varint(data, pos + 1)
            if timestamp >= 1 << 63:
                timestamp -= 1 << 64
            if not -MAX_SAFE_INTEGER <= timestamp <= MAX_SAFE_INTEGER:
                return False
            values["timestamp"] = timestamp
        else:
            return False
    return pos == stop and event_type == number


encode_flat: Callable[..., Optional[bytes]] = (
    encode_flat_python if speedups is None else speedups.encode_flat
)
"""``encode_flat(event, framed=False)``: see ``encode_flat_python``."""

decode_flat: Callable[..., Optional[BaseEvent]] = (
    decode_flat_python if speedups is None else speedups.decode_flat
)
"""``decode_flat(data, start=0, end=-1)``: see ``decode_flat_python``."""
