"""Read a serialized ``google.protobuf.Value`` straight from its bytes.

Walking a Value tree through upb costs two Python->C crossings per JSON node; re-serializing
the tree once (in C) and reading the bytes in Python is about 30% faster for a typical 2 KB
state snapshot. Anything unexpected raises ``_Unreadable`` and the caller walks the tree through
upb instead, which also produces the precise error.
"""

from __future__ import annotations

import struct
from typing import Any

__all__ = ["Unreadable", "read_struct", "read_value"]

_MAX_SAFE = 2**53 - 1
_unpack_double = struct.Struct("<d").unpack_from


class Unreadable(Exception):
    """The bytes are not the plain canonical shape this reader handles."""


def _length(data: bytes, pos: int) -> tuple[int, int]:
    byte = data[pos]
    if byte < 0x80:
        return byte, pos + 1
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 35:
            raise Unreadable("length varint too long")


def _value(data: bytes, pos: int, end: int) -> Any:
    """The JSON value of the Value message in ``data[pos:end]`` (exactly one kind field)."""
    if pos >= end:
        raise Unreadable("empty Value")
    tag = data[pos]
    if tag == 0x1A:  # string_value
        size, start = _length(data, pos + 1)
        if start + size != end:
            raise Unreadable("string_value")
        return data[start:end].decode()
    if tag == 0x11:  # number_value
        if pos + 9 != end:
            raise Unreadable("number_value")
        number: float = _unpack_double(data, pos + 1)[0]
        if number.is_integer() and -_MAX_SAFE <= number <= _MAX_SAFE:
            return int(number)
        return number
    if tag == 0x2A:  # struct_value
        size, start = _length(data, pos + 1)
        if start + size != end:
            raise Unreadable("struct_value")
        return _struct(data, start, end)
    if tag == 0x32:  # list_value
        size, start = _length(data, pos + 1)
        if start + size != end:
            raise Unreadable("list_value")
        items = []
        while start < end:
            if data[start] != 0x0A:
                raise Unreadable("ListValue field")
            size, start = _length(data, start + 1)
            stop = start + size
            if stop > end:
                raise Unreadable("ListValue value")
            items.append(_value(data, start, stop))
            start = stop
        return items
    if tag == 0x20 and pos + 2 == end and data[pos + 1] < 2:  # bool_value
        return data[pos + 1] == 1
    if tag == 0x08 and pos + 2 == end:  # null_value
        return None
    raise Unreadable(f"Value tag {tag}")


def _struct(data: bytes, pos: int, end: int) -> dict[str, Any]:
    result = {}
    while pos < end:
        if data[pos] != 0x0A:
            raise Unreadable("Struct field")
        size, pos = _length(data, pos + 1)
        stop = pos + size
        if stop > end or data[pos] != 0x0A:  # an entry: key (1) then value (2)
            raise Unreadable("Struct entry")
        size, pos = _length(data, pos + 1)
        key = data[pos : pos + size].decode()
        pos += size
        if pos >= stop or data[pos] != 0x12:
            raise Unreadable("Struct entry value")
        size, pos = _length(data, pos + 1)
        if pos + size != stop:
            raise Unreadable("Struct entry value length")
        result[key] = _value(data, pos, stop)
        pos = stop
    return result


def read_value(data: bytes) -> Any:
    """The JSON value of a serialized ``google.protobuf.Value``; raises ``Unreadable``."""
    try:
        return _value(data, 0, len(data))
    except (IndexError, UnicodeDecodeError, struct.error, RecursionError) as exc:
        raise Unreadable(str(exc)) from None


def read_struct(data: bytes) -> dict[str, Any]:
    """The JSON object of a serialized ``google.protobuf.Struct``; raises ``Unreadable``."""
    try:
        return _struct(data, 0, len(data))
    except (IndexError, UnicodeDecodeError, struct.error, RecursionError) as exc:
        raise Unreadable(str(exc)) from None
