"""One shared adapter for the ``Message`` union (building one per call costs milliseconds)."""

from __future__ import annotations

from pydantic import TypeAdapter

from ag_ui.core.types import Message

__all__ = ["MESSAGE_ADAPTER"]

MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)
