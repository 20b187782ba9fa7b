"""The client's one seam onto ``ag_ui.verify`` / ``ag_ui.apply``: expand, verify, reduce.

Kept apart so the agent only needs ``expand`` (compatibility -> chunks -> verify) and ``apply``
(the default reducer), with subscribers running in between.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core.decoding import AnyEvent
from ag_ui.core.types import Message

__all__ = ["RunPipeline"]


class RunPipeline:
    """Per-run processing state. PROVISIONAL until the verify branch lands."""

    def __init__(self, messages: list[Message], state: Any, *, strict: bool = True) -> None:
        self.messages = messages
        self.state = state
        self.strict = strict

    def expand(self, event: AnyEvent) -> list[Any]:
        return [event]

    def apply(self, event: Any) -> None:
        return None

    def finish(self) -> None:
        return None
