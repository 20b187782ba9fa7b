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
    "SUBAGENT_LIFECYCLE",
    "PeerDowngradeWarning",
    "flattened_message",
    "unattributed",
    "unattributed_event",
    "unattributed_list",
]

BEFORE_SUBAGENTS = (0, 0, 57)
BEFORE_CONTENT_PARTS = (0, 0, 39)
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
