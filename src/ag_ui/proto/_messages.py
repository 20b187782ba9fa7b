"""Messages, their content parts and the run input <-> protobuf (PROTOCOL.md §4.4, §4.5 rules
4-6, 9, 10).

Both directions work on *wire dicts* (camelCase JSON as it travels over SSE), so a decoded event
validates exactly like the same event read from JSON, extras and all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ag_ui.core.errors import EncodingError
from ag_ui.proto._values import (
    WireProblem,
    fill_struct,
    fill_value,
    struct_to_dict,
    value_to_python,
)

__all__ = [
    "copy_present",
    "fill_content_parts",
    "fill_input",
    "fill_message",
    "input_from_proto",
    "message_from_proto",
    "parts_from_proto",
    "set_present",
]

# (proto field, wire key) of optional strings, copied only when present.
_MESSAGE_OPTIONAL = (
    ("name", "name"),
    ("tool_call_id", "toolCallId"),
    ("error", "error"),
    ("subagent_run_id", "subagentRunId"),
    ("encrypted_value", "encryptedValue"),
    ("activity_type", "activityType"),
    ("encrypted_value_type", "encryptedValueType"),
)
_MEDIA_PARTS = ("image", "audio", "video", "document")
_PARTS_ROLES = frozenset({"user", "tool"})
_KNOWN_ROLES = frozenset(
    {"developer", "system", "assistant", "user", "tool", "activity", "reasoning"}
)


def copy_present(message: Any, wire: dict[str, Any], fields: Sequence[tuple[str, str]]) -> None:
    for name, key in fields:
        if message.HasField(name):
            wire[key] = getattr(message, name)


def set_present(message: Any, wire: Mapping[str, Any], fields: Sequence[tuple[str, str]]) -> None:
    for name, key in fields:
        value = wire.get(key)
        if value is not None:
            setattr(message, name, value)


# --- content parts --------------------------------------------------------------------------


def _fill_source(message: Any, source: Mapping[str, Any]) -> bool:
    kind = source.get("type")
    if kind not in ("data", "url", "file"):
        return False
    arm = getattr(message, kind)
    arm.SetInParent()
    arm.value = source["value"]
    if source.get("mimeType") is not None:
        arm.mime_type = source["mimeType"]
    if kind == "file" and source.get("provider") is not None:
        arm.provider = source["provider"]
    return True


def _fill_part(message: Any, part: Mapping[str, Any]) -> bool:
    kind = part.get("type")
    if kind == "text":
        text = message.text
        text.SetInParent()
        text.text = part["text"]
    elif kind in _MEDIA_PARTS:
        text = getattr(message, kind)
        text.SetInParent()
        if not _fill_source(text.source, part["source"]):
            return False
    elif kind == "binary":
        return _fill_legacy_binary(message.document, part)
    else:
        return False
    if part.get("id") is not None:
        text.id = part["id"]
    if part.get("metadata") is not None:
        fill_value(text.metadata, part["metadata"])
    return True


def _fill_legacy_binary(document: Any, part: Mapping[str, Any]) -> bool:
    """The retired 0.x ``binary`` part rides as a document part with marker metadata (rule 5)."""
    mime_type = part.get("mimeType")
    for kind, key in (("data", "data"), ("url", "url"), ("url", "id")):
        if part.get(key):
            source = {"type": kind, "value": part[key], "mimeType": mime_type}
            break
    else:
        return False
    document.SetInParent()
    _fill_source(document.source, source)
    marker = {"legacyBinary": True, "filename": part.get("filename"), "id": part.get("id")}
    fill_value(document.metadata, {k: v for k, v in marker.items() if v is not None})
    return True


def fill_content_parts(repeated: Any, parts: Sequence[Any], where: str) -> None:
    """Append each part; a part with no wire form (not a 1.0 part) is an encoding error."""
    for index, part in enumerate(parts):
        if not isinstance(part, Mapping) or not _fill_part(repeated.add(), part):
            raise EncodingError(f"{where}[{index}]: content part has no protobuf form: {part!r}")


def _source_from_proto(message: Any) -> dict[str, Any]:
    kind = message.WhichOneof("source")
    if kind is None:
        raise WireProblem("content source carries no arm (data, url or file)")
    arm = getattr(message, kind)
    source: dict[str, Any] = {"type": kind, "value": arm.value}
    if kind == "data":
        source["mimeType"] = arm.mime_type
    else:
        copy_present(arm, source, (("mime_type", "mimeType"),))
        if kind == "file":
            copy_present(arm, source, (("provider", "provider"),))
    return source


def parts_from_proto(repeated: Any) -> list[dict[str, Any]]:
    """Content parts; a part with no arm this build knows is dropped (as JSON enforcement does)."""
    parts = []
    for index, message in enumerate(repeated):
        kind = message.WhichOneof("part")
        if kind is None:
            continue
        arm = getattr(message, kind)
        part: dict[str, Any] = {"type": kind}
        if arm.HasField("id"):
            part["id"] = arm.id
        field = "source"
        try:
            if kind == "text":
                part["text"] = arm.text
            elif arm.HasField("source"):
                part["source"] = _source_from_proto(arm.source)
            field = "metadata"
            if arm.HasField("metadata"):
                part["metadata"] = value_to_python(arm.metadata)
        except WireProblem as exc:
            raise exc.at(field).at(kind).at(f"[{index}]") from None
        parts.append(part)
    return parts


# --- messages -------------------------------------------------------------------------------


def _fill_tool_call(message: Any, call: Mapping[str, Any]) -> None:
    message.id = call["id"]
    message.type = call.get("type", "function")
    function = message.function
    function.SetInParent()
    function.name = call["function"]["name"]
    function.arguments = call["function"]["arguments"]
    if isinstance(call.get("metadata"), Mapping):
        message.metadata.SetInParent()
        fill_struct(message.metadata, call["metadata"])
    if call.get("encryptedValue") is not None:
        message.encrypted_value = call["encryptedValue"]
    if call.get("encryptedValueType") is not None:
        message.encrypted_value_type = call["encryptedValueType"]


def fill_message(message: Any, wire: Mapping[str, Any], where: str) -> None:
    """Fill an ``ag_ui.Message`` from a message's wire dict (any role)."""
    message.id = wire["id"]
    message.role = role = wire["role"]
    content = wire.get("content")
    if isinstance(content, list):
        fill_content_parts(message.content_parts, content, f"{where}.content")
    elif role == "activity":
        message.activity_content.SetInParent()
        fill_struct(message.activity_content, content if isinstance(content, Mapping) else {})
    elif content is not None:
        message.content = content
    set_present(message, wire, _MESSAGE_OPTIONAL)
    for call in wire.get("toolCalls") or ():
        _fill_tool_call(message.tool_calls.add(), call)
    if isinstance(wire.get("metadata"), Mapping):
        message.metadata.SetInParent()
        fill_struct(message.metadata, wire["metadata"])


def _tool_call_from_proto(message: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"id": message.id}
    if message.type:
        call["type"] = message.type
    if message.HasField("function"):
        call["function"] = {"name": message.function.name, "arguments": message.function.arguments}
    if message.HasField("metadata"):
        call["metadata"] = struct_to_dict(message.metadata)
    if message.HasField("encrypted_value"):
        call["encryptedValue"] = message.encrypted_value
    if message.HasField("encrypted_value_type"):
        call["encryptedValueType"] = message.encrypted_value_type
    return call


def message_from_proto(message: Any) -> dict[str, Any]:
    """A message's wire dict; the role decides which carrier feeds ``content`` (rule 6)."""
    role = message.role
    wire: dict[str, Any] = {"id": message.id, "role": role}
    has_string = message.HasField("content")
    has_parts = len(message.content_parts) > 0
    has_map = message.HasField("activity_content")
    if role in _KNOWN_ROLES:
        uses_parts = role in _PARTS_ROLES
        if has_parts and not uses_parts:
            raise WireProblem(f'a "{role}" message carries content parts (that role has none)')
        if has_map and role != "activity":
            raise WireProblem(f'a "{role}" message carries activity content')
        if role == "activity" and has_string:
            raise WireProblem("an activity message carries string content beside activity content")
        if has_string and has_parts:
            raise WireProblem("a message carries both string content and content parts")
    elif has_string + has_parts + has_map > 1:
        raise WireProblem("a message carries more than one content form")
    else:
        uses_parts = has_parts
    if has_string:
        wire["content"] = message.content
    elif uses_parts:
        try:
            wire["content"] = parts_from_proto(message.content_parts)
        except WireProblem as exc:
            raise exc.at("content_parts") from None
    elif has_map:
        wire["content"] = struct_to_dict(message.activity_content)
    copy_present(message, wire, _MESSAGE_OPTIONAL)
    if message.tool_calls:
        wire["toolCalls"] = [_tool_call_from_proto(call) for call in message.tool_calls]
    if message.HasField("metadata"):
        wire["metadata"] = struct_to_dict(message.metadata)
    return wire


# --- run input ------------------------------------------------------------------------------


def fill_input(message: Any, wire: Mapping[str, Any], where: str) -> None:
    """Fill an ``ag_ui.RunAgentInput`` from its wire dict."""
    message.thread_id = wire["threadId"]
    message.run_id = wire["runId"]
    set_present(
        message, wire, (("parent_run_id", "parentRunId"), ("protocol_version", "protocolVersion"))
    )
    if wire.get("state") is not None:
        fill_value(message.state, wire["state"])
    for index, item in enumerate(wire.get("messages") or ()):
        fill_message(message.messages.add(), item, f"{where}.messages[{index}]")
    for tool in wire.get("tools") or ():
        target = message.tools.add()
        target.name = tool["name"]
        target.description = tool["description"]
        if tool.get("parameters") is not None:
            fill_value(target.parameters, tool["parameters"])
        if isinstance(tool.get("metadata"), Mapping):
            target.metadata.SetInParent()
            fill_struct(target.metadata, tool["metadata"])
    for context in wire.get("context") or ():
        message.context.add(description=context["description"], value=context["value"])
    if wire.get("forwardedProps") is not None:
        fill_value(message.forwarded_props, wire["forwardedProps"])
    for entry in wire.get("resume") or ():
        target = message.resume.add(interrupt_id=entry["interruptId"], status=entry["status"])
        if entry.get("payload") is not None:
            fill_value(target.payload, entry["payload"])
        if isinstance(entry.get("metadata"), Mapping):
            target.metadata.SetInParent()
            fill_struct(target.metadata, entry["metadata"])


def input_from_proto(message: Any) -> dict[str, Any]:
    """The wire dict of an ``ag_ui.RunAgentInput``; an empty ``resume`` reads as absent."""
    wire: dict[str, Any] = {"threadId": message.thread_id, "runId": message.run_id}
    copy_present(
        message, wire, (("protocol_version", "protocolVersion"), ("parent_run_id", "parentRunId"))
    )
    try:
        if message.HasField("state"):
            wire["state"] = value_to_python(message.state)
    except WireProblem as exc:
        raise exc.at("state") from None
    messages = []
    for index, item in enumerate(message.messages):
        try:
            messages.append(message_from_proto(item))
        except WireProblem as exc:
            raise exc.at(f"[{index}]").at("messages") from None
    wire["messages"] = messages
    tools = []
    for tool in message.tools:
        entry: dict[str, Any] = {"name": tool.name, "description": tool.description}
        if tool.HasField("parameters"):
            entry["parameters"] = value_to_python(tool.parameters)
        if tool.HasField("metadata"):
            entry["metadata"] = struct_to_dict(tool.metadata)
        tools.append(entry)
    wire["tools"] = tools
    wire["context"] = [{"description": c.description, "value": c.value} for c in message.context]
    if message.HasField("forwarded_props"):
        wire["forwardedProps"] = value_to_python(message.forwarded_props)
    if message.resume:
        resume = []
        for item in message.resume:
            answer: dict[str, Any] = {"interruptId": item.interrupt_id, "status": item.status}
            if item.HasField("payload"):
                answer["payload"] = value_to_python(item.payload)
            if item.HasField("metadata"):
                answer["metadata"] = struct_to_dict(item.metadata)
            resume.append(answer)
        wire["resume"] = resume
    return wire
