"""AG-UI messages and tools -> an OpenAI Chat Completions request (``messages``, ``tools``).

Works for OpenAI and every server speaking the same API (Ollama, vLLM, llama.cpp, LM Studio).
What the API cannot carry: reasoning messages (it has no input for them; they are left out),
developer messages (sent as ``system``, which every compatible server knows), video, audio or
files by URL; a part it cannot carry is a ``RunError`` naming it (code ``unsupported_content``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ag_ui.core.types import (
    AssistantMessage,
    AudioPart,
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
from ag_ui.providers._history import Conversation, tool_result_text
from ag_ui.providers._parts import (
    Part,
    data_url,
    decoded_text,
    filename_of,
    is_text_document,
    media_parts,
    mime_of,
    unsupported,
)

__all__ = ["chat_messages", "chat_request", "chat_tools"]

API = "OpenAI Chat Completions"
_SUPPORTED = (
    "text, images (data or URL), wav/mp3 audio as data, PDF documents (data or an OpenAI file "
    "id) and text documents as data"
)
_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def _part(part: Part, where: str) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    source = part.source
    if isinstance(part, ImagePart):
        if isinstance(source, DataSource):
            return {"type": "image_url", "image_url": {"url": data_url(source)}}
        if isinstance(source, UrlSource):
            return {"type": "image_url", "image_url": {"url": source.value}}
    elif isinstance(part, AudioPart):
        audio_format = _AUDIO_FORMATS.get(mime_of(part))
        if isinstance(source, DataSource) and audio_format:
            return {
                "type": "input_audio",
                "input_audio": {"data": source.value, "format": audio_format},
            }
    elif isinstance(part, DocumentPart):
        if isinstance(source, DataSource) and is_text_document(part):
            return {"type": "text", "text": decoded_text(part, api=API, where=where)}
        if isinstance(source, DataSource) and mime_of(part) == "application/pdf":
            filename = filename_of(part, "document.pdf")
            return {"type": "file", "file": {"file_data": data_url(source), "filename": filename}}
        if isinstance(source, FileSource) and source.provider in (None, "openai"):
            return {"type": "file", "file": {"file_id": source.value}}
    raise unsupported(part, api=API, where=where, supported=_SUPPORTED)


def _user_content(message: UserMessage, where: str) -> Any:
    if isinstance(message.content, str):
        return message.content
    return [_part(part, f"{where} part {i}") for i, part in enumerate(media_parts(message.content))]


def _text_only(message: ToolMessage, where: str) -> None:
    if isinstance(message.content, str):
        return
    for i, part in enumerate(message.content):
        if not isinstance(part, TextPart):
            raise unsupported(
                part, api=API, where=f"{where} part {i}", supported="only text in tool results"
            )


def _named(entry: dict[str, Any], name: Optional[str]) -> dict[str, Any]:
    if name:
        entry["name"] = name
    return entry


def chat_messages(
    messages: Sequence[Message], system: Optional[str] = None
) -> list[dict[str, Any]]:
    """The ``messages`` parameter for these AG-UI messages (prepared by ``prepare_messages``)."""
    converted: list[dict[str, Any]] = []
    if system:
        converted.append({"role": "system", "content": system})
    for index, message in enumerate(messages):
        where = f'messages[{index}] (role "{message.role}")'
        if isinstance(message, (SystemMessage, DeveloperMessage)):
            converted.append(_named({"role": "system", "content": message.content}, message.name))
        elif isinstance(message, UserMessage):
            entry = {"role": "user", "content": _user_content(message, where)}
            converted.append(_named(entry, message.name))
        elif isinstance(message, AssistantMessage):
            entry = {"role": "assistant", "content": message.content or ""}
            if message.tool_calls:
                entry["content"] = message.content or None
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.function.name,
                            "arguments": call.function.arguments,
                        },
                    }
                    for call in message.tool_calls
                ]
            converted.append(_named(entry, message.name))
        elif isinstance(message, ToolMessage):
            _text_only(message, where)
            converted.append(
                {
                    "role": "tool",
                    "tool_call_id": message.tool_call_id,
                    "content": tool_result_text(message),
                }
            )
        elif isinstance(message, ReasoningMessage):
            continue  # no input for reasoning in this API (documented fallback)
    return converted


def chat_tools(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The ``tools`` parameter: one ``function`` tool per AG-UI tool."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters if tool.parameters is not None else EMPTY_PARAMETERS,
            },
        }
        for tool in tools
    ]


def chat_request(conversation: Conversation) -> dict[str, Any]:
    """``messages`` and (when there are tools) ``tools`` for ``chat.completions.create``."""
    request: dict[str, Any] = {
        "messages": chat_messages(conversation.messages, conversation.system)
    }
    if conversation.tools:
        request["tools"] = chat_tools(conversation.tools)
    return request
