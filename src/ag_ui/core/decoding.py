"""Parse events and run input from JSON text, bytes or dicts, with readable errors.

A lone UTF-16 surrogate escape (``"\\ud83d"``, what ``JSON.stringify`` writes for a string cut
inside an emoji) is legal JSON that pydantic's parser refuses; it is read as Python's
``json.loads`` reads it, a ``str`` holding that one surrogate code point, so JSON text, bytes
and dicts give the same event (the TypeScript client keeps it in its string too).

>>> parse_event('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}').delta
'hi'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional, TypeVar, Union, cast

from pydantic import TypeAdapter, ValidationError

from ag_ui.core._readable import readable_problems
from ag_ui.core._surrogates import (
    is_json_invalid,
    refuse_non_json_constants,
    validate_wire_json,
)
from ag_ui.core.errors import AGUIValidationError, MalformedJSONError, UnknownEventTypeError
from ag_ui.core.events import Event
from ag_ui.core.legacy_events import LEGACY_EVENT_TYPES, LegacyEvent
from ag_ui.core.types import RunAgentInput

__all__ = [
    "EVENT_ADAPTER",
    "AnyEvent",
    "parse_any_event",
    "parse_event",
    "parse_run_agent_input",
]

JSONInput = Union[str, bytes, bytearray, memoryview, Mapping[str, Any]]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
"""The one adapter for the ``Event`` union (building one per event costs milliseconds)."""

AnyEvent = Union[Event, LegacyEvent]
_LEGACY_ADAPTER: TypeAdapter[LegacyEvent] = TypeAdapter(LegacyEvent)


def _as_python(data: JSONInput, what: str) -> Any:
    if isinstance(data, Mapping):
        return data
    # Only error reporting needs the text parsed in Python: importing ``json`` here keeps it out
    # of ``import ag_ui.core`` (2 ms), which parses with pydantic-core.
    import json

    try:
        return json.loads(bytes(data) if isinstance(data, memoryview) else data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedJSONError(what, str(exc)) from None


_T = TypeVar("_T")


def _validate(adapter: TypeAdapter[_T], data: JSONInput, what: str) -> _T:
    if isinstance(data, Mapping):
        return cast(_T, adapter.validator.validate_python(data))
    return validate_wire_json(adapter, bytes(data) if isinstance(data, memoryview) else data, what)


# The compiled validator itself: TypeAdapter's Python wrapper costs about a third of a small
# event's decode (measured 0.85 -> 0.64 ms on the 558-event stream mix).
_validate_event_json = EVENT_ADAPTER.validator.validate_json


def _read_first(data: Union[str, bytes]) -> Optional[Event]:
    """The compiled reader of the flat events (``_json_plans``), bound on the first decode: its
    plans cost 3 ms to build, which ``import ag_ui.core`` does not pay."""
    global _read
    from ag_ui.core import _json_plans

    _read = _json_plans.read
    return _read(data)


# Wire JSON of a flat event -> the event, or None (pydantic's path below decides and names
# the errors): 0.2-0.4 µs against pydantic's 1.3 µs for a small event.
_read: Callable[[Union[str, bytes]], Optional[Event]] = _read_first


def _event_error(exc: ValidationError, data: JSONInput) -> AGUIValidationError:
    python = _as_python(data, "event")
    if not isinstance(python, Mapping):
        return AGUIValidationError(
            "event", [f"expected a JSON object, got {type(python).__name__}"]
        )
    event_type = python.get("type")
    if event_type is None:
        return AGUIValidationError("event", ['missing required field "type"'])
    if not isinstance(event_type, str) or not event_type:
        return AGUIValidationError(
            "event", [f'"type" must be a non-empty string, got {event_type!r}']
        )
    if any(e["type"] == "union_tag_invalid" and not e["loc"] for e in exc.errors()):
        return UnknownEventTypeError(event_type)
    return AGUIValidationError(f"{event_type} event", readable_problems(exc, python))


def parse_event(data: JSONInput) -> Event:
    """Parse one protocol 1.0 event from JSON text/bytes or a dict (wire or Python names).

    Raises ``UnknownEventTypeError`` for a type this SDK does not know (including the removed
    ``THINKING_*``; use ``parse_any_event`` for legacy streams), ``MalformedJSONError`` for text
    that is not JSON, and ``AGUIValidationError`` naming each wrong field otherwise.
    """
    try:
        if type(data) is bytes or type(data) is str:  # the decoder's hot path
            event = _read(data)  # never reads NaN/Infinity: it leaves them to the path below
            if event is not None:
                return event
            refuse_non_json_constants(data, "event")
            try:
                return cast(Event, _validate_event_json(data))
            except ValidationError as exc:
                if not is_json_invalid(exc):
                    raise
        # NaN/Infinity refused by validate_wire_json (the one reader).
        return _validate(EVENT_ADAPTER, data, "event")
    except ValidationError as exc:
        if is_json_invalid(exc):
            raise MalformedJSONError("event", exc.errors()[0]["msg"]) from None
        raise _event_error(exc, data) from None


def parse_any_event(data: JSONInput) -> AnyEvent:
    """Like ``parse_event``, but also reads the removed 0.x ``THINKING_*`` events."""
    try:
        return parse_event(data)
    except UnknownEventTypeError as exc:
        if exc.event_type not in LEGACY_EVENT_TYPES:
            raise
        try:
            return _validate(_LEGACY_ADAPTER, data, "event")
        except ValidationError as legacy_exc:
            problems = readable_problems(legacy_exc, _as_python(data, "event"))
            raise AGUIValidationError(f"{exc.event_type} event", problems) from None


_RUN_INPUT_ADAPTER: TypeAdapter[RunAgentInput] = TypeAdapter(RunAgentInput)


def parse_run_agent_input(body: JSONInput) -> RunAgentInput:
    """Parse a run request body into ``RunAgentInput`` (what a server does with each POST).

    Errors name the wire path: ``messages[0] (role "user"): missing required field "id"``.
    Text with ``NaN`` or ``Infinity`` as a value is refused (``MalformedJSONError``): they are
    not JSON.
    """
    try:
        return _validate(_RUN_INPUT_ADAPTER, body, "RunAgentInput")
    except ValidationError as exc:
        if is_json_invalid(exc):
            raise MalformedJSONError("RunAgentInput", exc.errors()[0]["msg"]) from None
        python = _as_python(body, "RunAgentInput")
        raise AGUIValidationError("RunAgentInput", readable_problems(exc, python)) from None
