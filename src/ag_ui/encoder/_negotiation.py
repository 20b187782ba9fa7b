"""Accept-header negotiation between SSE and the protobuf transport (DESIGN §4).

Protobuf is chosen only when the client names ``application/vnd.ag-ui.event+proto`` explicitly
with a q-value higher than SSE's. ``*/*``, a missing header and ties choose SSE: the TypeScript
encoder picks protobuf for ``*/*``, which hands curl and browsers a binary body.
"""

from __future__ import annotations

from typing import Optional

from ag_ui.core._wire import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE

__all__ = ["AGUI_MEDIA_TYPE", "SSE_MEDIA_TYPE", "negotiate_media_type", "parse_accept"]


def _split_outside_quotes(text: str, separator: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char == separator and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def parse_accept(accept: str) -> list[tuple[str, float]]:
    """``[(media_range, q), ...]`` in header order; malformed entries are skipped."""
    ranges: list[tuple[str, float]] = []
    for entry in _split_outside_quotes(accept, ","):
        pieces = _split_outside_quotes(entry, ";")
        media_range = pieces[0].strip().lower()
        if media_range.count("/") != 1:
            continue
        q = 1.0
        for param in pieces[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(value.strip().strip('"')), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        ranges.append((media_range, q))
    return ranges


def _quality(ranges: list[tuple[str, float]], media_type: str, *, wildcards: bool) -> float:
    """q of the most specific range matching ``media_type`` (RFC 9110 §12.5.1)."""
    kind = media_type.split("/", 1)[0]
    best_specificity = -1
    quality = 0.0
    for media_range, q in ranges:
        if media_range == media_type:
            specificity = 2
        elif wildcards and media_range == f"{kind}/*":
            specificity = 1
        elif wildcards and media_range == "*/*":
            specificity = 0
        else:
            continue
        if specificity > best_specificity:
            best_specificity, quality = specificity, q
    return quality


def negotiate_media_type(accept: Optional[str], *, protobuf_available: bool = True) -> str:
    """The media type to answer with: ``text/event-stream`` or the protobuf type.

    >>> negotiate_media_type("application/vnd.ag-ui.event+proto, text/event-stream;q=0.5")
    'application/vnd.ag-ui.event+proto'
    >>> negotiate_media_type("*/*")
    'text/event-stream'
    """
    if not accept or not protobuf_available:
        return SSE_MEDIA_TYPE
    ranges = parse_accept(accept)
    proto_q = _quality(ranges, AGUI_MEDIA_TYPE, wildcards=False)
    sse_q = _quality(ranges, SSE_MEDIA_TYPE, wildcards=True)
    return AGUI_MEDIA_TYPE if proto_q > 0 and proto_q > sse_q else SSE_MEDIA_TYPE
