"""AG-UI messages and tools -> an Anthropic Messages request (``system``, ``messages``, ``tools``).

* system and developer messages have no role in this API: their text joins the ``system``
  parameter after the agent's own (documented fallback);
* user parts -> ``text``, ``image`` (base64, URL or file) and ``document`` (PDF or text, as
  data, URL or file) blocks; audio and video -> ``RunError`` code ``unsupported_content``;
* assistant messages -> ``text`` and ``tool_use`` blocks; the reasoning messages next to them
  (before them, as clients store them) -> ``thinking`` blocks with their ``signature`` (the
  encrypted value), first in the message, which the API requires back when thinking preceded a
  tool call; a ``redacted_thinking`` block round-trips the same way (``encryptedValueType``
  ``anthropic.redacted_thinking``; the ``redacted_thinking:`` prefix of older history is still
  read). Reasoning without a signature, or whose value another provider typed, cannot be sent
  back and is left out (documented fallback);
* tool messages -> ``tool_result`` blocks in a user message (``is_error`` from ``error``);
* consecutive messages of one role are merged into one message, as the API expects.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Optional

from ag_ui.core._surrogates import refuse_constant
from ag_ui.core.types import (
    AssistantMessage,
    DataSource,
    DeveloperMessage,
    DocumentPart,
    FileSource,
    ImagePart,
    Message,
    ReasoningMessage,
    SystemMessage,
    TextPart,
    Tool,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from ag_ui.providers._chat_request import EMPTY_PARAMETERS
from ag_ui.providers._history import Conversation, tool_result_text
from ag_ui.providers._parts import (
    Part,
    decoded_text,
    is_text_document,
    media_parts,
    mime_of,
    unsupported,
)

__all__ = [
    "REDACTED_THINKING_PREFIX",
    "anthropic_messages",
    "anthropic_request",
    "anthropic_tools",
]

API = "Anthropic Messages"
_SUPPORTED = "text, images and PDF or text documents (data, URL or an Anthropic file id)"

REDACTED_THINKING = "anthropic.redacted_thinking"
"""The ``encryptedValueType`` of a reasoning message that came from a ``redacted_thinking``
block (the value is its ``data``); a value without a type is a ``thinking`` block's
``signature``."""

REDACTED_THINKING_PREFIX = "redacted_thinking:"
"""How this SDK marked redacted data in the value itself before protocol 1.1; still read from
stored history."""


def _source(part: Any) -> Optional[dict[str, Any]]:
    source = part.source
    if isinstance(source, DataSource):
        return {"type": "base64", "media_type": source.mime_type, "data": source.value}
    if isinstance(source, UrlSource):
        return {"type": "url", "url": source.value}
    if isinstance(source, FileSource) and source.provider in (None, "anthropic"):
        return {"type": "file", "file_id": source.value}
    return None


def _part(part: Part, where: str) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if (
        isinstance(part, DocumentPart)
        and isinstance(part.source, DataSource)
        and is_text_document(part)
    ):
        text = decoded_text(part, api=API, where=where)
        return {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": text},
        }
    source = _source(part)
    if source is not None:
        if isinstance(part, ImagePart):
            return {"type": "image", "source": source}
        if isinstance(part, DocumentPart) and (
            source["type"] != "base64" or mime_of(part) == "application/pdf"
        ):
            return {"type": "document", "source": source}
    raise unsupported(part, api=API, where=where, supported=_SUPPORTED)


def _parts(content: Any, where: str) -> list[dict[str, Any]]:
    return [_part(part, f"{where} part {i}") for i, part in enumerate(media_parts(content))]


def _thinking(message: ReasoningMessage) -> Optional[dict[str, Any]]:
    value = message.encrypted_value
    if not value:
        return None
    value_type = message.encrypted_value_type
    if value_type == REDACTED_THINKING:
        return {"type": "redacted_thinking", "data": value}
    if value_type is not None:
        # Another producer's artefact (1.1 allows dropping it): never hand Anthropic bytes it
        # did not issue.
        return None
    if value.startswith(REDACTED_THINKING_PREFIX):
        return {"type": "redacted_thinking", "data": value[len(REDACTED_THINKING_PREFIX) :]}
    return {"type": "thinking", "thinking": message.content, "signature": value}


def _tool_input(arguments: str) -> Any:
    # The API wants the input as an object; arguments the model broke are sent as no input (the
    # tool result already told the model they were invalid).
    try:
        value = json.loads(arguments, parse_constant=refuse_constant) if arguments.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _tool_result(message: ToolMessage, where: str) -> dict[str, Any]:
    content: Any
    if isinstance(message.content, str) or all(isinstance(p, TextPart) for p in message.content):
        content = tool_result_text(message)
    else:
        content = _parts(message.content, where)
        if message.error:
            content.insert(0, {"type": "text", "text": f"Error: {message.error}"})
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": message.tool_call_id,
        "content": content,
    }
    if message.error:
        block["is_error"] = True
    return block


def anthropic_messages(messages: Sequence[Message]) -> tuple[list[str], list[dict[str, Any]]]:
    """The system texts and the ``messages`` for these AG-UI messages (prepared ones)."""
    system: list[str] = []
    converted: list[dict[str, Any]] = []
    thinking: list[dict[str, Any]] = []  # reasoning waiting for its assistant message
    last_assistant: Optional[dict[str, Any]] = None

    def add(role: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        if converted and converted[-1]["role"] == role:
            converted[-1]["content"].extend(blocks)
        else:
            converted.append({"role": role, "content": blocks})
        return converted[-1]

    def flush_thinking() -> None:
        # Reasoning after its assistant message (text streamed before the thinking) joins it.
        if thinking and last_assistant is not None:
            count = sum(1 for b in last_assistant["content"] if b["type"].endswith("thinking"))
            last_assistant["content"][count:count] = thinking
        thinking.clear()

    for index, message in enumerate(messages):
        where = f'messages[{index}] (role "{message.role}")'
        if isinstance(message, ReasoningMessage):
            block = _thinking(message)
            if block is not None:
                thinking.append(block)
            continue
        if isinstance(message, AssistantMessage):
            blocks = list(thinking)
            thinking.clear()
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            for call in message.tool_calls or ():
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.function.name,
                        "input": _tool_input(call.function.arguments),
                    }
                )
            if blocks:
                last_assistant = add("assistant", blocks)
            continue
        flush_thinking()
        if isinstance(message, (SystemMessage, DeveloperMessage)):
            system.append(message.content)
        elif isinstance(message, UserMessage):
            blocks = (
                [{"type": "text", "text": message.content}]
                if isinstance(message.content, str)
                else _parts(message.content, where)
            )
            add("user", blocks)
        elif isinstance(message, ToolMessage):
            add("user", [_tool_result(message, where)])
    flush_thinking()
    return system, converted


def anthropic_tools(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The ``tools`` parameter: ``name``, ``description``, ``input_schema``."""
    return [
        {
            "name": tool.name,
            "description": tool.description,
            "input_schema": tool.parameters if tool.parameters is not None else EMPTY_PARAMETERS,
        }
        for tool in tools
    ]


def anthropic_request(conversation: Conversation) -> dict[str, Any]:
    """``messages`` (plus ``system`` and ``tools`` when present) for ``messages.create``."""
    system_texts, messages = anthropic_messages(conversation.messages)
    if conversation.system:
        system_texts.insert(0, conversation.system)
    request: dict[str, Any] = {"messages": messages}
    if system_texts:
        request["system"] = "\n\n".join(system_texts)
    if conversation.tools:
        request["tools"] = anthropic_tools(conversation.tools)
    return request
