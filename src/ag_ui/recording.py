"""Recorded event streams: read any of the wire formats, and write timed recordings (sans-IO).

A recording is what a client received from an agent, kept in a file so it can be verified
(``agui verify``), converted (``agui convert``), served again (``agui replay``, the test kit's
scripted agent) or looked at (``agui inspect``). Four formats are read, detected from the first
bytes:

- **JSON Lines**: one wire-JSON event per line (``{"type": "RUN_STARTED", ...}``).
- **Timed JSON Lines**, what this SDK writes: JSON Lines whose lines may also be
  ``{"at": 0.0123, "event": {...}}`` (an event and its arrival time, seconds since the recording
  began), ``{"at": 0.0, "input": {...}}`` (the ``RunAgentInput`` of the run that starts there) and,
  first, one header ``{"aguiRecording": 1, "source": ..., "transport": "sse", ...}`` (``agui
  record`` adds ``recordedAt`` and the agent's ``capabilities``, which ``agui replay`` serves;
  readers ignore keys they do not know). Plain event lines may be mixed in; they carry no time.
  Request headers and tokens are never written (``source`` has no query or credentials).
- **SSE**: ``data:`` frames separated by a blank line (CRLF accepted).
- **Protobuf**: frames of a 4-byte big-endian length + ``ag_ui.Event``
  (``application/vnd.ag-ui.event+proto``).

Lines are split on ``\\n`` only: U+2028 and U+2029 inside JSON strings are content, not breaks.
Events of a type this SDK does not know are skipped (as the TypeScript client does) and listed
in ``Recording.skipped``. Anything else that is broken raises ``DecodeError`` naming the line or
frame.

>>> recording = read_recording(
...     encode_header(source="example")
...     + encode_input_line({"threadId": "t", "runId": "r", "messages": []}, at=0.0)
...     + encode_event_line({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}, at=0.25)
... )
>>> recording.format, recording.header["source"], [e.at for e in recording.runs[0].events]
('jsonl', 'example', [0.25])
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.core._surrogates import escape_lone_surrogates, refuse_constant
from ag_ui.core.decoding import AnyEvent, parse_any_event, parse_run_agent_input
from ag_ui.core.errors import AGUIValidationError, DecodeError, UnknownEventTypeError
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import SSEDecoder, event_to_json
from ag_ui.encoder.encoder import EventLike

__all__ = [
    "FORMATS",
    "RECORDING_VERSION",
    "Format",
    "RecordedEvent",
    "RecordedRun",
    "Recording",
    "detect_format",
    "encode_event_line",
    "encode_header",
    "encode_input_line",
    "read_events",
    "read_recording",
]

Format = Literal["jsonl", "sse", "proto"]
FORMATS: tuple[Format, ...] = ("jsonl", "sse", "proto")
RECORDING_VERSION = 1
"""The value of ``aguiRecording`` in the header line this module writes."""

_SSE_FIELDS = (b"data:", b":", b"id:", b"event:", b"retry:")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class RecordedEvent:
    """One event of a recording and, in a timed recording, when it arrived (seconds)."""

    event: AnyEvent
    at: Optional[float] = None
    line: Optional[int] = None
    """The line of a JSON Lines recording that held the event (1-based), for error messages."""


@dataclass
class RecordedRun:
    """The events of one run, and the request that started it when the recording has it."""

    input: Optional[RunAgentInput] = None
    at: Optional[float] = None
    events: list[RecordedEvent] = field(default_factory=list)


@dataclass
class Recording:
    """A whole recording: its format, header (``{}`` if none), runs and skipped unknown events."""

    format: Format
    header: dict[str, Any] = field(default_factory=dict)
    runs: list[RecordedRun] = field(default_factory=list)
    skipped: list[UnknownEventTypeError] = field(default_factory=list)

    @property
    def events(self) -> list[AnyEvent]:
        """Every event of every run, in order."""
        return [recorded.event for run in self.runs for recorded in run.events]

    @property
    def timed(self) -> bool:
        """True when every event carries its arrival time (it can be played back with timing)."""
        recorded = [event for run in self.runs for event in run.events]
        return bool(recorded) and all(event.at is not None for event in recorded)


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
    if not text:
        raise DecodeError("the recording is empty: expected JSON Lines, SSE or protobuf frames")
    raise DecodeError(
        f"cannot tell the input format from its first bytes {data[:16]!r}: expected JSON Lines "
        "('{'), SSE ('data:') or protobuf frames (a 4-byte length)"
    )


def read_recording(data: bytes, fmt: Optional[Format] = None) -> Recording:
    """Read a whole recording in ``fmt`` (detected when None)."""
    fmt = fmt or detect_format(data)
    recording = Recording(format=fmt)
    if fmt == "jsonl":
        _read_json_lines(data, recording)
    else:
        run = RecordedRun()
        recording.runs.append(run)
        reader = _read_proto if fmt == "proto" else _read_sse
        run.events.extend(RecordedEvent(event) for event in reader(data, recording.skipped))
    return recording


def read_events(
    data: bytes, fmt: Format, *, skipped: list[UnknownEventTypeError]
) -> Iterator[AnyEvent]:
    """The events of ``data`` in format ``fmt``, in order; unknown event types go to ``skipped``."""
    if fmt == "jsonl":
        recording = Recording(format=fmt, skipped=skipped)
        _read_json_lines(data, recording)
        yield from recording.events
    elif fmt == "proto":
        yield from _read_proto(data, skipped)
    else:
        yield from _read_sse(data, skipped)


def encode_header(
    *, source: Optional[str] = None, transport: Optional[str] = None, **extra: Any
) -> bytes:
    """The first line of a timed recording: format version, where it came from, and any extra
    JSON-able metadata (never request headers or tokens: the caller decides what goes here)."""
    header: dict[str, Any] = {"aguiRecording": RECORDING_VERSION}
    if source is not None:
        header["source"] = source
    if transport is not None:
        header["transport"] = transport
    header.update(extra)
    return _line(header)


def encode_input_line(run_input: Union[RunAgentInput, Mapping[str, Any]], *, at: float) -> bytes:
    """A line marking the start of a run, with the request body that started it."""
    if isinstance(run_input, RunAgentInput):
        body = run_input.model_dump(mode="json", by_alias=True, exclude_none=True)
    else:
        body = dict(run_input)
    return _line({"at": round(at, 6), "input": body})


def encode_event_line(event: EventLike, *, at: float) -> bytes:
    """A line holding one event (validated, compact wire JSON) and its arrival time."""
    return b'{"at":' + repr(round(at, 6)).encode() + b',"event":' + event_to_json(event) + b"}\n"


def _line(value: Mapping[str, Any]) -> bytes:
    # A message cut inside an emoji holds a lone surrogate (no UTF-8 form): written escaped.
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return escape_lone_surrogates(text).encode() + b"\n"


def _read_json_lines(data: bytes, recording: Recording) -> None:
    run: Optional[RecordedRun] = None
    index = 0
    first = True
    for number, line in enumerate(data.removeprefix(_BOM).split(b"\n"), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            value = json.loads(line, parse_constant=refuse_constant)
        except ValueError:
            _parse(line, index, where, recording.skipped)  # raises the SDK's own JSON error
            raise DecodeError(f"{where}: not JSON", frame_index=index) from None
        if not isinstance(value, dict):
            raise DecodeError(f"{where}: expected a JSON object", frame_index=index)
        is_first, first = first, False
        if "aguiRecording" in value and "type" not in value:
            if not is_first:
                raise DecodeError(f"{where}: a recording header may only be the first line")
            recording.header = value
            continue
        if "input" in value and "type" not in value:
            try:
                run_input = parse_run_agent_input(value["input"])
            except AGUIValidationError as exc:
                raise DecodeError(f"{where}: the run's input is invalid: {exc}") from None
            run = RecordedRun(input=run_input, at=_time(value, where))
            recording.runs.append(run)
            continue
        if "type" in value:
            payload, at = value, None
        elif isinstance(value.get("event"), dict):
            payload, at = value["event"], _time(value, where)
        else:
            raise DecodeError(
                f"{where}: neither an event (no 'type') nor a timed event ('at' and 'event')",
                frame_index=index,
            )
        if run is None:
            run = RecordedRun()
            recording.runs.append(run)
        for event in _parse(payload, index, where, recording.skipped):
            run.events.append(RecordedEvent(event, at, number))
        index += 1


def _time(value: Mapping[str, Any], where: str) -> Optional[float]:
    at = value.get("at")
    if at is None:
        return None
    if isinstance(at, bool) or not isinstance(at, (int, float)) or at < 0:
        raise DecodeError(f"{where}: 'at' must be a number of seconds >= 0, got {at!r}")
    return float(at)


def _parse(
    payload: Union[bytes, str, dict[str, Any]],
    index: int,
    where: str,
    skipped: list[UnknownEventTypeError],
) -> list[AnyEvent]:
    try:
        return [parse_any_event(payload)]
    except UnknownEventTypeError as exc:
        skipped.append(exc)
        return []
    except AGUIValidationError as exc:
        raise DecodeError(f"{where}: {exc}", frame_index=index) from None


def _read_sse(data: bytes, skipped: list[UnknownEventTypeError]) -> Iterator[AnyEvent]:
    decoder = SSEDecoder(max_event_size=max(len(data), 1))
    for index, message in enumerate(decoder.feed(data) + decoder.close()):
        yield from _parse(message.data, index, f"SSE event {index}", skipped)


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
