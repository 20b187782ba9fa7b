"""Read a serialized ``google.protobuf.Value`` straight from its bytes.

Walking a Value tree through upb costs two Python->C crossings per JSON node; re-serializing
the tree once (in C) and reading the bytes in Python is about 30% faster for a typical 2 KB
state snapshot. Anything unexpected raises ``_Unreadable`` and the caller walks the tree through
upb instead, which also produces the precise error.
"""

from __future__ import annotations

import struct
from typing import Any

from ag_ui.core._wire import MAX_SAFE_INTEGER
from ag_ui.proto._varint import VarintError, read_varint

__all__ = ["Unreadable", "read_struct", "read_value"]

_unpack_double = struct.Struct("<d").unpack_from


class Unreadable(Exception):
    """The bytes are not the plain canonical shape this reader handles."""


def _value(data: bytes, pos: int, end: int) -> Any:
    """The JSON value of the Value message in ``data[pos:end]`` (exactly one kind field)."""
    # Lengths under 128 (one byte) are read inline: this runs once per JSON node.
    tag = data[pos]
    if tag == 0x1A:  # string_value
        size = data[pos + 1]
        start = pos + 2
        if size > 0x7F:
            size, start = read_varint(data, pos + 1)
        if start + size != end:
            raise Unreadable("string_value")
        return data[start:end].decode()
    if tag == 0x11:  # number_value
        if pos + 9 != end:
            raise Unreadable("number_value")
        number: float = _unpack_double(data, pos + 1)[0]
        if number.is_integer() and -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER:
            return int(number)
        return number
    if tag == 0x2A or tag == 0x32:  # struct_value, list_value
        size = data[pos + 1]
        start = pos + 2
        if size > 0x7F:
            size, start = read_varint(data, pos + 1)
        if start + size != end:
            raise Unreadable("container length")
        return _struct(data, start, end) if tag == 0x2A else _list(data, start, end)
    if tag == 0x20 and pos + 2 == end and data[pos + 1] < 2:  # bool_value
        return data[pos + 1] == 1
    if tag == 0x08 and pos + 2 == end:  # null_value
        return None
    raise Unreadable(f"Value tag {tag}")


def _list(data: bytes, pos: int, end: int) -> list[Any]:
    items: list[Any] = []
    append = items.append
    while pos < end:
        if data[pos] != 0x0A:
            raise Unreadable("ListValue field")
        size = data[pos + 1]
        pos += 2
        if size > 0x7F:
            size, pos = read_varint(data, pos - 1)
        stop = pos + size
        if stop > end or pos == stop:
            raise Unreadable("ListValue value")
        append(_value(data, pos, stop))
        pos = stop
    return items


def _struct(data: bytes, pos: int, end: int) -> dict[str, Any]:
    result = {}
    while pos < end:
        # One map entry: field 1 of the Struct, holding key (1) then value (2).
        if data[pos] != 0x0A:
            raise Unreadable("Struct field")
        size = data[pos + 1]
        pos += 2
        if size > 0x7F:
            size, pos = read_varint(data, pos - 1)
        stop = pos + size
        if stop > end or data[pos] != 0x0A:
            raise Unreadable("Struct entry")
        size = data[pos + 1]
        pos += 2
        if size > 0x7F:
            size, pos = read_varint(data, pos - 1)
        key = data[pos : pos + size].decode()
        pos += size
        if pos + 2 > stop or data[pos] != 0x12:
            raise Unreadable("Struct entry value")
        size = data[pos + 1]
        pos += 2
        if size > 0x7F:
            size, pos = read_varint(data, pos - 1)
        if pos + size != stop or pos == stop:
            raise Unreadable("Struct entry value length")
        result[key] = _value(data, pos, stop)
        pos = stop
    return result


def read_value(data: bytes) -> Any:
    """The JSON value of a serialized ``google.protobuf.Value``; raises ``Unreadable``."""
    try:
        return _value(data, 0, len(data))
    except (IndexError, UnicodeDecodeError, struct.error, RecursionError, VarintError) as exc:
        raise Unreadable(str(exc)) from None


def read_struct(data: bytes) -> dict[str, Any]:
    """The JSON object of a serialized ``google.protobuf.Struct``; raises ``Unreadable``."""
    try:
        return _struct(data, 0, len(data))
    except (IndexError, UnicodeDecodeError, struct.error, RecursionError, VarintError) as exc:
        raise Unreadable(str(exc)) from None
