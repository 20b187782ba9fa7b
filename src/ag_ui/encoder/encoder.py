"""``EventEncoder``: events to SSE text/bytes or protobuf frames, chosen by the Accept header.

Drop-in for the official ``ag_ui.encoder.EventEncoder`` (``encode`` returns SSE text), and more:
``encode`` also takes a plain dict, an optional SSE ``id``, keepalive comments, bytes output for
servers, and Accept negotiation (DESIGN §4).

>>> from ag_ui.core import TextMessageContentEvent
>>> EventEncoder().encode(TextMessageContentEvent(message_id="m1", delta="hi"))
'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}\\n\\n'
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import Any, Optional, Union

from pydantic_core import PydanticSerializationError

from ag_ui.core import _json_plans
from ag_ui.core._base import AGUIModel
from ag_ui.core._surrogates import escaped_json, wire_json
from ag_ui.core.decoding import parse_any_event
from ag_ui.core.errors import EncodingError
from ag_ui.core.events import BaseEvent
from ag_ui.core.legacy_events import LEGACY_EVENT_TYPES
from ag_ui.encoder._negotiation import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE, negotiate_media_type
from ag_ui.encoder._sse import sse_comment, sse_frame

__all__ = ["AGUI_MEDIA_TYPE", "SSE_MEDIA_TYPE", "EventEncoder", "event_to_json"]

EventLike = Union[BaseEvent, AGUIModel, Mapping[str, Any]]

# Every event class inherits this one unless it overrides model_dump_json.
_MODEL_DUMP_JSON = BaseEvent.model_dump_json

# The compiled writers of the flat events (core/_json_plans.py): the exact classes of the Event
# union only (a subclass, which may override model_dump_json, is not theirs), None for what
# they do not handle. Same bytes as pydantic-core's to_json, 0.1-0.3 µs instead of 0.7-1.1 µs.
_write_sse_text = _json_plans.write_sse_text
_write_sse_bytes = _json_plans.write_sse_bytes
_write_json = _json_plans.write_json


def _as_event(event: EventLike) -> AGUIModel:
    if isinstance(event, BaseEvent):
        return event
    if isinstance(event, AGUIModel) and getattr(event, "type", None) in LEGACY_EVENT_TYPES:
        return event
    if isinstance(event, Mapping):
        # Validated into the class its "type" names; bad content raises AGUIValidationError.
        return parse_any_event(event)
    raise EncodingError(
        f"cannot encode {type(event).__name__}: expected an AG-UI event (BaseEvent subclass) "
        'or a dict with a known "type"'
    )


def event_to_json(event: EventLike) -> bytes:
    """Compact wire JSON of one event (camelCase, unset optionals left out); a subclass's own
    ``model_dump_json`` override is honoured. A lone surrogate in a string (``"\\ud83d"``, which
    ``json.loads`` gives for a string cut inside an emoji) is written as its escape."""
    fast = _write_json(event)
    if fast is not None:
        return fast
    model = _as_event(event)
    if type(model).model_dump_json is not _MODEL_DUMP_JSON:
        try:
            return model.model_dump_json(by_alias=True).encode()
        except PydanticSerializationError as exc:
            return escaped_json(model, exc)
    # Calling the class serializer directly (in wire_json) skips model_dump_json's Python-level
    # argument handling; same bytes, measured ~2.5x faster per event.
    return wire_json(model)


@functools.cache
def _flat_frame_writer() -> Any:
    """``ag_ui.proto``'s writer of the flat events' frames alone (``encode_flat``:
    ``(event, True) -> bytes | None``), for ``encode_binary``, which runs per event."""
    return importlib.import_module("ag_ui.proto._framing").encode_flat_frame


@functools.cache
def _protobuf_codec() -> Any:
    """The protobuf codec module, or None when ``ag_ui.proto`` or protobuf is not installed."""
    try:
        return importlib.import_module("ag_ui.proto")
    except ImportError:
        return None


class EventEncoder:
    """Encodes events for one response, in the format negotiated from ``accept``.

    Two pairs, each a body and the ``Content-Type`` that describes it:

    * ``encode()`` returns SSE text (the official API) and ``get_content_type()`` is always
      ``text/event-stream``, so an integration that writes ``encode()`` under
      ``get_content_type()`` never labels SSE text as protobuf;
    * ``encode_binary()`` returns bytes in the negotiated format (protobuf when the client asked
      for it first and protobuf is installed, else SSE) and ``get_binary_content_type()`` is that
      format's media type: what a server that negotiates writes.
    """

    def __init__(self, accept: Optional[str] = None) -> None:
        self.accept = accept
        codec = _protobuf_codec()
        self.media_type = negotiate_media_type(accept, protobuf_available=codec is not None)
        # Looked up once: encode_binary runs per event.
        self._encode_frame: Any = codec.encode_frame if self.media_type == AGUI_MEDIA_TYPE else None
        self._flat_frame = _flat_frame_writer() if self._encode_frame is not None else None

    def get_content_type(self) -> str:
        """The ``Content-Type`` of what ``encode()`` returns: always ``text/event-stream``.

        As the official encoder answers. The negotiated format is ``get_binary_content_type()``.
        """
        return SSE_MEDIA_TYPE

    def get_binary_content_type(self) -> str:
        """The ``Content-Type`` of what ``encode_binary()`` returns: the negotiated media type
        (``application/vnd.ag-ui.event+proto`` or ``text/event-stream``)."""
        return self.media_type

    @property
    def is_protobuf(self) -> bool:
        return self.media_type == AGUI_MEDIA_TYPE

    def encode(self, event: EventLike, *, event_id: Optional[str] = None) -> str:
        """One SSE frame as text: ``data: <json>\\n\\n`` (with ``id:`` first when given).

        A subclass that overrides ``model_dump_json`` is written with its override, as the
        official encoder (which calls ``model_dump_json``) writes it.
        """
        if event_id is None:
            text = _write_sse_text(event)
            if text is not None:
                return text
        if event_id is None and isinstance(event, BaseEvent):
            if type(event).model_dump_json is not _MODEL_DUMP_JSON:
                return f"data: {event.model_dump_json(by_alias=True)}\n\n"
            # The hot path of every producer, inlined: ~0.35 µs of a ~1.1 µs event.
            try:
                json_bytes = event.__pydantic_serializer__.to_json(event, by_alias=True)
            except PydanticSerializationError as exc:
                json_bytes = escaped_json(event, exc)
            return f"data: {json_bytes.decode()}\n\n"
        return sse_frame(event_to_json(event), event_id).decode()

    def _encode_sse(self, event: EventLike) -> str:
        """The official encoder's SSE method, which 0.x and 1.0.0 callers call: ``encode``."""
        return self.encode(event)

    def encode_sse(self, event: EventLike, *, event_id: Optional[str] = None) -> bytes:
        """One SSE frame as UTF-8 bytes, whatever was negotiated."""
        if event_id is None:
            frame = _write_sse_bytes(event)
            if frame is not None:
                return frame
        else:
            json_bytes = _write_json(event)
            if json_bytes is not None:
                return sse_frame(json_bytes, event_id)
        if (
            event_id is None
            and isinstance(event, BaseEvent)
            and type(event).model_dump_json is _MODEL_DUMP_JSON
        ):
            return b"data: " + wire_json(event) + b"\n\n"
        return sse_frame(event_to_json(event), event_id)

    def encode_binary(self, event: EventLike, *, event_id: Optional[str] = None) -> bytes:
        """One frame in the negotiated format: a length-prefixed protobuf message or SSE bytes.

        Protobuf frames carry no id; resumable streams pass the position out of band.
        """
        flat_frame = self._flat_frame
        if flat_frame is not None:
            # The flat events' writer called here directly: through encode_frame and _as_event,
            # two more Python calls cost ~2,000 instructions per event, more than the compiled
            # write itself (benchmarks/README.md, Protobuf). None: not a flat event (or a dict).
            frame: Optional[bytes] = flat_frame(event, True)
            if frame is not None:
                return frame
            encoded: bytes = self._encode_frame(_as_event(event))
            return encoded
        return self.encode_sse(event, event_id=event_id)

    def encode_keepalive(self, comment: str = "keepalive") -> bytes:
        """An SSE comment frame; empty for protobuf, which has no comment frames."""
        return b"" if self.is_protobuf else sse_comment(comment)
