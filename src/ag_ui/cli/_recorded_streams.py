"""Read recorded event streams in any of the three wire formats, detecting which one it is.

JSON Lines (one wire-JSON event per line), SSE (``data:`` frames separated by a blank line) and
protobuf frames (4-byte big-endian length + ``ag_ui.Event``). Readers yield events in order and
raise an ``AGUIError`` naming the line or frame that is broken.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from ag_ui.core.decoding import AnyEvent, parse_any_event
from ag_ui.core.errors import AGUIValidationError, DecodeError, UnknownEventTypeError

__all__ = ["FORMATS", "Format", "detect_format", "read_events"]

Format = Literal["jsonl", "sse", "proto"]
FORMATS: tuple[Format, ...] = ("jsonl", "sse", "proto")
_SSE_FIELDS = (b"data:", b":", b"id:", b"event:", b"retry:")
_BOM = b"\xef\xbb\xbf"


def detect_format(data: bytes) -> Format:
    """Tell the format from the first bytes.

    A protobuf stream starts with a length prefix, whose first byte is 0 for any frame under
    16 MiB; JSON Lines start with ``{``; SSE with a field name or a comment.
    """
    if data[:1] == b"\x00":
        return "proto"
    text = data.removeprefix(_BOM).lstrip()
    if text.startswith(b"{"):
        return "jsonl"
    if text.startswith(_SSE_FIELDS):
        return "sse"
    raise DecodeError(
        f"cannot tell the input format from its first bytes {data[:16]!r}: expected JSON Lines "
        "('{'), SSE ('data:') or protobuf frames (a 4-byte length); pass --from"
    )


def read_events(
    data: bytes, fmt: Format, *, skipped: list[UnknownEventTypeError]
) -> Iterator[AnyEvent]:
    """Events of ``data`` in format ``fmt``; events of unknown types go to ``skipped``."""
    if fmt == "proto":
        yield from _read_proto(data, skipped)
    elif fmt == "jsonl":
        yield from _read_json_lines(data, skipped)
    else:
        yield from _read_sse(data, skipped)


def _parse(
    payload: bytes, index: int, where: str, skipped: list[UnknownEventTypeError]
) -> list[AnyEvent]:
    try:
        return [parse_any_event(payload)]
    except UnknownEventTypeError as exc:
        skipped.append(exc)
        return []
    except AGUIValidationError as exc:
        raise DecodeError(f"{where}: {exc}", frame_index=index) from None


def _read_json_lines(data: bytes, skipped: list[UnknownEventTypeError]) -> Iterator[AnyEvent]:
    index = 0
    for number, line in enumerate(data.removeprefix(_BOM).split(b"\n"), start=1):
        if line.strip():
            yield from _parse(line, index, f"line {number}", skipped)
            index += 1


def _read_sse(data: bytes, skipped: list[UnknownEventTypeError]) -> Iterator[AnyEvent]:
    # Recordings may have passed through tools that write CRLF; SSE allows it, so accept it.
    text = data.removeprefix(_BOM).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    index = 0
    for frame in text.split(b"\n\n"):
        lines = [line for line in frame.split(b"\n") if line.startswith(b"data:")]
        if not lines:
            continue
        payload = b"\n".join(line[6:] if line.startswith(b"data: ") else line[5:] for line in lines)
        yield from _parse(payload, index, f"SSE event {index}", skipped)
        index += 1


def _read_proto(data: bytes, skipped: list[UnknownEventTypeError]) -> Iterator[AnyEvent]:
    from ag_ui.proto import FrameDecoder, UnknownEventArmError

    decoder = FrameDecoder()
    pending = data
    while True:
        try:
            events = decoder.feed(pending)
        except UnknownEventArmError as exc:
            skipped.append(exc)
            pending = b""
            continue
        yield from events
        break
    yield from decoder.close()
