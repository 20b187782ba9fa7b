"""Downgrades for agents pinned to a pre-1.0 protocol era (``HttpAgent(max_protocol_version=)``).

The TypeScript client installs these when its peer ceiling says the agent is that old; so does
``HttpAgent`` (outermost, before your own middleware; with the default ceiling none applies):

* ceiling <= 0.0.57, before subagents: ``SubagentDowngradeMiddleware`` removes
  ``subagentRunId`` from the messages sent, and on the way back drops SUBAGENT_* events and
  removes ``subagentRunId`` from every event, from MESSAGES_SNAPSHOT and RUN_STARTED.input
  messages and from interrupts (their content flattens into the parent thread);
* ceiling <= 0.0.39, before content parts: ``ContentDowngradeMiddleware`` sends no
  ``parentRunId``, turns list content into the concatenation of its text parts and gives a
  message without content an empty string.

A downgrade only removes or reshapes, never invents, and says what it loses with a
``PeerDowngradeWarning``. (The 0.0.45 era's THINKING_* events need no middleware here: the
client's compatibility stage translates them for every agent.)
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.client._middleware import Middleware, NextAgent
from ag_ui.core.decoding import AnyEvent, parse_any_event
from ag_ui.core.types import RunAgentInput

__all__ = [
    "ContentDowngradeMiddleware",
    "PeerDowngradeWarning",
    "SubagentDowngradeMiddleware",
    "downgrade_middlewares",
]

_BEFORE_SUBAGENTS = (0, 0, 57)
_BEFORE_CONTENT_PARTS = (0, 0, 39)
_SUBAGENT_LIFECYCLE = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})
_ATTRIBUTION = "subagentRunId"


class PeerDowngradeWarning(UserWarning):
    """A downgrade for an old agent lost something (media parts, subagent events)."""


def downgrade_middlewares(ceiling: tuple[int, int, int]) -> list[Middleware]:
    """The downgrades an agent whose newest version is ``ceiling`` needs, outermost first."""
    chain: list[Middleware] = []
    if ceiling <= _BEFORE_SUBAGENTS:
        chain.append(SubagentDowngradeMiddleware())
    if ceiling <= _BEFORE_CONTENT_PARTS:
        chain.append(ContentDowngradeMiddleware())
    return chain


def _wire_input(input: RunAgentInput) -> dict[str, Any]:
    fields: dict[str, Any] = input.model_dump(by_alias=True, mode="json")
    return fields


def _unattributed(item: Any) -> tuple[Any, bool]:
    """``item`` without a top-level ``subagentRunId``, and whether it had one."""
    if isinstance(item, dict) and _ATTRIBUTION in item:
        return {key: value for key, value in item.items() if key != _ATTRIBUTION}, True
    return item, False


def _unattributed_list(items: Any) -> tuple[Any, bool]:
    if not isinstance(items, list):
        return items, False
    pairs = [_unattributed(item) for item in items]
    return [item for item, _ in pairs], any(changed for _, changed in pairs)


class SubagentDowngradeMiddleware(Middleware):
    """For an agent that predates subagents (ceiling <= 0.0.57); see the module docstring."""

    async def run(self, input: RunAgentInput, next: NextAgent) -> AsyncIterator[AnyEvent]:
        fields = _wire_input(input)
        fields["messages"] = _unattributed_list(fields["messages"])[0]
        async for event in next.run(RunAgentInput.model_validate(fields)):
            kind = getattr(event.type, "value", event.type)
            if kind in _SUBAGENT_LIFECYCLE:
                warnings.warn(
                    f"dropped {kind}: the agent is pinned to a protocol before subagents",
                    PeerDowngradeWarning,
                    stacklevel=2,
                )
                continue
            yield _unattributed_event(kind, event)


def _unattributed_event(kind: str, event: AnyEvent) -> AnyEvent:
    wire, changed = _unattributed(event.model_dump(by_alias=True, mode="json"))
    # Attribution nested one level down, where a top-level strip does not reach.
    if kind == "MESSAGES_SNAPSHOT":
        wire["messages"], nested = _unattributed_list(wire.get("messages"))
        changed = changed or nested
    elif kind == "RUN_FINISHED" and isinstance(wire.get("outcome"), dict):
        interrupts, nested = _unattributed_list(wire["outcome"].get("interrupts"))
        if nested:
            wire["outcome"] = {**wire["outcome"], "interrupts": interrupts}
            changed = True
    elif kind == "RUN_STARTED" and isinstance(wire.get("input"), dict):
        messages, nested = _unattributed_list(wire["input"].get("messages"))
        if nested:
            wire["input"] = {**wire["input"], "messages": messages}
            changed = True
    return parse_any_event(wire) if changed else event


def _is_text_part(part: Any) -> bool:
    return (
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )


def _flattened(message: dict[str, Any]) -> dict[str, Any]:
    if "content" not in message:
        # The old schema requires content; an empty string is the one value a downgrade may add.
        return {**message, "content": ""}
    content = message["content"]
    if not isinstance(content, list):
        return message
    dropped = [str(part.get("type")) for part in content if not _is_text_part(part)]
    if dropped:
        warnings.warn(
            f"message {message.get('id')!r} loses its {', '.join(dropped)} part(s): the agent "
            "is pinned to a protocol before content parts, which only carries text",
            PeerDowngradeWarning,
            stacklevel=3,
        )
    return {**message, "content": "".join(p["text"] for p in content if _is_text_part(p))}


class ContentDowngradeMiddleware(Middleware):
    """For an agent that predates content parts (ceiling <= 0.0.39); see the module
    docstring."""

    async def run(self, input: RunAgentInput, next: NextAgent) -> AsyncIterator[AnyEvent]:
        fields = _wire_input(input)
        fields.pop("parentRunId", None)
        fields["messages"] = [_flattened(message) for message in fields["messages"]]
        async for event in next.run(RunAgentInput.model_validate(fields)):
            yield event
