"""Response bytes -> events with their SSE ids, for graders and recorders (sans-IO).

The client's decoders hand out events only; a test kit also needs each event's SSE ``id`` (to
check a reconnect, to keep it in a recording) and wants unknown event types listed rather than
warned about. Built on the public ``SSEDecoder`` and ``ag_ui.proto.FrameDecoder``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Optional

from ag_ui.core._wire import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE
from ag_ui.core.decoding import AnyEvent, parse_any_event
from ag_ui.core.errors import (
    AGUIValidationError,
    DecodeError,
    MalformedJSONError,
    UnknownEventTypeError,
)
from ag_ui.encoder import SSEDecoder

__all__ = ["Decoded", "StreamDecoder", "Undecodable", "is_event_stream", "media_type"]

_MAX_EVENT = 10 * 1024 * 1024


def media_type(content_type: Optional[str]) -> str:
    """``text/event-stream; charset=utf-8`` -> ``text/event-stream``."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_event_stream(content_type: Optional[str]) -> bool:
    """SSE or protobuf frames (parameters ignored)."""
    return media_type(content_type) in (SSE_MEDIA_TYPE, AGUI_MEDIA_TYPE)


@dataclass(frozen=True)
class Decoded:
    """One decoded frame: the event, or the description of a skipped unknown event type."""

    index: int
    event: Optional[AnyEvent] = None
    sse_id: Optional[str] = None
    skipped: Optional[str] = None


class Undecodable(DecodeError):
    """A frame that breaks the stream; ``rule`` is ``wire.frame`` or ``wire.schema``."""

    def __init__(self, message: str, *, rule: str, frame_index: int) -> None:
        super().__init__(message, frame_index=frame_index)
        self.rule = rule


class StreamDecoder:
    """Decodes one response body of ``content_type`` (SSE or protobuf frames)."""

    def __init__(self, content_type: Optional[str]) -> None:
        kind = media_type(content_type)
        if kind not in (SSE_MEDIA_TYPE, AGUI_MEDIA_TYPE):
            raise ValueError(f"not an event stream: {content_type!r}")
        self.proto = kind == AGUI_MEDIA_TYPE
        self._index = 0
        self._sse = SSEDecoder(max_event_size=_MAX_EVENT)
        self._frames: Any = None
        if self.proto:
            self._frames = importlib.import_module("ag_ui.proto").FrameDecoder(
                max_frame_size=_MAX_EVENT
            )

    def feed(self, chunk: bytes) -> list[Decoded]:
        if self.proto:
            return self._proto(chunk, close=False)
        try:
            messages = self._sse.feed(chunk)
        except DecodeError as exc:
            raise Undecodable(str(exc), rule="wire.frame", frame_index=self._index) from exc
        return [self._sse_event(message.data, message.id) for message in messages]

    def close(self) -> list[Decoded]:
        """End of body: a final frame without its blank line, or a truncated-frame error."""
        if self.proto:
            return self._proto(b"", close=True)
        return [self._sse_event(message.data, message.id) for message in self._sse.close()]

    def _next(self) -> int:
        index = self._index
        self._index += 1
        return index

    def _sse_event(self, data: str, sse_id: Optional[str]) -> Decoded:
        index = self._next()
        try:
            return Decoded(index, parse_any_event(data), sse_id)
        except UnknownEventTypeError as exc:
            return Decoded(index, None, sse_id, f"unknown event type {exc.event_type!r}")
        except MalformedJSONError as exc:
            shown = data if len(data) <= 120 else data[:117] + "..."
            raise Undecodable(
                f"not JSON ({exc.problems[0]}): {shown!r}",
                rule="wire.frame",
                frame_index=index,
            ) from exc
        except AGUIValidationError as exc:
            raise Undecodable(
                f"not a valid event: {exc}", rule="wire.schema", frame_index=index
            ) from exc

    def _proto(self, chunk: bytes, *, close: bool) -> list[Decoded]:
        out: list[Decoded] = []
        data = chunk
        while True:
            try:
                events = self._frames.feed(data)
            except UnknownEventTypeError:
                # The frame decoder consumed only that frame; feeding b"" resumes after it.
                out.append(Decoded(self._next(), skipped="an event kind this SDK does not know"))
                data = b""
                continue
            except DecodeError as exc:
                raise Undecodable(str(exc), rule="wire.frame", frame_index=self._index) from exc
            except AGUIValidationError as exc:
                raise Undecodable(
                    f"not a valid event: {exc}",
                    rule="wire.schema",
                    frame_index=self._index,
                ) from exc
            out.extend(Decoded(self._next(), event) for event in events)
            break
        if close:
            try:
                out.extend(Decoded(self._next(), event) for event in self._frames.close())
            except DecodeError as exc:
                raise Undecodable(str(exc), rule="wire.frame", frame_index=self._index) from exc
        return out
