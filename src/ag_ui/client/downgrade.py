"""Downgrades for agents pinned to a pre-1.0 protocol era (``HttpAgent(max_protocol_version=)``).

The TypeScript client installs these when its peer ceiling says the agent is that old; so does
``HttpAgent`` (outermost, before your own middleware; with the default ceiling none applies):

* ceiling 1.0.x, before encrypted value types: ``ValueTypeDowngradeMiddleware`` removes
  ``encryptedValueType`` from the messages (and their tool calls) sent; the value stays, as a
  1.0 agent stores it;
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

The pure reshaping lives in ``ag_ui.verify._downgrade``, which the server toolkit shares for
clients that declare an older protocol (docs/server.md, "Older clients").
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.client._middleware import Middleware, NextAgent
from ag_ui.core._wire import event_type_name
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.types import RunAgentInput
from ag_ui.verify._downgrade import (
    BEFORE_CONTENT_PARTS,
    BEFORE_SUBAGENTS,
    BEFORE_VALUE_TYPES,
    SUBAGENT_LIFECYCLE,
    VALUE_TYPE,
    PeerDowngradeWarning,
    flattened_message,
    unattributed_event,
    unattributed_list,
    untyped_messages,
)

__all__ = [
    "ContentDowngradeMiddleware",
    "PeerDowngradeWarning",
    "SubagentDowngradeMiddleware",
    "ValueTypeDowngradeMiddleware",
    "downgrade_middlewares",
]


def downgrade_middlewares(ceiling: tuple[int, int, int]) -> list[Middleware]:
    """The downgrades an agent whose newest version is ``ceiling`` needs, outermost first."""
    chain: list[Middleware] = []
    if ceiling <= BEFORE_VALUE_TYPES:
        chain.append(ValueTypeDowngradeMiddleware())
    if ceiling <= BEFORE_SUBAGENTS:
        chain.append(SubagentDowngradeMiddleware())
    if ceiling <= BEFORE_CONTENT_PARTS:
        chain.append(ContentDowngradeMiddleware())
    return chain


def _wire_input(input: RunAgentInput) -> dict[str, Any]:
    fields: dict[str, Any] = input.model_dump(by_alias=True, mode="json")
    return fields


class ValueTypeDowngradeMiddleware(Middleware):
    """For an agent that predates ``encryptedValueType`` (ceiling 1.0.x); see the module
    docstring. Nothing changes on the way back (a 1.0 agent sends no types)."""

    async def run(self, input: RunAgentInput, next: NextAgent) -> AsyncIterator[AnyEvent]:
        if not any(_typed(message) for message in input.messages):
            async for event in next.run(input):
                yield event
            return
        warnings.warn(
            f"removing {VALUE_TYPE} from the messages sent: the agent is pinned to a protocol "
            "before 1.1 (the encrypted values themselves are sent)",
            PeerDowngradeWarning,
            stacklevel=2,
        )
        fields = _wire_input(input)
        fields["messages"] = untyped_messages(fields["messages"])[0]
        async for event in next.run(RunAgentInput.model_validate(fields)):
            yield event


def _typed(message: Any) -> bool:
    if getattr(message, "encrypted_value_type", None) is not None:
        return True
    calls = getattr(message, "tool_calls", None) or ()
    return any(getattr(call, "encrypted_value_type", None) is not None for call in calls)


class SubagentDowngradeMiddleware(Middleware):
    """For an agent that predates subagents (ceiling <= 0.0.57); see the module docstring."""

    async def run(self, input: RunAgentInput, next: NextAgent) -> AsyncIterator[AnyEvent]:
        fields = _wire_input(input)
        fields["messages"] = unattributed_list(fields["messages"])[0]
        async for event in next.run(RunAgentInput.model_validate(fields)):
            kind = event_type_name(event)
            if kind in SUBAGENT_LIFECYCLE:
                warnings.warn(
                    f"dropping {kind}: the agent is pinned to a protocol before subagents",
                    PeerDowngradeWarning,
                    stacklevel=2,
                )
                continue
            yield unattributed_event(kind, event)


class ContentDowngradeMiddleware(Middleware):
    """For an agent that predates content parts (ceiling <= 0.0.39); see the module
    docstring."""

    async def run(self, input: RunAgentInput, next: NextAgent) -> AsyncIterator[AnyEvent]:
        fields = _wire_input(input)
        fields.pop("parentRunId", None)
        fields["messages"] = [flattened_message(message) for message in fields["messages"]]
        async for event in next.run(RunAgentInput.model_validate(fields)):
            yield event
