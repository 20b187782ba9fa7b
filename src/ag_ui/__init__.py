"""The complete Python SDK for the AG-UI (Agent-User Interaction) protocol.

``ag_ui.core`` holds the protocol models, ``ag_ui.encoder`` the wire encoder; the other
subpackages (client, server, verifier, reducer, protobuf) build on them.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
