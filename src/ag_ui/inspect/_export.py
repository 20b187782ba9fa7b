"""Export a session as a recording: timed JSON Lines (with each run's request), plain JSON
Lines, SSE or protobuf frames, all read back by ``ag_ui.recording.read_recording``,
``agui verify`` and ``agui inspect FILE``.

What is never exported: request headers (the inspector does not keep them), SSE ids (a
detached run's resume key), credentials in the source URL, and values under secret-looking
keys of a request's ``forwardedProps`` (``Tap.redact``).
"""

from __future__ import annotations

import time
from typing import Optional
from urllib.parse import urlsplit, urlunsplit

from ag_ui.core.decoding import parse_any_event
from ag_ui.core.events import BaseEvent
from ag_ui.encoder import AGUI_MEDIA_TYPE, event_to_json, sse_frame
from ag_ui.inspect._session import RunInfo, Session
from ag_ui.recording import encode_event_line, encode_header, encode_input_line
from ag_ui.server import Tap

__all__ = ["EXPORT_FORMATS", "export_session", "public_source"]

EXPORT_FORMATS: dict[str, tuple[str, str]] = {
    "jsonl": ("application/x-ndjson", ".jsonl"),
    "events": ("application/x-ndjson", ".events.jsonl"),
    "sse": ("text/event-stream", ".sse"),
    "proto": (AGUI_MEDIA_TYPE, ".bin"),
    "pytest": ("text/x-python", "_test.py"),
}
"""Format -> (media type, file suffix). ``jsonl`` is the timed recording with requests;
``pytest`` a test module replaying it with the test kit (``ag_ui.testing``)."""


def public_source(source: Optional[str]) -> Optional[str]:
    """A URL without user info, query or fragment (where tokens hide); other text as is."""
    if not source or "://" not in source:
        return source
    parts = urlsplit(source)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def export_session(session: Session, fmt: str) -> bytes:
    """The whole session in ``fmt`` (one of ``EXPORT_FORMATS``)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "jsonl":
        return _timed_lines(session)
    if fmt == "pytest":
        from ag_ui.inspect._pytest_export import pytest_module

        return pytest_module(session, _timed_lines(session))
    pieces: list[bytes] = []
    if fmt == "proto":
        from ag_ui.proto import encode_frame  # needs the proto extra

        for row in session.rows:
            event = parse_any_event(row.wire_json)
            if not isinstance(event, BaseEvent):
                raise ValueError(
                    f"protobuf cannot carry the legacy {row.type} event (#{row.index})"
                )
            pieces.append(encode_frame(event))
    elif fmt == "sse":
        pieces.extend(sse_frame(row.wire_json.encode()) for row in session.rows)
    else:
        pieces.extend(row.wire_json.encode() + b"\n" for row in session.rows)
    return b"".join(pieces)


def _timed_lines(session: Session) -> bytes:
    lines = [
        encode_header(
            source=public_source(session.source),
            transport=session.transport,
            exportedBy="agui inspect",
            exportedAt=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            title=session.title,
        )
    ]
    runs = [run for run in session.runs if run.input is not None]
    for row in session.rows:
        while runs and runs[0].first_row <= row.index:
            lines.append(_input_line(runs.pop(0)))
        event = parse_any_event(row.wire_json)
        if row.at is None:
            lines.append(event_to_json(event) + b"\n")
        else:
            lines.append(encode_event_line(event, at=row.at))
    lines.extend(_input_line(run) for run in runs)  # requests that got no event back
    return b"".join(lines)


def _input_line(run: RunInfo) -> bytes:
    body = run.input or {}
    if "forwardedProps" in body:
        body = {**body, "forwardedProps": Tap.redact(body["forwardedProps"])}
    return encode_input_line(body, at=run.at or 0.0)
