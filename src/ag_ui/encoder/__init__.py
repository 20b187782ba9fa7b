"""Encode AG-UI events for the wire (SSE frames, protobuf frames, Accept negotiation) and
decode SSE (``SSEDecoder``, sans-IO)."""

from ag_ui.encoder._negotiation import negotiate_media_type, parse_accept
from ag_ui.encoder._sse import sse_comment, sse_frame
from ag_ui.encoder.encoder import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE, EventEncoder, event_to_json
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE, SSEDecoder, SSEMessage

__all__ = [
    "AGUI_MEDIA_TYPE",
    "DEFAULT_MAX_EVENT_SIZE",
    "SSE_MEDIA_TYPE",
    "EventEncoder",
    "SSEDecoder",
    "SSEMessage",
    "event_to_json",
    "negotiate_media_type",
    "parse_accept",
    "sse_comment",
    "sse_frame",
]
