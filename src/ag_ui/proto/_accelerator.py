"""The compiled fast paths (``_speedups``, from ``_c/``), when they were built and are wanted.

``speedups`` is the extension module, or None: the package was installed without a
C compiler, or ``AG_UI_PURE_PYTHON=1`` is set. Every caller keeps a pure-Python path that gives
the same bytes and the same events; the compiled one only makes them faster.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core._compiled import load_compiled

__all__ = ["IMPLEMENTATION", "speedups"]

speedups: Any = load_compiled("ag_ui.proto._speedups")

IMPLEMENTATION = "python" if speedups is None else "c"
"""Which fast paths run: ``"c"`` (the compiled ``_speedups``) or ``"python"``."""
