"""Loading an optional compiled module: the one ``AG_UI_PURE_PYTHON`` switch.

The C extensions (``ag_ui.core._json_speedups``, ``ag_ui.proto._speedups``) are built only
where a compiler was found, and every caller keeps a pure-Python path that gives the same
result. ``AG_UI_PURE_PYTHON=1`` turns them all off, for a test of the pure paths or to rule
the C out when chasing a bug, so each is loaded here and the switch is read in one place.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import Optional

__all__ = ["load_compiled"]


def load_compiled(name: str) -> Optional[ModuleType]:
    """The compiled module ``name``, or ``None`` when it was not built (an ``ImportError``)
    or ``AG_UI_PURE_PYTHON=1`` is set."""
    if os.environ.get("AG_UI_PURE_PYTHON") == "1":
        return None
    try:
        # ``__import__``, not ``importlib``: Python starts without ``importlib`` imported.
        __import__(name)
    except ImportError:
        return None
    return sys.modules[name]
