"""Downgrades of 1.0 events and messages for peers of an older protocol era: pure functions.

Shared by the client (``ag_ui.client.downgrade``: an agent pinned to an old era) and the server
toolkit (``ag_ui.server._downgrade``: a client that declares an old ``protocolVersion`` or
none). A downgrade only removes or reshapes, never invents, and warns with
``PeerDowngradeWarning`` when it loses content.
"""

from __future__ import annotations

import warnings
from typing import Any

from ag_ui.core.decoding import AnyEvent, parse_any_event

__all__ = [
    "ATTRIBUTION",
    "BEFORE_CONTENT_PARTS",
    "BEFORE_SUBAGENTS",
    "BEFORE_VALUE_TYPES",
    "SUBAGENT_LIFECYCLE",
    "VALUE_TYPE",
    "PeerDowngradeWarning",
    "flattened_message",
    "unattributed",
    "unattributed_event",
    "unattributed_list",
    "untyped_event",
    "untyped_messages",
]

BEFORE_SUBAGENTS = (0, 0, 57)
BEFORE_CONTENT_PARTS = (0, 0, 39)
BEFORE_VALUE_TYPES = (1, 0, 999)  # every 1.0.x: encryptedValueType is new in 1.1
VALUE_TYPE = "encryptedValueType"
SUBAGENT_LIFECYCLE = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})
ATTRIBUTION = "subagentRunId"


class PeerDowngradeWarning(UserWarning):
    """A downgrade for an old peer lost something (media parts, subagent events)."""


def unattributed(item: Any) -> tuple[Any, bool]:
    """``item`` without a top-level ``subagentRunId``, and whether it had one."""
    if isinstance(item, dict) and ATTRIBUTION in item:
        return {key: value for key, value in item.items() if key != ATTRIBUTION}, True
    return item, False


def unattributed_list(items: Any) -> tuple[Any, bool]:
    if not isinstance(items, list):
        return items, False
    pairs = [unattributed(item) for item in items]
    return [item for item, _ in pairs], any(changed for _, changed in pairs)


def unattributed_event(kind: str, event: AnyEvent) -> AnyEvent:
    """``event`` with ``subagentRunId`` removed from it and from the lists it nests."""
    wire, changed = unattributed(event.model_dump(by_alias=True, mode="json"))
    # Attribution nested one level down, where a top-level strip does not reach.
    if kind == "MESSAGES_SNAPSHOT":
        wire["messages"], nested = unattributed_list(wire.get("messages"))
        changed = changed or nested
    elif kind == "RUN_FINISHED" and isinstance(wire.get("outcome"), dict):
        interrupts, nested = unattributed_list(wire["outcome"].get("interrupts"))
        if nested:
            wire["outcome"] = {**wire["outcome"], "interrupts": interrupts}
            changed = True
    elif kind == "RUN_STARTED" and isinstance(wire.get("input"), dict):
        messages, nested = unattributed_list(wire["input"].get("messages"))
        if nested:
            wire["input"] = {**wire["input"], "messages": messages}
            changed = True
    return parse_any_event(wire) if changed else event


def _is_text_part(part: Any) -> bool:
    return (
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )


def flattened_message(message: dict[str, Any], *, stacklevel: int = 3) -> dict[str, Any]:
    """A wire message for a peer before content parts: list content becomes its text parts'
    concatenation (media dropped, with a warning); missing content becomes ``""``."""
    if "content" not in message:
        # The old schema requires content; an empty string is the one value a downgrade may add.
        return {**message, "content": ""}
    content = message["content"]
    if not isinstance(content, list):
        return message
    dropped = [str(part.get("type")) for part in content if not _is_text_part(part)]
    if dropped:
        warnings.warn(
            f"message {message.get('id')!r} loses its {', '.join(dropped)} part(s): the peer "
            "speaks a protocol before content parts, which only carries text (the downgrade "
            "DROPS non-text parts)",
            PeerDowngradeWarning,
            stacklevel=stacklevel,
        )
    return {**message, "content": "".join(p["text"] for p in content if _is_text_part(p))}


def _untyped(item: Any) -> tuple[Any, bool]:
    """A message or tool call without ``encryptedValueType`` (its calls' too), and whether it
    had one."""
    if not isinstance(item, dict):
        return item, False
    changed = VALUE_TYPE in item
    result = {key: value for key, value in item.items() if key != VALUE_TYPE} if changed else item
    calls = item.get("toolCalls")
    if isinstance(calls, list):
        pairs = [_untyped(call) for call in calls]
        if any(nested for _, nested in pairs):
            result = {**result, "toolCalls": [call for call, _ in pairs]}
            changed = True
    return result, changed


def untyped_messages(messages: Any) -> tuple[Any, bool]:
    if not isinstance(messages, list):
        return messages, False
    pairs = [_untyped(message) for message in messages]
    return [message for message, _ in pairs], any(changed for _, changed in pairs)


def untyped_event(kind: str, event: AnyEvent) -> tuple[AnyEvent, bool]:
    """``event`` without ``encryptedValueType`` anywhere (for a 1.0 peer), and whether it
    had one: on REASONING_ENCRYPTED_VALUE, on MESSAGES_SNAPSHOT and RUN_STARTED.input
    messages and their tool calls."""
    if kind == "REASONING_ENCRYPTED_VALUE":
        if getattr(event, "encrypted_value_type", None) is None:
            return event, False
        wire = event.model_dump(by_alias=True, mode="json")
        del wire[VALUE_TYPE]
        return parse_any_event(wire), True
    if kind == "MESSAGES_SNAPSHOT":
        wire = event.model_dump(by_alias=True, mode="json")
        wire["messages"], changed = untyped_messages(wire.get("messages"))
        return (parse_any_event(wire), True) if changed else (event, False)
    if kind == "RUN_STARTED" and getattr(event, "input", None) is not None:
        wire = event.model_dump(by_alias=True, mode="json")
        messages, changed = untyped_messages(wire["input"].get("messages"))
        if not changed:
            return event, False
        wire["input"] = {**wire["input"], "messages": messages}
        return parse_any_event(wire), True
    return event, False
