"""The one reader and writer of protobuf base-128 varints in Python (the C accelerator has
``wire.h``).

The fast paths read one-byte varints inline and call this for longer ones; the schema walk
calls it for every tag and length. A varint longer than ten bytes or running past ``end`` is a
``VarintError``: the fast paths then fall back to the general decoder, the walk reports it.
"""

from __future__ import annotations

from typing import Optional

from ag_ui.core.errors import VarintError

__all__ = ["VarintError", "read_varint", "write_varint"]


# One-byte varints (tags, short lengths) come from a table: most of what the fast paths write.
SMALL_VARINTS = [bytes([n]) for n in range(128)]


def read_varint(data: bytes | memoryview, pos: int, end: Optional[int] = None) -> tuple[int, int]:
    """The varint starting at ``data[pos]`` and the position after it, reading before ``end``.

    >>> read_varint(b"\\xac\\x02", 0)
    (300, 2)
    """
    stop = len(data) if end is None else end
    result = shift = 0
    while True:
        if pos >= stop:
            raise VarintError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise VarintError("varint longer than 10 bytes")


def write_varint(value: int) -> bytes:
    """``value`` (0 <= value < 2**64) as a varint.

    >>> write_varint(300)
    b'\\xac\\x02'
    """
    if value < 128:
        return SMALL_VARINTS[value]
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
