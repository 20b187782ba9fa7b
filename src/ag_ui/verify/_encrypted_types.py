"""Rule G6 (protocol 1.1): ``encryptedValueType`` never travels without ``encryptedValue``.

The type names the kind of one value, so a type alone labels nothing; a consumer stores and
returns it with its value, and a producer that sends one alone has lost the value somewhere.
The event's ``encryptedValue`` is required by its schema, so only the history a producer
restates (MESSAGES_SNAPSHOT: messages and their tool calls) can break the rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn, Optional

from ag_ui.core.errors import EventSequenceError

__all__ = ["check_encrypted_value_types"]


def check_encrypted_value_types(event_type: str, messages: Optional[Iterable[Any]]) -> None:
    """Raise ``EventSequenceError`` (rule ``G6``) at the first type sent without its value."""
    for message in messages or ():
        message_id = getattr(message, "id", None)
        if _type_without_value(message):
            _fail(event_type, f"a message (id '{message_id}')", {"message_id": message_id})
        for call in getattr(message, "tool_calls", None) or ():
            if _type_without_value(call):
                call_id = getattr(call, "id", None)
                _fail(
                    event_type,
                    f"a tool call (id '{call_id}') of message '{message_id}'",
                    {"message_id": message_id, "tool_call_id": call_id},
                )


def _type_without_value(entity: Any) -> bool:
    return (
        getattr(entity, "encrypted_value_type", None) is not None
        and getattr(entity, "encrypted_value", None) is None
    )


def _fail(event_type: str, what: str, ids: dict[str, Any]) -> NoReturn:
    raise EventSequenceError(
        f"Cannot send '{event_type}' with {what} carrying 'encryptedValueType' without "
        "'encryptedValue'. Send the type only beside the value it describes.",
        rule="G6",
        event_type=event_type,
        ids=ids,
    )
