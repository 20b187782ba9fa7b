"""``Rule``: one entry of the rule catalogue (``ag_ui.testing.rules``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Rule", "Severity"]

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Rule:
    """One check: ``id`` (stable), a short ``title``, the ``fix`` a person can apply, the
    ``ag-ui-validate`` ids it corresponds to, its ``severity`` and ``family``
    (``"stream"`` or ``"scenario"``)."""

    id: str
    title: str
    fix: str
    agui: tuple[str, ...] = ()
    severity: Severity = "error"
    family: Literal["stream", "scenario"] = "stream"
