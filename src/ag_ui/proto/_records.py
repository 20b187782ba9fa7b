"""Interrupts, token usage and JSON Patch operations <-> protobuf (PROTOCOL.md §4.5 rules 6-8).

Both directions work on wire dicts (camelCase JSON), like ``_messages``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ag_ui.core.errors import EncodingError
from ag_ui.proto._messages import copy_present, set_present
from ag_ui.proto._values import WireProblem, fill_value, value_to_python

__all__ = [
    "fill_interrupt",
    "fill_patch",
    "fill_usage",
    "interrupt_from_proto",
    "patch_from_proto",
    "usage_from_proto",
]

_INTERRUPT_OPTIONAL = (
    ("message", "message"),
    ("tool_call_id", "toolCallId"),
    ("expires_at", "expiresAt"),
    ("subagent_run_id", "subagentRunId"),
)
_USAGE_FIELDS = (
    ("provider", "provider"),
    ("model", "model"),
    ("input_tokens", "inputTokens"),
    ("output_tokens", "outputTokens"),
    ("total_tokens", "totalTokens"),
    ("reasoning_tokens", "reasoningTokens"),
    ("cached_input_tokens", "cachedInputTokens"),
    ("cache_write_input_tokens", "cacheWriteInputTokens"),
)
_PATCH_OPS = ("add", "remove", "replace", "move", "copy", "test")


def fill_interrupt(message: Any, wire: Mapping[str, Any]) -> None:
    message.id = wire["id"]
    message.reason = wire["reason"]
    set_present(message, wire, _INTERRUPT_OPTIONAL)
    if wire.get("responseSchema") is not None:
        fill_value(message.response_schema, wire["responseSchema"])
    if wire.get("metadata") is not None:
        fill_value(message.metadata, wire["metadata"])


def interrupt_from_proto(message: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {"id": message.id, "reason": message.reason}
    copy_present(message, wire, _INTERRUPT_OPTIONAL)
    if message.HasField("response_schema"):
        wire["responseSchema"] = value_to_python(message.response_schema)
    if message.HasField("metadata"):
        wire["metadata"] = value_to_python(message.metadata)
    return wire


def fill_usage(message: Any, wire: Mapping[str, Any]) -> None:
    set_present(message, wire, _USAGE_FIELDS)


def usage_from_proto(message: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {}
    copy_present(message, wire, _USAGE_FIELDS)
    return wire


def fill_patch(repeated: Any, operations: Sequence[Mapping[str, Any]], where: str) -> None:
    """Append RFC 6902 operations; ``op`` travels as the ``JsonPatchOperationType`` enum."""
    for index, operation in enumerate(operations):
        op = operation.get("op")
        if op not in _PATCH_OPS:
            raise EncodingError(f"{where}[{index}].op: {op!r} is not a JSON Patch operation")
        target = repeated.add()
        target.op = _PATCH_OPS.index(op)
        target.path = operation.get("path", "")
        if operation.get("from") is not None:
            setattr(target, "from", operation["from"])
        if "value" in operation:
            fill_value(target.value, operation["value"])


def patch_from_proto(repeated: Any) -> list[dict[str, Any]]:
    """Operations as wire dicts; an enum number this build cannot name stays its decimal string."""
    operations = []
    for index, message in enumerate(repeated):
        number = message.op
        operation: dict[str, Any] = {
            "op": _PATCH_OPS[number] if 0 <= number < len(_PATCH_OPS) else str(number),
            "path": message.path,
        }
        if message.HasField("from"):
            operation["from"] = getattr(message, "from")
        if message.HasField("value"):
            try:
                operation["value"] = value_to_python(message.value)
            except WireProblem as exc:
                raise exc.at("value").at(f"[{index}]") from None
        operations.append(operation)
    return operations
