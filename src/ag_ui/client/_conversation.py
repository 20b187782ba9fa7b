"""``HttpAgent``'s conversation: messages and state, and the edits that notify subscribers."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterable, Mapping
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
from ag_ui.core.types import Message

__all__ = ["ConversationMixin"]


class ConversationMixin:
    """Messages kept as wire JSON in an immutable ``AgentState`` (what the reducer edits and the
    next request sends), typed on demand; the edit methods tell the subscribers."""

    _agent_state: AgentState
    _typed: Optional[list[Message]]
    _typed_for: Optional[AgentState]
    _background_notifications: set[asyncio.Task[None]]
    subscribers: list[Any]

    @property
    def messages(self) -> list[Message]:
        """The conversation as typed messages, current while a run is processing.

        Kept as wire JSON inside (what the reducer edits and the next request sends) and
        validated into models on first access after each change.
        """
        if self._typed is None or self._typed_for is not self._agent_state:
            self._typed = self._agent_state.typed_messages()
            self._typed_for = self._agent_state
        return self._typed

    @messages.setter
    def messages(self, messages: Iterable[Union[Message, Mapping[str, Any]]]) -> None:
        typed = [as_message(m) for m in messages]
        self._agent_state = self._agent_state.evolve(messages=tuple(to_wire(typed)))
        self._typed, self._typed_for = typed, self._agent_state

    @property
    def state(self) -> Any:
        """The agent state (any JSON value); replaced by snapshots, patched by deltas."""
        return self._agent_state.state

    @state.setter
    def state(self, state: Any) -> None:
        self._agent_state = self._agent_state.evolve(state=to_wire(state))

    @property
    def agent_state(self) -> AgentState:
        """The reducer's immutable view (wire-JSON messages, state, run bookkeeping)."""
        return self._agent_state

    def _sync_typed_messages(self) -> None:
        """Fold in-place edits of the list ``messages`` handed out (e.g. ``append``) back."""
        if self._typed is not None and self._typed_for is self._agent_state:
            self.messages = list(self._typed)

    # The four edits below notify the agent's subscribers (``_change_notifications`` has the
    # order and the rules for async callbacks and errors); assigning ``messages``/``state``
    # directly does not, as in TypeScript.

    def add_message(self, message: Union[Message, Mapping[str, Any]]) -> None:
        """Append a message (a model or a wire/Python-named dict) to the conversation, then
        notify ``on_new_message``, ``on_new_tool_call`` (each tool call of an assistant
        message) and ``on_messages_changed``."""
        self.add_messages([message])

    def add_messages(self, messages: Iterable[Union[Message, Mapping[str, Any]]]) -> None:
        """Append messages; notify as ``add_message`` does for each, then one
        ``on_messages_changed``."""
        self._sync_typed_messages()
        added = [as_message(m) for m in messages]
        self.messages = [*self.messages, *added]
        self._notify(added_messages_notifications(self, added))

    def set_messages(self, messages: Iterable[Union[Message, Mapping[str, Any]]]) -> None:
        """Replace the conversation (copied), then notify ``on_messages_changed``."""
        self.messages = copy.deepcopy([as_message(m) for m in messages])
        self._notify(messages_set_notifications(self))

    def set_state(self, state: Any) -> None:
        """Replace the state (copied), then notify ``on_state_changed``."""
        self.state = copy.deepcopy(state)
        self._notify(state_set_notifications(self))

    def _notify(self, notifications: list[Notification]) -> None:
        deliver(self.subscribers, notifications, self._background_notifications)

    async def flush_notifications(self) -> None:
        """Wait for change notifications that an edit left running on this event loop (async
        callbacks of an edit made inside a running loop)."""
        await flush(self._background_notifications)
