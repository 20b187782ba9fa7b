"""The conversation as ``HttpAgent`` shows it: messages, state and pending interrupts, and the
edits that notify its subscribers. Each is its ``Conversation``'s (``_conversation``), which
owns that state; this is the agent's face for it."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any, Optional

from ag_ui.apply import AgentState
from ag_ui.client._conversation import Conversation, MessageLike
from ag_ui.core.types import Interrupt, Message, ToolMessage

__all__ = ["AgentConversation"]


class AgentConversation:
    """``HttpAgent``'s conversation: properties and edits, delegated to ``_conversation``."""

    _conversation: Conversation

    @property
    def messages(self) -> list[Message]:
        """The conversation as typed messages, current while a run is processing.

        Kept as wire JSON inside (what the reducer edits and the next request sends) and
        validated into models on first access after each change.
        """
        return self._conversation.messages

    @messages.setter
    def messages(self, messages: Iterable[MessageLike]) -> None:
        self._conversation.messages = messages

    @property
    def state(self) -> Any:
        """The agent state (any JSON value); replaced by snapshots, patched by deltas."""
        return self._conversation.state

    @state.setter
    def state(self, state: Any) -> None:
        self._conversation.state = state

    @property
    def agent_state(self) -> AgentState:
        """The reducer's immutable view (wire-JSON messages, state, run bookkeeping)."""
        return self._conversation.agent_state

    @property
    def pending_interrupts(self) -> list[Interrupt]:
        """The interrupts the last run left open; the next run's ``resume`` answers them."""
        return self._conversation.pending_interrupts

    @pending_interrupts.setter
    def pending_interrupts(self, interrupts: Iterable[Interrupt]) -> None:
        self._conversation.pending_interrupts = list(interrupts)

    # The four edits below notify the agent's subscribers (``_change_notifications`` has the
    # order and the rules for async callbacks and errors); assigning ``messages``/``state``
    # directly does not, as in TypeScript.

    def add_message(self, message: MessageLike) -> None:
        """Append a message (a model or a wire/Python-named dict) to the conversation, then
        notify ``on_new_message``, ``on_new_tool_call`` (each tool call of an assistant
        message) and ``on_messages_changed``."""
        self._conversation.add_messages([message])

    def add_messages(self, messages: Iterable[MessageLike]) -> None:
        """Append messages; notify as ``add_message`` does for each, then one
        ``on_messages_changed``."""
        self._conversation.add_messages(messages)

    def set_messages(self, messages: Iterable[MessageLike]) -> None:
        """Replace the conversation (copied), then notify ``on_messages_changed``."""
        self._conversation.set_messages(messages)

    def set_state(self, state: Any) -> None:
        """Replace the state (copied), then notify ``on_state_changed``."""
        self._conversation.set_state(state)

    async def flush_notifications(self) -> None:
        """Wait for change notifications that an edit left running on this event loop (async
        callbacks of an edit made inside a running loop)."""
        await self._conversation.flush_notifications()

    def add_tool_result(
        self, tool_call_id: str, content: Any, *, error: Optional[str] = None
    ) -> ToolMessage:
        """Answer a pending tool call by hand: append its ``ToolMessage`` (notifying as
        ``add_message`` does) and return it. ``content`` that is not a string is sent as JSON;
        ``error`` says the tool failed. The next run sends the answer."""
        from ag_ui.tools import serialize_result

        message = ToolMessage(
            id=f"tool-{uuid.uuid4()}",
            content=serialize_result(content),
            tool_call_id=tool_call_id,
            error=error,
        )
        self.add_message(message)
        return message
