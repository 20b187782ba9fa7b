"""Kept importable: ``ag_ui.client.transport`` became ``ag_ui.client._transport``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._transport import (
    AbortSignal,
    ConnectionLostError,
    accept_header,
    fetch_capabilities,
    new_http_client,
    stream_events,
)

__all__ = [
    "AbortSignal",
    "ConnectionLostError",
    "accept_header",
    "fetch_capabilities",
    "new_http_client",
    "stream_events",
]
