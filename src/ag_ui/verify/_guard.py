"""A clear error for something that is not an event model (e.g. a raw dict) fed to a stage."""

from __future__ import annotations

from typing import Any, NoReturn

from ag_ui.core.errors import AGUIValidationError

__all__ = ["not_an_event"]


def not_an_event(obj: Any) -> NoReturn:
    """Raise ``AGUIValidationError`` explaining how to turn ``obj`` into an event."""
    hint = (
        " (parse wire JSON with ag_ui.core.parse_any_event first)"
        if isinstance(obj, (dict, str, bytes))
        else ""
    )
    raise AGUIValidationError(
        "event", [f"expected an AG-UI event model, got {type(obj).__name__}{hint}"]
    )
