"""Protocol versions on the client side: the producer's declaration and the peer's ceiling.

The rules live in ``ag_ui.verify`` (``agui verify`` reports a producer's declaration the same
way); this module is their public home for client code. See ``ag_ui.verify._versions``.
"""

from __future__ import annotations

from ag_ui.verify._versions import (
    ProtocolVersionWarning,
    compare_declared_protocol,
    parse_version,
    warn_about_producer_declaration,
)

__all__ = [
    "ProtocolVersionWarning",
    "compare_declared_protocol",
    "parse_version",
    "warn_about_producer_declaration",
]
