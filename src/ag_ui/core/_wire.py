"""Facts of the wire that every layer shares: the media types, the integer bound, type names,
and the one error for something fed to a stage that is not an event model.

They sit in ``core`` because the encoder, the protobuf codec, the verifier, the client and the
server all need them and none of those may depend on another for a constant.
"""

from typing import NoReturn

from ag_ui.core.errors import AGUIValidationError

__all__ = [
    "AGUI_MEDIA_TYPE",
    "IN_PROCESS_EXTENSION",
    "MAX_SAFE_INTEGER",
    "SSE_MEDIA_TYPE",
    "event_type_name",
    "not_an_event",
]

AGUI_MEDIA_TYPE = "application/vnd.ag-ui.event+proto"
"""The protobuf transport: each frame a 4-byte big-endian length, then one ``ag_ui.Event``."""

SSE_MEDIA_TYPE = "text/event-stream"
"""Server-Sent Events: each event one ``data:`` line of compact JSON."""

IN_PROCESS_EXTENSION = "ag_ui.in_process"
"""The ASGI scope extension an in-process test transport (``ag_ui.testing``) sets: no browser
sends such a request, so the server's ``Host`` check (``server/_local_guard.py``) skips it. No
server puts it in the scope of a request from a socket."""

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a JavaScript peer reads exactly (``Number.MAX_SAFE_INTEGER``); the
protocol's integers (timestamps, token counts) stay within plus or minus this."""


def event_type_name(event: object) -> str:
    """The wire name of an event's type (``"TEXT_MESSAGE_START"``), for any event-like object.

    Works for ``EventType`` members, plain strings (legacy or user-built events) and objects
    without a type (``"None"``), so error messages can always name what they got.

    >>> from ag_ui.core import RunStartedEvent
    >>> event_type_name(RunStartedEvent(thread_id="t", run_id="r"))
    'RUN_STARTED'
    """
    kind = getattr(event, "type", None)
    return str(getattr(kind, "value", kind))


def not_an_event(obj: object) -> NoReturn:
    """Raise ``AGUIValidationError`` explaining how to turn ``obj`` into an event."""
    hint = (
        " (parse wire JSON with ag_ui.core.parse_any_event first)"
        if isinstance(obj, (dict, str, bytes))
        else ""
    )
    raise AGUIValidationError(
        "event", [f"expected an AG-UI event model, got {type(obj).__name__}{hint}"]
    )
