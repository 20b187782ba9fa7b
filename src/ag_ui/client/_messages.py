"""One shared adapter for the ``Message`` union (building one per call costs milliseconds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

from pydantic import TypeAdapter

from ag_ui.core.types import Message

__all__ = ["MESSAGE_ADAPTER", "as_message"]

MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)


def as_message(message: Union[Message, Mapping[str, Any]]) -> Message:
    """A message model from a model or a wire/Python-named dict (validated)."""
    if isinstance(message, Mapping):
        return MESSAGE_ADAPTER.validate_python(message)
    return message
