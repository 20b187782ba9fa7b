"""A graph's state values as AG-UI state: the messages key and LangGraph's own ``__`` keys left
out, every value made JSON (LangChain objects by their serializer, anything else by ``str``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["agui_state", "jsonable"]


def agui_state(values: Mapping[str, Any], messages_key: str) -> dict[str, Any]:
    """The AG-UI state of a graph's ``values`` (a ``values`` stream part, a checkpoint's)."""
    return {
        key: jsonable(value)
        for key, value in values.items()
        if key != messages_key and not key.startswith("__")
    }


def jsonable(value: Any) -> Any:
    """``value`` as JSON data."""
    try:
        return json.loads(json.dumps(value, default=_fallback))
    except (TypeError, ValueError):
        return str(value)


def _fallback(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
