"""Kept importable: ``ag_ui.client.reconnect`` became ``ag_ui.client._reconnect``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._reconnect import (
    Reconnect,
    ReconnectPolicy,
    connect_url,
    resumable_events,
)

__all__ = ["Reconnect", "ReconnectPolicy", "connect_url", "resumable_events"]
