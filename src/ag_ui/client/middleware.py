"""Kept importable: ``ag_ui.client.middleware`` became ``ag_ui.client._middleware``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._middleware import (
    FilterToolCallsMiddleware,
    FunctionMiddleware,
    Middleware,
    MiddlewareFunction,
    NextAgent,
    chain,
)

__all__ = [
    "FilterToolCallsMiddleware",
    "FunctionMiddleware",
    "Middleware",
    "MiddlewareFunction",
    "NextAgent",
    "chain",
]
