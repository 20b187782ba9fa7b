"""Kept importable: ``ag_ui.client.decoding`` became ``ag_ui.client._decoding``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._decoding import (
    EventDecoder,
    ProtoEventDecoder,
    SSEEventDecoder,
    UnknownEventWarning,
    decoder_for_content_type,
)

__all__ = [
    "EventDecoder",
    "ProtoEventDecoder",
    "SSEEventDecoder",
    "UnknownEventWarning",
    "decoder_for_content_type",
]
