"""Encode AG-UI events for the wire: SSE frames, protobuf frames, Accept negotiation."""

from ag_ui.encoder._negotiation import negotiate_media_type, parse_accept
from ag_ui.encoder._sse import sse_comment, sse_frame
from ag_ui.encoder.encoder import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE, EventEncoder, event_to_json

__all__ = [
    "AGUI_MEDIA_TYPE",
    "SSE_MEDIA_TYPE",
    "EventEncoder",
    "event_to_json",
    "negotiate_media_type",
    "parse_accept",
    "sse_comment",
    "sse_frame",
]
