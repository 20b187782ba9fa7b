"""Kept importable: ``ag_ui.client.debug`` became ``ag_ui.client._debug``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._debug import (
    DebugConfig,
    DebugLog,
    DebugOption,
    resolve_debug,
)

__all__ = ["DebugConfig", "DebugLog", "DebugOption", "resolve_debug"]
