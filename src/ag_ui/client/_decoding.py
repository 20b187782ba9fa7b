"""Bytes from the wire to typed events: SSE or protobuf frames, chosen by content type. Sans-IO.

Both decoders share one shape, ``feed(bytes) -> list[event]`` and ``close() -> list[event]``, so
the HTTP shell does not care which transport the agent answered with.

>>> decoder = SSEEventDecoder()
>>> frame = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\\n\\n'
>>> [type(e).__name__ for e in decoder.feed(frame)]
['RunStartedEvent']
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Optional, Protocol

from ag_ui.core.decoding import AnyEvent, parse_any_event
from ag_ui.core.errors import (
    AGUIValidationError,
    ContentTypeError,
    DecodeError,
    MalformedJSONError,
    UnknownEventArmError,
    UnknownEventTypeError,
)
from ag_ui.encoder import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE, SSEDecoder
from ag_ui.verify._received import without_unknown_roles

if TYPE_CHECKING:
    from ag_ui.proto import FrameDecoder

__all__ = [
    "EventDecoder",
    "ProtoEventDecoder",
    "SSEEventDecoder",
    "UnknownEventWarning",
    "decoder_for_content_type",
]


class UnknownEventWarning(UserWarning):
    """An event of a type this SDK does not know was skipped (it may come from a newer protocol)."""


class EventDecoder(Protocol):
    """What the HTTP shell needs from a transport decoder."""

    events_decoded: int

    def feed(self, chunk: bytes) -> list[AnyEvent]: ...

    def close(self) -> list[AnyEvent]: ...


class SSEEventDecoder:
    """SSE bytes to events. Each message's ``data`` is one event as JSON.

    Errors carry the zero-based index of the SSE message that broke (``DecodeError.frame_index``)
    with the parser's error as ``__cause__``: ``MalformedJSONError`` when the data is not JSON,
    ``AGUIValidationError`` when a known event has wrong fields. An event of unknown type is
    skipped with an ``UnknownEventWarning`` (forward compatibility, as the TypeScript client does).
    ``last_event_id`` is the SSE id of the last message decoded (skipped ones included), the
    resume point after a dropped connection.
    """

    def __init__(self, *, max_event_size: int = DEFAULT_MAX_EVENT_SIZE) -> None:
        self.sse = SSEDecoder(max_event_size=max_event_size)
        self.events_decoded = 0
        self.skipped_unknown = 0
        self.last_event_id: Optional[str] = None  # the id of the last message handed out
        self._index = 0
        self._failed: Optional[DecodeError] = None  # raised once the events before it are out

    def feed(self, chunk: bytes) -> list[AnyEvent]:
        """Consume bytes; return the events they completed."""
        self.raise_deferred()
        return self._parse(self.sse.feed_payloads(chunk))

    def close(self) -> list[AnyEvent]:
        """End of stream: the event of an unterminated final message, if any."""
        self.raise_deferred()
        return self._parse(self.sse.close_payloads())

    def raise_deferred(self) -> None:
        """Raise the ``DecodeError`` of an event that followed the last events handed out."""
        failed, self._failed = self._failed, None
        if failed is not None:
            raise failed

    def _parse(self, payloads: list[tuple[bytes, Optional[str]]]) -> list[AnyEvent]:
        events: list[AnyEvent] = []
        if not payloads:
            return events
        append, parse = events.append, parse_any_event
        for index, (data, event_id) in enumerate(payloads, self._index):
            try:
                # JSON straight from the UTF-8 bytes; text only when they are not valid UTF-8
                # (the SSE rules replace the bad bytes, and so must we).
                try:
                    append(parse(data))
                except MalformedJSONError:
                    append(parse(data.decode("utf-8", "replace")))
                except AGUIValidationError:
                    # A snapshot's message of an unknown role is dropped with a warning (1.1's
                    # strip-with-warning rule, as @ag-ui/client does); other errors stand.
                    stripped = without_unknown_roles(data)
                    if stripped is None:
                        raise
                    append(parse(stripped))
            except UnknownEventTypeError as exc:
                self.skipped_unknown += 1
                warnings.warn(
                    f"skipped event {index} of unknown type {exc.event_type!r} "
                    "(from a newer protocol version?)",
                    UnknownEventWarning,
                    stacklevel=2,
                )
            except AGUIValidationError as exc:
                self._index, self.last_event_id = index + 1, event_id
                self.events_decoded += len(events)
                text = data.decode("utf-8", "replace")
                if isinstance(exc, MalformedJSONError):
                    detail = f"{exc.problems[0]}: {_snippet(text)}"
                    failure = DecodeError(
                        f"event {index} is not JSON ({detail})", frame_index=index
                    )
                else:
                    failure = DecodeError(f"event {index} is invalid: {exc}", frame_index=index)
                failure.__cause__ = exc
                if not events:
                    raise failure from exc
                # The events before the bad one arrived whole: the consumer gets them first
                # (as the TypeScript client delivers RUN_STARTED before rejecting what follows),
                # and the next feed() or close() raises.
                self._failed = failure
                return events
        self._index += len(payloads)
        self.last_event_id = payloads[-1][1]
        self.events_decoded += len(events)
        return events


def _snippet(text: str, limit: int = 120) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


class ProtoEventDecoder:
    """Length-prefixed protobuf frames to events (wraps ``ag_ui.proto.FrameDecoder``).

    Needs the ``proto`` extra. A frame that carries only an event kind this SDK does not know
    (a newer protocol) is skipped with an ``UnknownEventWarning``, like an unknown SSE event;
    other broken frames raise ``DecodeError`` subclasses carrying ``frame_index``.
    """

    def __init__(self, *, max_event_size: int = DEFAULT_MAX_EVENT_SIZE) -> None:
        try:
            proto = importlib.import_module("ag_ui.proto")
        except ImportError as exc:
            raise ImportError(
                "the agent answered with protobuf frames; install the 'proto' extra: "
                "pip install 'ag-ui-sdk[proto]'"
            ) from exc
        self._frames: FrameDecoder = proto.FrameDecoder(max_frame_size=max_event_size)
        self.events_decoded = 0
        self.skipped_unknown = 0

    def feed(self, chunk: bytes) -> list[AnyEvent]:
        """Consume bytes; return the events of the frames they completed."""
        events: list[AnyEvent] = []
        data = chunk
        while True:
            try:
                events.extend(self._frames.feed(data))
                break
            except UnknownEventArmError as exc:
                # The frame decoder consumed only that frame; feed(b"") resumes after it.
                self.skipped_unknown += 1
                warnings.warn(
                    f"skipped frame {exc.frame_index}: an event kind this SDK does not know "
                    "(from a newer protocol version?)",
                    UnknownEventWarning,
                    stacklevel=2,
                )
                data = b""
        self.events_decoded += len(events)
        return events

    @property
    def frames_seen(self) -> int:
        """Frames decoded so far, skipped ones included (the resume position counts them)."""
        return self.events_decoded + self.skipped_unknown

    def close(self) -> list[AnyEvent]:
        """End of stream; ``TruncatedFrameError`` if the last frame was cut off."""
        events: list[AnyEvent] = list(self._frames.close())
        self.events_decoded += len(events)
        return events


def _media_type(content_type: Optional[str]) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def decoder_for_content_type(
    content_type: Optional[str],
    *,
    max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
    snippet: str = "",
) -> EventDecoder:
    """The decoder for a response ``Content-Type``; ``ContentTypeError`` for anything else.

    Stricter than the TypeScript client (which treats every non-protobuf body as SSE): an HTML
    error page from a proxy is reported as what it is instead of as broken events.
    """
    media_type = _media_type(content_type)
    if media_type == SSE_MEDIA_TYPE:
        return SSEEventDecoder(max_event_size=max_event_size)
    if media_type == AGUI_MEDIA_TYPE:
        return ProtoEventDecoder(max_event_size=max_event_size)
    raise ContentTypeError(content_type or "", snippet=snippet)


def is_known_content_type(content_type: Optional[str]) -> bool:
    """True for the two event-stream media types."""
    return _media_type(content_type) in (SSE_MEDIA_TYPE, AGUI_MEDIA_TYPE)
