"""The verifier behind the server's sequence guard (``ag_ui.verify.EventVerifier``)."""

from __future__ import annotations

import importlib
from typing import Optional

from ag_ui.server._guard import Verifier

__all__ = ["make_verifier"]


def make_verifier() -> Optional[Verifier]:
    """A fresh verifier for one run, or ``None`` when ``ag_ui.verify`` is not available."""
    try:
        module = importlib.import_module("ag_ui.verify")
    except ImportError:
        return None
    verifier: Verifier = module.EventVerifier()
    return verifier
