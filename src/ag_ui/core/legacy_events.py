"""The ``THINKING_*`` events that protocol 1.0 removed, kept so legacy streams still decode.

``ag_ui.core.parse_event`` reads them; ``ag_ui.verify``'s compatibility stage translates them to
``REASONING_*`` (PROTOCOL.md §1.4, §6.2). Nothing in this SDK emits them unless asked. Importing
these names from ``ag_ui.core`` warns ``DeprecationWarning``.
"""

# No ``from __future__ import annotations`` in the model modules: pydantic would compile and
# evaluate every string annotation at import (7 ms of ``import ag_ui.core``).
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import Field

from ag_ui.core._base import AGUIModel
from ag_ui.core.types import Metadata

__all__ = [
    "LEGACY_EVENT_TYPES",
    "LegacyEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "ThinkingTextMessageContentEvent",
    "ThinkingTextMessageEndEvent",
    "ThinkingTextMessageStartEvent",
]


class _LegacyEvent(AGUIModel):
    timestamp: Optional[int] = None
    raw_event: Optional[Any] = None
    metadata: Optional[Metadata] = None


class ThinkingStartEvent(_LegacyEvent):
    """Deprecated: became ``REASONING_START`` (``title`` has no 1.0 equivalent)."""

    type: Literal["THINKING_START"] = "THINKING_START"
    title: Optional[str] = None


class ThinkingEndEvent(_LegacyEvent):
    """Deprecated: became ``REASONING_END``."""

    type: Literal["THINKING_END"] = "THINKING_END"


class ThinkingTextMessageStartEvent(_LegacyEvent):
    """Deprecated: became ``REASONING_MESSAGE_START``."""

    type: Literal["THINKING_TEXT_MESSAGE_START"] = "THINKING_TEXT_MESSAGE_START"


class ThinkingTextMessageContentEvent(_LegacyEvent):
    """Deprecated: became ``REASONING_MESSAGE_CONTENT``."""

    type: Literal["THINKING_TEXT_MESSAGE_CONTENT"] = "THINKING_TEXT_MESSAGE_CONTENT"
    delta: str


class ThinkingTextMessageEndEvent(_LegacyEvent):
    """Deprecated: became ``REASONING_MESSAGE_END``."""

    type: Literal["THINKING_TEXT_MESSAGE_END"] = "THINKING_TEXT_MESSAGE_END"


LegacyEvent = Annotated[
    Union[
        ThinkingStartEvent,
        ThinkingEndEvent,
        ThinkingTextMessageStartEvent,
        ThinkingTextMessageContentEvent,
        ThinkingTextMessageEndEvent,
    ],
    Field(discriminator="type"),
]

LEGACY_EVENT_TYPES = frozenset(
    {
        "THINKING_START",
        "THINKING_END",
        "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END",
    }
)
