"""The compiled fast paths (``_speedups``, from ``_c/``), when they were built and are wanted.

``speedups`` is the extension module, or None: the package was installed without a
C compiler, or ``AG_UI_PURE_PYTHON=1`` is set. Every caller keeps a pure-Python path that gives
the same bytes and the same events; the compiled one only makes them faster.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["IMPLEMENTATION", "speedups"]


def _load() -> Any:
    if os.environ.get("AG_UI_PURE_PYTHON") == "1":
        return None
    try:
        from ag_ui.proto import _speedups
    except ImportError:
        return None
    return _speedups


speedups = _load()

IMPLEMENTATION = "python" if speedups is None else "c"
"""Which fast paths run: ``"c"`` (the compiled ``_speedups``) or ``"python"``."""
