"""Server-Sent Events frames: ``data: <compact JSON>\\n\\n``, optional ``id:``, comments.

Never CRLF: the TypeScript client only splits frames on ``\\n\\n``.
"""

from __future__ import annotations

from typing import Optional

from ag_ui.core.errors import EncodingError

__all__ = ["sse_comment", "sse_frame"]

_FORBIDDEN_IN_LINE = ("\n", "\r", "\0")


def _check_line(value: str, what: str) -> None:
    if any(char in value for char in _FORBIDDEN_IN_LINE):
        raise EncodingError(
            f"SSE {what} must not contain a newline, carriage return or NUL: {value!r}"
        )


def sse_frame(json_bytes: bytes, event_id: Optional[str] = None) -> bytes:
    """One SSE frame around already-serialized compact JSON (which never holds a raw newline)."""
    if event_id is None:
        return b"data: " + json_bytes + b"\n\n"
    _check_line(event_id, "id")
    return b"id: " + event_id.encode() + b"\ndata: " + json_bytes + b"\n\n"


def sse_comment(text: str = "keepalive") -> bytes:
    """A comment frame (``: text``); clients ignore it, proxies see traffic."""
    _check_line(text, "comment")
    return b": " + text.encode() + b"\n\n"
