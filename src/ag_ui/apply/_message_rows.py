"""Reducer rows that build messages from streams (PROTOCOL.md §6.4): text, reasoning, tools.

Each function takes the current ``AgentState`` and one event and returns the next state,
copying only the message (and tool call) the event changes.
"""

from __future__ import annotations

import warnings
from typing import Any, Union

from ag_ui.apply._state import (
    AgentState,
    RunSummary,
    push_message,
    replace_message,
    replaced_halves,
    to_wire,
    with_tool_call,
)
from ag_ui.core._surrogates import join_text
from ag_ui.core.events import (
    ReasoningEncryptedValueEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

_new = tuple.__new__
_fields_of = tuple.__iter__  # AgentState's own __iter__ refuses, on purpose
_MessageEvent = Union[
    TextMessageContentEvent,
    TextMessageEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
]

__all__ = [
    "ReducerWarning",
    "encrypted_value",
    "stream_content",
    "stream_end",
    "text_content",
    "reasoning_content",
    "stream_start",
    "tool_call_args",
    "tool_call_end",
    "tool_call_result",
    "tool_call_start",
]

MessageDict = dict[str, Any]


class ReducerWarning(UserWarning):
    """An event the reducer had to skip (e.g. content for a message that does not exist)."""


def _warn(text: str) -> None:
    warnings.warn(text, ReducerWarning, stacklevel=4)


def merge_metadata(target: MessageDict, metadata: dict[str, Any]) -> MessageDict:
    """A copy of ``target`` with ``metadata`` merged per top-level key (last write wins)."""
    existing = target.get("metadata")
    merged = dict(metadata) if existing is None else {**existing, **metadata}
    return {**target, "metadata": merged}


def _target(current: AgentState, event: _MessageEvent, what: str) -> int:
    position = current._index.get(event.message_id, -1)
    if position < 0:
        _warn(f"{what}: no message found with ID '{event.message_id}'; event skipped")
        return -1
    if current.message_at(position).get("role") == "activity":
        _warn(f"{what}: message '{event.message_id}' is an activity message; event skipped")
        return -1
    return position


def stream_start(
    current: AgentState,
    event: Union[TextMessageStartEvent, ReasoningMessageStartEvent],
    role: str,
    what: str,
) -> AgentState:
    """TEXT_MESSAGE_START / REASONING_MESSAGE_START: create the message unless it exists."""
    message_id = event.message_id
    position = current._index.get(message_id, -1)
    metadata = event.metadata
    if position >= 0:
        existing = current.message_at(position)
        if existing.get("role") == "activity":
            _warn(f"{what}: message '{message_id}' is an activity message; event skipped")
            return current
        if metadata is None:
            return current
        return replace_message(current, position, merge_metadata(existing, metadata))
    message: MessageDict = {"id": message_id, "role": role, "content": ""}
    name = getattr(event, "name", None)
    if name is not None:
        message["name"] = name
    if event.subagent_run_id is not None:
        message["subagentRunId"] = event.subagent_run_id
    if metadata is not None:
        message["metadata"] = dict(metadata)
    return push_message(current, message)


def stream_content(
    current: AgentState,
    event: Union[TextMessageContentEvent, ReasoningMessageContentEvent],
    what: str,
) -> AgentState:
    """TEXT_MESSAGE_CONTENT / REASONING_MESSAGE_CONTENT: append the delta."""
    # The hottest row of all (one per token): kept flat on purpose, the state's fields read in
    # one C call, and the common case (the last message grows) copies the short tail only.
    head, tail, state, interrupts, run, index, tool_index, _ = _fields_of(current)
    position = index.get(event.message_id, -1)
    split = len(head)
    if position < 0:
        _target(current, event, what)  # warns
        return current
    existing = head[position] if position < split else tail[position - split]
    if existing.get("role") == "activity":
        _target(current, event, what)  # warns
        return current
    content = existing.get("content")
    text = join_text(content if content.__class__ is str else "", event.delta)
    message = {**existing, "content": text}
    metadata = event.metadata
    if metadata is not None:
        message = merge_metadata(message, metadata)
    head, tail = replaced_halves(head, tail, position, message)
    return _new(AgentState, (head, tail, state, interrupts, run, index, tool_index, [None]))


def text_content(current: AgentState, event: TextMessageContentEvent) -> AgentState:
    """TEXT_MESSAGE_CONTENT (the reducer's row)."""
    return stream_content(current, event, "TEXT_MESSAGE_CONTENT")


def reasoning_content(current: AgentState, event: ReasoningMessageContentEvent) -> AgentState:
    return stream_content(current, event, "REASONING_MESSAGE_CONTENT")


def stream_end(
    current: AgentState,
    event: Union[TextMessageEndEvent, ReasoningMessageEndEvent],
    what: str,
) -> AgentState:
    """TEXT_MESSAGE_END / REASONING_MESSAGE_END: only metadata can change."""
    position = _target(current, event, what)
    if position < 0 or event.metadata is None:
        return current
    return replace_message(
        current, position, merge_metadata(current.message_at(position), event.metadata)
    )


def _find_tool_call(current: AgentState, call_id: str, *, assistant_only: bool) -> tuple[int, int]:
    """(message position, call position) of the first message carrying ``call_id``."""
    message_id = current._tool_index.get(call_id)
    if message_id is None:
        return -1, -1  # every call in the messages is indexed, so it is nowhere
    position = current._index.get(message_id, -1)
    if position >= 0:
        message = current.message_at(position)
        if not assistant_only or message.get("role") == "assistant":
            for call_position, call in enumerate(message.get("toolCalls") or ()):
                if call.get("id") == call_id:
                    return position, call_position
    # The indexed message lost the call (an activity replaced it) or is not an assistant:
    # fall back to the TypeScript reducer's scan.
    for position, message in enumerate(current.messages):
        calls = message.get("toolCalls")
        if calls and (not assistant_only or message.get("role") == "assistant"):
            for call_position, call in enumerate(calls):
                if call.get("id") == call_id:
                    return position, call_position
    return -1, -1


def _replace_call(
    current: AgentState, position: int, call_position: int, call: MessageDict
) -> AgentState:
    message = current.message_at(position)
    calls = list(message["toolCalls"])
    calls[call_position] = call
    return replace_message(current, position, {**message, "toolCalls": calls})


def tool_call_start(current: AgentState, event: ToolCallStartEvent) -> AgentState:
    """TOOL_CALL_START: idempotent; attach the call to its assistant message (or create one)."""
    call_id, name = event.tool_call_id, event.tool_call_name
    run = current.run
    if call_id not in run.tool_call_ids:
        run = RunSummary(
            tool_call_ids=(*run.tool_call_ids, call_id),
            answered_tool_call_ids=run.answered_tool_call_ids,
        )
        current = current.evolve(run=run)
    position, call_position = _find_tool_call(current, call_id, assistant_only=False)
    if position >= 0:
        call = current.message_at(position)["toolCalls"][call_position]
        renamed = call["function"]["name"] != name
        if renamed:
            _warn(
                f"TOOL_CALL_START: tool call '{call_id}' already exists with name "
                f"'{call['function']['name']}'; renaming it to '{name}'"
            )
            call = {**call, "function": {**call["function"], "name": name}}
        if event.metadata is not None:
            call = merge_metadata(call, event.metadata)
        if not renamed and event.metadata is None:
            return current
        return _replace_call(current, position, call_position, call)

    new_call: MessageDict = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    if event.metadata is not None:
        new_call["metadata"] = dict(event.metadata)
    parent_id = event.parent_message_id
    if parent_id:
        parent_position = current._index.get(parent_id, -1)
        if parent_position >= 0:
            parent = current.message_at(parent_position)
            if parent.get("role") == "assistant":
                calls = [*(parent.get("toolCalls") or ()), new_call]
                updated = replace_message(current, parent_position, {**parent, "toolCalls": calls})
                return updated.evolve(
                    messages=updated.messages,
                    index=updated._index,
                    tool_index=with_tool_call(current, call_id, parent_id),
                )
            _warn(
                f"TOOL_CALL_START: parentMessageId '{parent_id}' matches a "
                f"'{parent.get('role')}' message, not assistant; using the tool call id instead"
            )
            created_id = call_id
        else:
            created_id = parent_id
    else:
        created_id = call_id
    created: MessageDict = {"id": created_id, "role": "assistant", "toolCalls": [new_call]}
    if event.subagent_run_id is not None and created_id not in current._index:
        created["subagentRunId"] = event.subagent_run_id
    return push_message(current, created)


def tool_call_args(current: AgentState, event: ToolCallArgsEvent) -> AgentState:
    """TOOL_CALL_ARGS: append the delta to the call's arguments text."""
    position, call_position = _find_tool_call(current, event.tool_call_id, assistant_only=False)
    if position < 0:
        _warn(f"TOOL_CALL_ARGS: no tool call found with ID '{event.tool_call_id}'; skipped")
        return current
    call = current.message_at(position)["toolCalls"][call_position]
    function = call["function"]
    call = {
        **call,
        "function": {**function, "arguments": join_text(function["arguments"], event.delta)},
    }
    if event.metadata is not None:
        call = merge_metadata(call, event.metadata)
    return _replace_call(current, position, call_position, call)


def tool_call_end(current: AgentState, event: ToolCallEndEvent) -> AgentState:
    """TOOL_CALL_END: only the call's metadata can change."""
    position, call_position = _find_tool_call(current, event.tool_call_id, assistant_only=False)
    if position < 0:
        _warn(f"TOOL_CALL_END: no tool call found with ID '{event.tool_call_id}'; skipped")
        return current
    if event.metadata is None:
        return current
    call = merge_metadata(current.message_at(position)["toolCalls"][call_position], event.metadata)
    return _replace_call(current, position, call_position, call)


def tool_call_result(current: AgentState, event: ToolCallResultEvent) -> AgentState:
    """TOOL_CALL_RESULT: insert a tool message after the assistant message owning the call."""
    run = current.run
    run = RunSummary(
        tool_call_ids=run.tool_call_ids,
        answered_tool_call_ids=run.answered_tool_call_ids | {event.tool_call_id},
        outcome=run.outcome,
        result=run.result,
        pending_tool_call_ids=run.pending_tool_call_ids,
    )
    message: MessageDict = {
        "id": event.message_id,
        "toolCallId": event.tool_call_id,
        "role": event.role or "tool",
        "content": to_wire(event.content),
    }
    if event.subagent_run_id is not None:
        message["subagentRunId"] = event.subagent_run_id
    if event.metadata is not None:
        message["metadata"] = dict(event.metadata)
    owner, _ = _find_tool_call(current, event.tool_call_id, assistant_only=True)
    messages = current.messages
    if owner < 0:
        return push_message(current.evolve(run=run), message)
    insert_at = owner + 1
    while insert_at < len(messages) and messages[insert_at].get("role") == "tool":
        insert_at += 1
    return current.evolve(
        messages=(*messages[:insert_at], message, *messages[insert_at:]),
        run=run,
        tool_index=current._tool_index,
    )


def encrypted_value(current: AgentState, event: ReasoningEncryptedValueEvent) -> AgentState:
    """REASONING_ENCRYPTED_VALUE: set ``encryptedValue`` (and its type) on a call or a message."""
    if event.subtype == "tool-call":
        position, call_position = _find_tool_call(current, event.entity_id, assistant_only=True)
        if position < 0:
            return current
        call = current.message_at(position)["toolCalls"][call_position]
        return _replace_call(current, position, call_position, _with_value(call, event))
    position = current._index.get(event.entity_id, -1)
    if position < 0 or current.message_at(position).get("role") == "activity":
        return current
    return replace_message(current, position, _with_value(current.message_at(position), event))


def _with_value(entity: MessageDict, event: ReasoningEncryptedValueEvent) -> MessageDict:
    # The type describes the value it came with (1.1): a new value without one must not
    # inherit the type of the value it replaces.
    updated = {**entity, "encryptedValue": event.encrypted_value}
    if event.encrypted_value_type is None:
        updated.pop("encryptedValueType", None)
    else:
        updated["encryptedValueType"] = event.encrypted_value_type
    return updated
