"""One model turn as AG-UI events, and as the messages it leaves in the conversation. Sans-IO.

Every stream adapter translates its provider's chunks into calls on a ``TurnWriter``: text,
tool calls, reasoning. The writer owns the AG-UI side of the turn:

* one assistant message per turn (``message_id``): its text is the text message of that id, and
  its tool calls name it as ``parentMessageId``, so clients attach them to the same message;
* text closes when a tool call starts and reopens under the same id if more text follows (the
  protocol allows reopening, T4), so no message is left open behind a tool call;
* a tool call that ends with no arguments gets ``{}``, so its arguments are always JSON text;
* reasoning is a span holding one reasoning message with the same id; an opaque provider
  artefact (signature, encrypted content) rides on ``REASONING_ENCRYPTED_VALUE`` before the
  message ends, so the client stores it on the reasoning message and sends it back next run.

``take()`` hands out the events produced since the last call; ``messages()`` gives the
reasoning and assistant messages of the turn (what a client's reducer would hold).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Optional, Union

from ag_ui.core.events import (
    BaseEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.core.token_usage import TokenUsage
from ag_ui.core.types import AssistantMessage, FunctionCall, ReasoningMessage, ToolCall

__all__ = ["StopReason", "Turn", "TurnWriter", "counter_ids"]

# The per-token events are built by their compiled validators directly: the same validation as
# the constructor, without its Python wrapper (0.6 of 1.7 µs per event, most of the adapters'
# own cost; benchmarks/bench_providers.py).
_TEXT_CONTENT = TextMessageContentEvent.__pydantic_validator__.validate_python
_TOOL_ARGS = ToolCallArgsEvent.__pydantic_validator__.validate_python
_REASONING_CONTENT = ReasoningMessageContentEvent.__pydantic_validator__.validate_python

StopReason = str
"""Why the model stopped, normalised across APIs: ``end_turn``, ``tool_calls``, ``max_tokens``,
``content_filter``, ``refusal``, ``pause_turn`` (or the provider's own word for anything else)."""


def counter_ids() -> Callable[[str], str]:
    """``new_id`` for an adapter used on its own: ``"<kind>-1"``, ``"<kind>-2"``...

    (In an agent, ids come from the run: ``RunContext.new_id``.)
    """
    count = 0

    def new_id(kind: str) -> str:
        nonlocal count
        count += 1
        return f"{kind}-{count}"

    return new_id


@dataclass
class _ToolCallState:
    name: str
    arguments: list[str] = field(default_factory=list)
    open: bool = True


@dataclass
class _ReasoningState:
    content: list[str] = field(default_factory=list)
    encrypted_value: Optional[str] = None
    encrypted_value_type: Optional[str] = None
    open: bool = True


@dataclass
class Turn:
    """What one model turn produced."""

    message_id: str
    messages: list[Union[ReasoningMessage, AssistantMessage]]
    tool_calls: list[ToolCall]
    stop_reason: Optional[StopReason]
    usage: Optional[TokenUsage]


class TurnWriter:
    """Builds the events and messages of one assistant turn (see the module docstring)."""

    def __init__(self, message_id: str) -> None:
        self.message_id = message_id
        self.events: list[BaseEvent] = []
        self._text: list[str] = []
        self._text_open = False
        self._calls: dict[str, _ToolCallState] = {}
        self._reasoning: dict[str, _ReasoningState] = {}
        self._order: list[tuple[str, str]] = []  # ("reasoning" | "assistant", id) as first seen
        self._assistant_seen = False

    def take(self) -> list[BaseEvent]:
        """The events produced since the last ``take``."""
        events = self.events
        self.events = []
        return events

    # -- text -------------------------------------------------------------------------------

    def text(self, delta: str) -> None:
        """Append ``delta`` to the assistant's text (opening the text message if needed)."""
        if not delta:
            return
        if not self._text_open:
            self._open_text()
        self.events.append(_TEXT_CONTENT({"message_id": self.message_id, "delta": delta}))
        self._text.append(delta)

    def text_events(self, delta: str) -> list[BaseEvent]:
        """``text(delta)`` then ``take()`` in one call: the per-token path of the adapters."""
        if self._text_open and delta and not self.events:
            self._text.append(delta)
            return [_TEXT_CONTENT({"message_id": self.message_id, "delta": delta})]
        self.text(delta)
        return self.take()

    def _open_text(self) -> None:
        self._mark_assistant()
        self.events.append(TextMessageStartEvent(message_id=self.message_id))
        self._text_open = True

    def close_text(self) -> None:
        if self._text_open:
            self.events.append(TextMessageEndEvent(message_id=self.message_id))
            self._text_open = False

    def _mark_assistant(self) -> None:
        if not self._assistant_seen:
            self._assistant_seen = True
            self._order.append(("assistant", self.message_id))

    # -- tool calls -------------------------------------------------------------------------

    def start_tool_call(self, tool_call_id: str, name: str) -> None:
        self.close_text()
        self._mark_assistant()
        self._calls[tool_call_id] = _ToolCallState(name)
        self.events.append(
            ToolCallStartEvent(
                tool_call_id=tool_call_id, tool_call_name=name, parent_message_id=self.message_id
            )
        )

    def tool_args(self, tool_call_id: str, delta: str) -> None:
        if not delta:
            return
        self._calls[tool_call_id].arguments.append(delta)
        self.events.append(_TOOL_ARGS({"tool_call_id": tool_call_id, "delta": delta}))

    def has_args(self, tool_call_id: str) -> bool:
        return bool(self._calls[tool_call_id].arguments)

    def end_tool_call(self, tool_call_id: str) -> None:
        call = self._calls[tool_call_id]
        if not call.open:
            return
        if not call.arguments:
            self.tool_args(tool_call_id, "{}")
        self.events.append(ToolCallEndEvent(tool_call_id=tool_call_id))
        call.open = False

    # -- reasoning --------------------------------------------------------------------------

    def start_reasoning(self, reasoning_id: str) -> None:
        self._reasoning[reasoning_id] = _ReasoningState()
        self._order.append(("reasoning", reasoning_id))
        self.events.append(ReasoningStartEvent(message_id=reasoning_id))
        self.events.append(ReasoningMessageStartEvent(message_id=reasoning_id))

    def is_reasoning(self, reasoning_id: str) -> bool:
        state = self._reasoning.get(reasoning_id)
        return state is not None and state.open

    def reasoning(self, reasoning_id: str, delta: str) -> None:
        if not delta:
            return
        self._reasoning[reasoning_id].content.append(delta)
        self.events.append(_REASONING_CONTENT({"message_id": reasoning_id, "delta": delta}))

    def has_reasoning_text(self, reasoning_id: str) -> bool:
        return bool(self._reasoning[reasoning_id].content)

    def end_reasoning(
        self,
        reasoning_id: str,
        encrypted_value: Optional[str] = None,
        encrypted_value_type: Optional[str] = None,
    ) -> None:
        """Close a reasoning message, with the provider's artefact and its kind (1.1's
        ``encryptedValueType``, e.g. ``anthropic.redacted_thinking``) when there is one."""
        state = self._reasoning[reasoning_id]
        if not state.open:
            return
        if encrypted_value:
            state.encrypted_value = encrypted_value
            state.encrypted_value_type = encrypted_value_type
            self.events.append(
                ReasoningEncryptedValueEvent(
                    subtype="message",
                    entity_id=reasoning_id,
                    encrypted_value=encrypted_value,
                    encrypted_value_type=encrypted_value_type,
                )
            )
        self.events.append(ReasoningMessageEndEvent(message_id=reasoning_id))
        self.events.append(ReasoningEndEvent(message_id=reasoning_id))
        state.open = False

    # -- the end ----------------------------------------------------------------------------

    def close_all(self) -> None:
        """Close whatever is still open (the stream ended normally)."""
        for reasoning_id, state in self._reasoning.items():
            if state.open:
                self.end_reasoning(reasoning_id)
        self.close_text()
        for tool_call_id, call in self._calls.items():
            if call.open:
                self.end_tool_call(tool_call_id)

    @property
    def tool_call_count(self) -> int:
        return len(self._calls)

    def tool_calls(self) -> list[ToolCall]:
        return [
            ToolCall(
                id=tool_call_id,
                function=FunctionCall(name=call.name, arguments="".join(call.arguments)),
            )
            for tool_call_id, call in self._calls.items()
        ]

    def messages(self) -> list[Union[ReasoningMessage, AssistantMessage]]:
        """The turn's messages in the order a client's reducer creates them."""
        messages: list[Union[ReasoningMessage, AssistantMessage]] = []
        for kind, entity_id in self._order:
            if kind == "reasoning":
                state = self._reasoning[entity_id]
                messages.append(
                    ReasoningMessage(
                        id=entity_id,
                        content="".join(state.content),
                        encrypted_value=state.encrypted_value,
                        encrypted_value_type=state.encrypted_value_type,
                    )
                )
            else:
                calls = self.tool_calls()
                messages.append(
                    AssistantMessage(
                        id=self.message_id,
                        content="".join(self._text) if self._text else None,
                        tool_calls=calls or None,
                    )
                )
        return messages

    def turn(self, stop_reason: Optional[StopReason], usage: Optional[TokenUsage]) -> Turn:
        return Turn(
            message_id=self.message_id,
            messages=self.messages(),
            tool_calls=self.tool_calls(),
            stop_reason=stop_reason,
            usage=usage,
        )
