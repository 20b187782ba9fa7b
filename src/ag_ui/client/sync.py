"""Kept importable: ``ag_ui.client.sync`` became ``ag_ui.client._sync``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._sync import (
    SyncHttpAgent,
)

__all__ = ["SyncHttpAgent"]
