"""AG-UI messages <-> LangChain messages, ids kept, so the graph's conversation and the client's
are the same list (a checkpoint restored into a client names the messages the stream named)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core import messages as lc  # (LangChain's names clash with AG-UI's here)

from ag_ui.core.types import (
    AssistantMessage,
    DeveloperMessage,
    FunctionCall,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = ["content_pieces", "content_text", "from_langchain", "returned_messages", "to_langchain"]


def content_text(content: Any) -> str:
    """The text of a LangChain message's ``content``: a string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(_block_text(block) for block in content)
    return ""


def content_pieces(message: Any) -> list[tuple[str, str]]:
    """A message's (or chunk's) content as ``("text" | "reasoning", text)`` pieces, in order.

    Reasoning comes as LangChain's standard block (``{"type": "reasoning", "reasoning": ...}``),
    Anthropic's (``{"type": "thinking", "thinking": ...}``), OpenAI Responses' summaries
    (``{"type": "reasoning", "summary": [{"text": ...}]}``), or ``reasoning_content`` in
    ``additional_kwargs`` (DeepSeek, vLLM and other OpenAI-compatible servers)."""
    pieces: list[tuple[str, str]] = []
    extra = getattr(message, "additional_kwargs", None) or {}
    if isinstance(extra.get("reasoning_content"), str) and extra["reasoning_content"]:
        pieces.append(("reasoning", extra["reasoning_content"]))
    content = message.content
    if isinstance(content, str):
        if content:
            pieces.append(("text", content))
        return pieces
    for block in content if isinstance(content, Sequence) else ():
        text = _block_text(block)
        if text:
            pieces.append(("text", text))
            continue
        reasoning = _block_reasoning(block)
        if reasoning:
            pieces.append(("reasoning", reasoning))
    return pieces


def _block_reasoning(block: Any) -> str:
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "thinking":
        return str(block.get("thinking") or "")
    if kind == "reasoning":
        if isinstance(block.get("reasoning"), str):
            return str(block["reasoning"])
        summary = block.get("summary")
        if isinstance(summary, list):
            return "".join(str(s.get("text") or "") for s in summary if isinstance(s, dict))
    return ""


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if isinstance(block, dict) and block.get("type") == "text":
        return str(block.get("text") or "")
    return ""


def _user_content(message: UserMessage) -> Any:
    if isinstance(message.content, str):
        return message.content
    blocks: list[Any] = []
    for part in message.content:
        if isinstance(part, TextPart):
            blocks.append({"type": "text", "text": part.text})
        else:  # media parts: LangChain's standard content blocks take the wire shape as is
            blocks.append(part.model_dump(mode="json", by_alias=True, exclude_none=True))
    return blocks


def _tool_call_args(arguments: str) -> dict[str, Any]:
    try:
        parsed = json.loads(arguments) if arguments else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def to_langchain(messages: Iterable[Message]) -> list[lc.BaseMessage]:
    """The LangChain form of AG-UI messages; activity and reasoning messages are the client's
    display, not the model's conversation, and are left out."""
    converted: list[lc.BaseMessage] = []
    for message in messages:
        if isinstance(message, UserMessage):
            converted.append(lc.HumanMessage(content=_user_content(message), id=message.id))
        elif isinstance(message, AssistantMessage):
            calls = [
                lc.ToolCall(
                    id=call.id,
                    name=call.function.name,
                    args=_tool_call_args(call.function.arguments),
                    type="tool_call",
                )
                for call in message.tool_calls or []
            ]
            converted.append(
                lc.AIMessage(content=message.content or "", tool_calls=calls, id=message.id)
            )
        elif isinstance(message, ToolMessage):
            content = message.content if isinstance(message.content, str) else ""
            if not isinstance(message.content, str):
                content = "".join(getattr(part, "text", "") for part in message.content)
            converted.append(
                lc.ToolMessage(
                    content=content,
                    tool_call_id=message.tool_call_id,
                    id=message.id,
                    status="error" if message.error else "success",
                )
            )
        elif isinstance(message, (SystemMessage, DeveloperMessage)):
            converted.append(lc.SystemMessage(content=message.content, id=message.id))
    return converted


def from_langchain(messages: Iterable[Any]) -> list[Message]:
    """The AG-UI form of a graph's messages (a checkpoint's), ids kept; messages without an id
    (never checkpointed by ``add_messages``, which gives every message one) are skipped."""
    converted: list[Message] = []
    for message in messages:
        if not isinstance(message, lc.BaseMessage) or not message.id:
            continue
        if isinstance(message, lc.AIMessage):
            calls = [
                ToolCall(
                    id=call["id"] or "",
                    function=FunctionCall(
                        name=call["name"],
                        arguments=json.dumps(call["args"], separators=(",", ":")),
                    ),
                )
                for call in message.tool_calls
                if call.get("id")
            ]
            converted.append(
                AssistantMessage(
                    id=message.id,
                    content=content_text(message.content) or None,
                    tool_calls=calls or None,
                )
            )
        elif isinstance(message, lc.ToolMessage):
            converted.append(
                ToolMessage(
                    id=message.id,
                    content=content_text(message.content),
                    tool_call_id=message.tool_call_id,
                    error=content_text(message.content) if message.status == "error" else None,
                )
            )
        elif isinstance(message, lc.HumanMessage):
            converted.append(UserMessage(id=message.id, content=content_text(message.content)))
        elif isinstance(message, lc.SystemMessage):
            converted.append(SystemMessage(id=message.id, content=content_text(message.content)))
    return converted


def returned_messages(update: Any, messages_key: str) -> list[lc.BaseMessage]:
    """The messages a node's update returned under ``messages_key`` (``RemoveMessage``s left
    out)."""
    if not isinstance(update, Mapping):
        return []
    value = update.get(messages_key)
    items = value if isinstance(value, (list, tuple)) else [value]
    return [m for m in items if isinstance(m, lc.BaseMessage) and m.type != "remove"]
