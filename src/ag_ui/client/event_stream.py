"""Kept importable: ``ag_ui.client.event_stream`` became ``ag_ui.client._event_stream``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._event_stream import (
    AgentEventStream,
)
from ag_ui.core._aiter import closing

__all__ = ["AgentEventStream", "closing"]
