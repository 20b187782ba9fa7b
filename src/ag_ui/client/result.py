"""Kept importable: ``ag_ui.client.result`` became ``ag_ui.client._result``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._result import (
    RunAgentResult,
)

__all__ = ["RunAgentResult"]
