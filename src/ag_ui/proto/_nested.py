"""The eight events with nested protocol types (messages, parts, run input, patches, outcomes,
usage): how their special fields map to protobuf and back (PROTOCOL.md §4.5 rules 4-9).

The codec copies every other field by name; it calls ``encode_nested`` / ``decode_nested`` for
the fields listed in ``SPECIAL_FIELDS``.
"""

from __future__ import annotations

from typing import Any

from ag_ui.proto import _messages, _records
from ag_ui.proto._values import WireProblem

__all__ = ["SPECIAL_FIELDS", "decode_nested", "encode_nested"]

# Fields whose mapping is not "copy by name": handled by the per-event hooks below.
SPECIAL_FIELDS: dict[str, frozenset[str]] = {
    "TOOL_CALL_RESULT": frozenset({"content", "content_parts"}),
    "STATE_DELTA": frozenset({"delta"}),
    "ACTIVITY_DELTA": frozenset({"patch"}),
    "MESSAGES_SNAPSHOT": frozenset({"messages"}),
    "RUN_STARTED": frozenset({"input"}),
    "RUN_FINISHED": frozenset({"outcome", "interrupts", "usage", "pending_tool_call_ids"}),
    "RUN_ERROR": frozenset({"usage"}),
    "SUBAGENT_FINISHED": frozenset({"outcome", "interrupt_ids"}),
}


def _dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json") if hasattr(model, "model_dump") else model


def encode_nested(type_name: str, event: Any, arm: Any) -> None:
    """Write the ``SPECIAL_FIELDS`` of ``event`` into its envelope arm message ``arm``."""
    if type_name == "TOOL_CALL_RESULT":
        if isinstance(event.content, str):
            arm.content = event.content
        else:
            parts = [_dump(part) for part in event.content]
            _messages.fill_content_parts(arm.content_parts, parts, "content")
    elif type_name == "STATE_DELTA":
        _records.fill_patch(arm.delta, event.delta, "delta")
    elif type_name == "ACTIVITY_DELTA":
        _records.fill_patch(arm.patch, event.patch, "patch")
    elif type_name == "MESSAGES_SNAPSHOT":
        for index, message in enumerate(event.messages):
            _messages.fill_message(arm.messages.add(), _dump(message), f"messages[{index}]")
    elif type_name == "RUN_STARTED":
        if event.input is not None:
            arm.input.SetInParent()
            _messages.fill_input(arm.input, _dump(event.input), "input")
    elif type_name == "RUN_FINISHED":
        _encode_usage(arm, event.usage)
        outcome = _dump(event.outcome)
        if outcome is not None:
            arm.outcome = outcome["type"]
            arm.pending_tool_call_ids.extend(outcome.get("pendingToolCallIds") or ())
            for interrupt in outcome.get("interrupts") or ():
                _records.fill_interrupt(arm.interrupts.add(), interrupt)
    elif type_name == "RUN_ERROR":
        _encode_usage(arm, event.usage)
    elif type_name == "SUBAGENT_FINISHED":
        outcome = _dump(event.outcome)
        if outcome is not None:
            arm.outcome = outcome["type"]
            arm.interrupt_ids.extend(outcome.get("interruptIds") or ())


def _encode_usage(arm: Any, usage: Any) -> None:
    for entry in usage or ():
        _records.fill_usage(arm.usage.add(), _dump(entry))


def decode_nested(type_name: str, arm: Any, wire: dict[str, Any]) -> None:
    """Read the ``SPECIAL_FIELDS`` of the arm message ``arm`` into the wire dict ``wire``."""
    if type_name == "TOOL_CALL_RESULT":
        has_parts = len(arm.content_parts) > 0
        if arm.HasField("content"):
            if has_parts:
                raise WireProblem("carries both string content and content parts")
            wire["content"] = arm.content
        else:
            try:
                wire["content"] = _messages.parts_from_proto(arm.content_parts)
            except WireProblem as exc:
                raise exc.at("content_parts") from None
    elif type_name == "STATE_DELTA":
        try:
            wire["delta"] = _records.patch_from_proto(arm.delta)
        except WireProblem as exc:
            raise exc.at("delta") from None
    elif type_name == "ACTIVITY_DELTA":
        try:
            wire["patch"] = _records.patch_from_proto(arm.patch)
        except WireProblem as exc:
            raise exc.at("patch") from None
    elif type_name == "MESSAGES_SNAPSHOT":
        messages = []
        for index, message in enumerate(arm.messages):
            try:
                messages.append(_messages.message_from_proto(message))
            except WireProblem as exc:
                raise exc.at(f"[{index}]").at("messages") from None
        wire["messages"] = messages
    elif type_name == "RUN_STARTED":
        if arm.HasField("input"):
            try:
                wire["input"] = _messages.input_from_proto(arm.input)
            except WireProblem as exc:
                raise exc.at("input") from None
    elif type_name == "RUN_FINISHED":
        _decode_usage(arm, wire)
        _decode_run_outcome(arm, wire)
    elif type_name == "RUN_ERROR":
        _decode_usage(arm, wire)
    elif type_name == "SUBAGENT_FINISHED" and arm.outcome:
        outcome: dict[str, Any] = {"type": arm.outcome}
        if arm.interrupt_ids:
            outcome["interruptIds"] = list(arm.interrupt_ids)
        wire["outcome"] = outcome


def _decode_usage(arm: Any, wire: dict[str, Any]) -> None:
    if arm.usage:
        wire["usage"] = [_records.usage_from_proto(entry) for entry in arm.usage]


def _decode_run_outcome(arm: Any, wire: dict[str, Any]) -> None:
    """``outcome`` "" means none; its payload rides beside it (rule 7 of §4.5)."""
    if not arm.outcome:
        return
    outcome: dict[str, Any] = {"type": arm.outcome}
    if arm.interrupts or arm.outcome == "interrupt":
        outcome["interrupts"] = [_records.interrupt_from_proto(item) for item in arm.interrupts]
    if arm.pending_tool_call_ids:
        outcome["pendingToolCallIds"] = list(arm.pending_tool_call_ids)
    wire["outcome"] = outcome
