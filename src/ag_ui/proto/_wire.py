"""A schema-aware walk over raw protobuf bytes, used only when a frame is suspect.

The C parser (upb) says *that* bytes are broken, not *where*; and it silently keeps the last of
two oneof arms where the TypeScript decoder rejects the frame. This walk names the first problem
with its field path (``text_message_content.delta: invalid UTF-8``), finds conflicting oneof
arms, and tells an envelope from a newer protocol (only unknown arms) from garbage. It is pure
Python and slow, so the codec calls it only after upb failed or the message did not re-serialize
to the size it arrived with.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from ag_ui.proto._values import WireProblem
from ag_ui.proto._varint import VarintError, read_varint

__all__ = ["find_problem", "unknown_arms"]

_MAX_DEPTH = 100
_VARINT, _FIXED64, _LENGTH, _GROUP_START, _GROUP_END, _FIXED32 = 0, 1, 2, 3, 4, 5
_LENGTH_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_STRING,
        FieldDescriptor.TYPE_BYTES,
        FieldDescriptor.TYPE_MESSAGE,
    }
)
_FIXED64_TYPES = frozenset(
    {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64}
)
_FIXED32_TYPES = frozenset(
    {FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32}
)


def _varint(data: bytes | memoryview, offset: int, end: int) -> tuple[int, int]:
    try:
        return read_varint(data, offset, end)
    except VarintError as exc:
        raise WireProblem(str(exc)) from None


def _skip_group(data: bytes | memoryview, offset: int, end: int, number: int) -> int:
    while True:
        tag, offset = _varint(data, offset, end)
        field, wire_type = tag >> 3, tag & 7
        if wire_type == _GROUP_END:
            if field != number:
                raise WireProblem(f"group {number} closed by end-group tag {field}")
            return offset
        offset = _skip(data, offset, end, field, wire_type)


def _skip(data: bytes | memoryview, offset: int, end: int, field: int, wire_type: int) -> int:
    if field == 0:
        raise WireProblem("field number 0 (not protobuf)")
    if wire_type == _VARINT:
        return _varint(data, offset, end)[1]
    if wire_type == _FIXED64:
        offset += 8
    elif wire_type == _FIXED32:
        offset += 4
    elif wire_type == _LENGTH:
        length, offset = _varint(data, offset, end)
        offset += length
    elif wire_type == _GROUP_START:
        return _skip_group(data, offset, end, field)
    else:
        raise WireProblem(f"field {field} has invalid wire type {wire_type}")
    if offset > end:
        raise WireProblem(f"field {field} runs past the end of its message (truncated)")
    return offset


def _expected_wire_type(field: FieldDescriptor) -> int:
    if field.type in _LENGTH_TYPES:
        return _LENGTH
    if field.type in _FIXED64_TYPES:
        return _FIXED64
    if field.type in _FIXED32_TYPES:
        return _FIXED32
    if field.type == FieldDescriptor.TYPE_GROUP:
        return _GROUP_START
    return _VARINT


def _walk(data: bytes | memoryview, offset: int, end: int, message: Descriptor, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise WireProblem(f"nested deeper than {_MAX_DEPTH} levels")
    arms_seen: dict[str, str] = {}
    while offset < end:
        tag, offset = _varint(data, offset, end)
        number, wire_type = tag >> 3, tag & 7
        field = message.fields_by_number.get(number)
        if field is None:
            offset = _skip(data, offset, end, number, wire_type)
            continue
        name = field.name
        expected = _expected_wire_type(field)
        packed = wire_type == _LENGTH and expected != _LENGTH and _is_repeated(field)
        if wire_type != expected and not packed:
            raise WireProblem(f"wire type {wire_type}, expected {expected}").at(name)
        oneof = field.containing_oneof
        if oneof is not None and not _is_synthetic(oneof):
            other = arms_seen.setdefault(oneof.name, name)
            if other != name:
                raise WireProblem(f"oneof {oneof.name!r} carries two arms: {other} and {name}")
        if wire_type != _LENGTH:
            offset = _skip(data, offset, end, number, wire_type)
            continue
        length, offset = _varint(data, offset, end)
        stop = offset + length
        if stop > end:
            raise WireProblem(
                f"declares {length} bytes but only {end - offset} remain (truncated)"
            ).at(name)
        if field.type == FieldDescriptor.TYPE_STRING:
            try:
                bytes(data[offset:stop]).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise WireProblem(f"invalid UTF-8 at byte {exc.start}").at(name) from None
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            try:
                _walk(data, offset, stop, field.message_type, depth + 1)
            except WireProblem as exc:
                raise exc.at(name) from None
        offset = stop
    if offset != end:
        raise WireProblem("truncated message")


def _is_repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _is_synthetic(oneof: Any) -> bool:
    # proto3 ``optional`` fields live in a one-field synthetic oneof; those never conflict.
    return len(oneof.fields) == 1 and oneof.name.startswith("_")


def find_problem(data: bytes | memoryview, descriptor: Descriptor) -> WireProblem | None:
    """The first problem in ``data`` read as ``descriptor``, with its field path; None if fine."""
    try:
        _walk(data, 0, len(data), descriptor, 0)
    except WireProblem as problem:
        return problem
    return None


def unknown_arms(data: bytes | memoryview, descriptor: Descriptor) -> list[int] | None:
    """Field numbers of an envelope that carries only arms this build does not know.

    Returns None unless every top-level field is an unknown length-delimited field whose payload
    reads as a protobuf message (an event from a newer protocol rather than broken bytes).
    """
    numbers: list[int] = []
    offset, end = 0, len(data)
    try:
        while offset < end:
            tag, offset = _varint(data, offset, end)
            number, wire_type = tag >> 3, tag & 7
            if number in descriptor.fields_by_number or wire_type != _LENGTH or number == 0:
                return None
            length, offset = _varint(data, offset, end)
            if offset + length > end:
                return None
            _walk_unknown(data, offset, offset + length)
            numbers.append(number)
            offset += length
    except WireProblem:
        return None
    return numbers or None


def _walk_unknown(data: bytes | memoryview, offset: int, end: int) -> None:
    while offset < end:
        tag, offset = _varint(data, offset, end)
        offset = _skip(data, offset, end, tag >> 3, tag & 7)
    if offset != end:
        raise WireProblem("truncated message")
