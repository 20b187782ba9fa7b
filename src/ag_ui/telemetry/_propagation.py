"""Trace context across HTTP: W3C ``traceparent`` out of the client, the run's trace id back.

Nothing here imports OpenTelemetry at module load: ``inject_current`` looks for it in
``sys.modules`` first, so a client whose application never imported OpenTelemetry pays one
dictionary lookup per request and sends nothing extra.

A detached run's resume key carries the span context of its ``invoke_agent`` span
(``<token>-<trace id>-<span id>``): every worker sharing the store can continue that trace
when a reader reconnects, with no field added to the ``RunStore`` contract (the users' stores
included). The token stays the unguessable part; the trace id is no secret (the
``x-ag-ui-trace-id`` header tells it to the browser anyway).
"""

from __future__ import annotations

import re
import sys
from collections.abc import MutableMapping
from typing import Optional

__all__ = [
    "TRACE_ID_HEADER",
    "inject_current",
    "key_with_span",
    "span_of_key",
]

TRACE_ID_HEADER = "x-ag-ui-trace-id"
"""Response header naming the run's trace id (32 lowercase hex digits), so that a browser can
link what it showed to the server's trace (docs/telemetry.md)."""

_KEY_SPAN = re.compile(r"-([0-9a-f]{32})-([0-9a-f]{16})\Z")


def inject_current(headers: MutableMapping[str, str]) -> None:
    """Add ``traceparent`` (and ``tracestate``) for the current span to ``headers``, when the
    application uses OpenTelemetry and a span is current; a ``traceparent`` the caller set is
    kept."""
    if "opentelemetry" not in sys.modules:
        return  # the application never imported OpenTelemetry: there is no context to carry
    if any(name.lower() == "traceparent" for name in headers):
        return
    try:
        from opentelemetry import propagate, trace
    except ImportError:  # a namespace package of another distribution, without the API
        return
    if not trace.get_current_span().get_span_context().is_valid:
        return
    propagate.inject(headers)


def key_with_span(token: str, trace_id: int, span_id: int) -> str:
    """A resume key carrying the run span's context after its random ``token``."""
    return f"{token}-{trace_id:032x}-{span_id:016x}"


def span_of_key(key: str) -> Optional[tuple[int, int]]:
    """(trace id, span id) of the run span a resume key carries, or ``None``."""
    match = _KEY_SPAN.search(key)
    if match is None or len(key) <= match.end() - match.start():
        return None
    trace_id, span_id = int(match.group(1), 16), int(match.group(2), 16)
    if trace_id == 0 or span_id == 0:
        return None
    return trace_id, span_id
