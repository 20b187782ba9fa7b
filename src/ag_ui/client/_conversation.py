"""``Conversation``: an agent's messages, state and open interrupts, and the edits that tell its
subscribers.

One immutable ``AgentState`` holds the messages as wire JSON (what the reducer edits and the next
request sends) and the state; typed ``Message`` models are built on demand. A run advances the
conversation through ``agent_state`` and ``pending_interrupts``; the application edits it with
``add_message(s)``, ``set_messages`` and ``set_state``, which notify the subscribers
(``_change_notifications`` has the order and the rules for async callbacks and errors).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, Union

from ag_ui.apply import AgentState
from ag_ui.apply._state import to_wire
from ag_ui.client._change_notifications import (
    Notification,
    added_messages_notifications,
    deliver,
    flush,
    messages_set_notifications,
    state_set_notifications,
)
from ag_ui.client._messages import as_message
from ag_ui.client._subscribers import AgentView
from ag_ui.core.types import Interrupt, Message

__all__ = ["Conversation", "MessageLike"]

MessageLike = Union[Message, Mapping[str, Any]]
"""A message model, or a message as a wire (camelCase) or Python-named dict."""


class Conversation:
    """The conversation of one agent (``owner``), whose ``subscribers`` its edits notify."""

    def __init__(
        self,
        owner: AgentView,
        subscribers: Sequence[object],
        *,
        messages: Iterable[MessageLike] = (),
        state: Any = None,
    ) -> None:
        self._owner = owner
        self._subscribers = subscribers  # the owner's list, read at each notification
        self.agent_state = AgentState(
            messages=[as_message(m) for m in messages],
            state=copy.deepcopy(state) if state is not None else {},
        )
        """The reducer's immutable view (wire-JSON messages, state, run bookkeeping); a run
        advances it event by event."""
        self._typed: Optional[list[Message]] = None
        self._typed_for: Optional[AgentState] = None
        self._background: set[asyncio.Task[None]] = set()
        self.pending_interrupts: list[Interrupt] = []
        """The interrupts the last finished run left open (``resume`` must answer them)."""

    def copy(self, owner: AgentView, subscribers: Sequence[object]) -> Conversation:
        """An independent copy (for ``HttpAgent.clone``): same messages, state and interrupts."""
        self.sync_typed_messages()
        twin = Conversation(owner, subscribers)
        twin.agent_state = self.agent_state  # immutable: sharing it is copying it
        twin.pending_interrupts = copy.deepcopy(self.pending_interrupts)
        return twin

    # -- what a run reads and advances ---------------------------------------------------

    def sync_typed_messages(self) -> None:
        """Fold in-place edits of the list ``messages`` handed out (e.g. ``append``) back."""
        if self._typed is not None and self._typed_for is self.agent_state:
            self.messages = list(self._typed)

    # -- the conversation as models ------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The conversation as typed messages, current while a run is processing.

        Validated into models on first access after each change.
        """
        if self._typed is None or self._typed_for is not self.agent_state:
            self._typed = self.agent_state.typed_messages()
            self._typed_for = self.agent_state
        return self._typed

    @messages.setter
    def messages(self, messages: Iterable[MessageLike]) -> None:
        typed = [as_message(m) for m in messages]
        self.agent_state = self.agent_state.evolve(messages=tuple(to_wire(typed)))
        self._typed, self._typed_for = typed, self.agent_state

    @property
    def state(self) -> Any:
        """The agent state (any JSON value); replaced by snapshots, patched by deltas."""
        return self.agent_state.state

    @state.setter
    def state(self, state: Any) -> None:
        self.agent_state = self.agent_state.evolve(state=to_wire(state))

    # -- edits that notify (assigning ``messages``/``state`` does not, as in TypeScript) -----

    def add_messages(self, messages: Iterable[MessageLike]) -> None:
        """Append messages; notify ``on_new_message`` (and ``on_new_tool_call`` for each tool
        call of an assistant message) for each, then one ``on_messages_changed``."""
        self.sync_typed_messages()
        added = [as_message(m) for m in messages]
        self.messages = [*self.messages, *added]
        self._notify(added_messages_notifications(self._owner, added))

    def set_messages(self, messages: Iterable[MessageLike]) -> None:
        """Replace the conversation (copied), then notify ``on_messages_changed``."""
        self.messages = copy.deepcopy([as_message(m) for m in messages])
        self._notify(messages_set_notifications(self._owner))

    def set_state(self, state: Any) -> None:
        """Replace the state (copied), then notify ``on_state_changed``."""
        self.state = copy.deepcopy(state)
        self._notify(state_set_notifications(self._owner))

    def _notify(self, notifications: list[Notification]) -> None:
        deliver(self._subscribers, notifications, self._background)

    async def flush_notifications(self) -> None:
        """Wait for change notifications that an edit left running on this event loop."""
        await flush(self._background)
