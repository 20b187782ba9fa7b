"""Kept importable: ``ag_ui.client.agent`` became ``ag_ui.client._agent``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._agent import (
    HttpAgent,
)

__all__ = ["HttpAgent"]
