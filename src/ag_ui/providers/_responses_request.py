"""AG-UI messages and tools -> an OpenAI Responses request (``instructions``, ``input``,
``tools``), for stateless use: the client holds the conversation, so every item is sent each run
(``store`` is off and reasoning comes back encrypted, see ``OpenAIResponses``).

* user parts -> ``input_text`` / ``input_image`` / ``input_file`` (audio and video: no input
  type for them in message content -> ``RunError`` code ``unsupported_content``);
* assistant text -> an assistant ``message`` item; each tool call -> a ``function_call`` item;
* tool messages -> ``function_call_output`` (text, images and files);
* reasoning messages carrying an encrypted value -> ``reasoning`` items (id, summary,
  ``encrypted_content``; an untyped value or type ``openai.encrypted_content``, never another
  provider's), which reasoning models need back around tool calls; reasoning without
  one cannot be referenced statelessly and is left out (documented fallback).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

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
    data_url,
    decoded_text,
    filename_of,
    is_text_document,
    media_parts,
    unsupported,
)

__all__ = ["responses_input", "responses_request", "responses_tools"]

API = "OpenAI Responses"
ENCRYPTED_CONTENT = "openai.encrypted_content"
"""The ``encryptedValueType`` of a reasoning item's ``encrypted_content`` (protocol 1.1)."""
_SUPPORTED = "text, images and files (data, URL or an OpenAI file id)"


def _part(part: Part, where: str) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    source = part.source
    if isinstance(part, ImagePart):
        if isinstance(source, DataSource):
            return {"type": "input_image", "image_url": data_url(source), "detail": "auto"}
        if isinstance(source, UrlSource):
            return {"type": "input_image", "image_url": source.value, "detail": "auto"}
        if source.provider in (None, "openai"):
            return {"type": "input_image", "file_id": source.value, "detail": "auto"}
    elif isinstance(part, DocumentPart):
        if isinstance(source, DataSource):
            if is_text_document(part):
                return {"type": "input_text", "text": decoded_text(part, api=API, where=where)}
            return {
                "type": "input_file",
                "file_data": data_url(source),
                "filename": filename_of(part, "document"),
            }
        if isinstance(source, UrlSource):
            return {"type": "input_file", "file_url": source.value}
        if isinstance(source, FileSource) and source.provider in (None, "openai"):
            return {"type": "input_file", "file_id": source.value}
    raise unsupported(part, api=API, where=where, supported=_SUPPORTED)


def _parts(content: Any, where: str) -> list[dict[str, Any]]:
    return [_part(part, f"{where} part {i}") for i, part in enumerate(media_parts(content))]


def _tool_output(message: ToolMessage, where: str) -> Any:
    content = message.content
    if isinstance(content, str) or all(isinstance(part, TextPart) for part in content):
        return tool_result_text(message)
    parts = _parts(content, where)
    if message.error:
        parts.insert(0, {"type": "input_text", "text": f"Error: {message.error}"})
    return parts


def responses_input(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The ``input`` items for these AG-UI messages (prepared by ``prepare_messages``)."""
    items: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        where = f'messages[{index}] (role "{message.role}")'
        if isinstance(message, (SystemMessage, DeveloperMessage)):
            items.append({"type": "message", "role": message.role, "content": message.content})
        elif isinstance(message, UserMessage):
            content: Any = (
                message.content
                if isinstance(message.content, str)
                else _parts(message.content, where)
            )
            items.append({"type": "message", "role": "user", "content": content})
        elif isinstance(message, AssistantMessage):
            if message.content:
                items.append({"type": "message", "role": "assistant", "content": message.content})
            for call in message.tool_calls or ():
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.function.name,
                        "arguments": call.function.arguments,
                    }
                )
        elif isinstance(message, ToolMessage):
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": _tool_output(message, where),
                }
            )
        elif (
            isinstance(message, ReasoningMessage)
            and message.encrypted_value
            # Untyped is what this SDK stored before 1.1; another type is another provider's.
            and message.encrypted_value_type in (None, ENCRYPTED_CONTENT)
        ):
            summary = [{"type": "summary_text", "text": message.content}] if message.content else []
            items.append(
                {
                    "type": "reasoning",
                    "id": message.id,
                    "summary": summary,
                    "encrypted_content": message.encrypted_value,
                }
            )
    return items


def responses_tools(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The ``tools`` parameter: one ``function`` tool per AG-UI tool (not strict)."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters if tool.parameters is not None else EMPTY_PARAMETERS,
            "strict": False,
        }
        for tool in tools
    ]


def responses_request(conversation: Conversation) -> dict[str, Any]:
    """``input`` (plus ``instructions`` and ``tools`` when present) for ``responses.create``."""
    request: dict[str, Any] = {"input": responses_input(conversation.messages)}
    system: Optional[str] = conversation.system
    if system:
        request["instructions"] = system
    if conversation.tools:
        request["tools"] = responses_tools(conversation.tools)
    return request
