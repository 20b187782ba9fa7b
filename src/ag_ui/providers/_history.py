"""The conversation handed to a request builder: the run's messages made consistent, and the
system text (the agent's instructions, the run's context, the shared state).

Model APIs refuse histories that AG-UI clients can legitimately hold. Rather than a provider's
400, these documented fallbacks apply (docs/providers.md, "Fallbacks"):

* activity messages are left out (they are UI only; clients are supposed to strip them);
* an assistant tool call with no tool message answering it (the user typed on instead of
  answering a frontend tool) gets a synthetic result with ``error`` "not answered", placed right
  after that turn's tool messages;
* a tool message answering no tool call in the history (the client trimmed it) becomes a user
  message quoting the result.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from ag_ui.core.types import (
    ActivityMessage,
    AssistantMessage,
    Context,
    Message,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = ["Conversation", "prepare_messages", "system_text", "tool_result_text"]

NOT_ANSWERED = "not answered: the conversation went on without a result for this tool call"


@dataclass
class Conversation:
    """What a request builder turns into one API request."""

    messages: list[Message]
    system: Optional[str] = None
    tools: list[Tool] = field(default_factory=list)


def tool_result_text(message: ToolMessage) -> str:
    """A tool message's text (text parts joined), with its ``error`` first when it failed."""
    content = message.content
    text = (
        content
        if isinstance(content, str)
        else "".join(part.text for part in content if isinstance(part, TextPart))
    )
    if message.error:
        return f"Error: {message.error}" + (f"\n{text}" if text else "")
    return text


def _unanswered(calls: Sequence[ToolCall], answered: set[str]) -> list[ToolMessage]:
    return [
        ToolMessage(
            id=f"{call.id}-unanswered", tool_call_id=call.id, content="", error=NOT_ANSWERED
        )
        for call in calls
        if call.id not in answered
    ]


def prepare_messages(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with the fallbacks of the module docstring applied."""
    call_ids = {
        call.id
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or ()
    }
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    prepared: list[Message] = []
    missing: list[ToolMessage] = []
    for message in messages:
        if isinstance(message, ActivityMessage):
            continue
        if missing and not isinstance(message, ToolMessage):
            prepared.extend(missing)
            missing = []
        if isinstance(message, ToolMessage) and message.tool_call_id not in call_ids:
            prepared.append(
                UserMessage(
                    id=message.id,
                    content=f"(The result of tool call {message.tool_call_id}:)\n"
                    + tool_result_text(message),
                )
            )
            continue
        prepared.append(message)
        if isinstance(message, AssistantMessage) and message.tool_calls:
            missing = _unanswered(message.tool_calls, answered)
    prepared.extend(missing)
    return prepared


def system_text(
    instructions: Optional[str],
    context: Sequence[Context],
    *,
    state: Any = None,
    share_state: bool = False,
    state_tool: Optional[str] = None,
) -> Optional[str]:
    """The system prompt: the agent's instructions, then the run's context entries, then the
    shared state as JSON (with a pointer to the tool that changes it)."""
    sections: list[str] = []
    if instructions:
        sections.append(instructions.strip())
    if context:
        lines = "\n".join(f"- {entry.description}: {entry.value}" for entry in context)
        sections.append(f"Context from the application:\n{lines}")
    if share_state:
        shown = json.dumps(state, ensure_ascii=False, sort_keys=True)
        text = f"The application's shared state (JSON), which the user also sees:\n{shown}"
        if state_tool:
            text += f"\nCall {state_tool} to change it."
        sections.append(text)
    return "\n\n".join(sections) if sections else None
