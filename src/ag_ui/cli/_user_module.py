"""``MODULE:ATTRIBUTE`` of the user's, for ``agui serve --langgraph`` and ``--openai-agents``.

``MODULE`` is imported as Python imports it (the current directory first, so ``app:agent`` finds
``./app.py``). Each mistake is a ``ValueError`` naming the option and the fix, which the command
prints as its one line.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["load_attribute"]


def load_attribute(option: str, spec: str, example: str) -> Any:
    """The object ``spec`` (``MODULE:ATTRIBUTE``) names. ``example`` shows the form in the error
    (``"app:graph for the graph in ./app.py"``). A module that imports something missing is an
    ``ImportError`` naming it."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{option} takes MODULE:ATTRIBUTE (e.g. {example}), not {spec!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")  # as `python -m` does: the current directory's modules
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name.split(".")[0] or exc.name == module_name:
            raise ValueError(f"{option}: no module named {module_name!r}") from None
        raise ImportError(
            f"{option}: module {module_name!r} imports {exc.name!r}, which is not installed ({exc})"
        ) from None
    except ImportError as exc:
        raise ImportError(f"{option}: importing {module_name!r} failed: {exc}") from None
    except Exception as exc:  # the user's module failed while it was imported
        raise ValueError(
            f"{option}: importing {module_name!r} failed: {type(exc).__name__}: {exc} "
            f"(python -c 'import {module_name}' shows where)"
        ) from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"{option}: module {module_name!r} has no {attribute!r}") from None
