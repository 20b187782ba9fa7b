"""One shared adapter for the ``Message`` union (building one per call costs milliseconds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

from pydantic import TypeAdapter

from ag_ui.core.types import Message
from ag_ui.verify._legacy_content import upgrade_message_dict

__all__ = ["MESSAGE_ADAPTER", "as_message"]

MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)


def as_message(message: Union[Message, Mapping[str, Any]]) -> Message:
    """A message model from a model or a wire/Python-named dict (validated); a wire dict's
    legacy ``binary`` parts become media parts first."""
    if isinstance(message, Mapping):
        return MESSAGE_ADAPTER.validate_python(upgrade_message_dict(dict(message)))
    return message
