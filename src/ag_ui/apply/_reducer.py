"""``apply_event(state, event) -> state``: the default reducer of PROTOCOL.md §6.4.

Pure: the given ``AgentState`` is never changed. Events that only notify (RAW, CUSTOM, STEP_*,
REASONING_START/END, SUBAGENT_*, RUN_ERROR) return the same state object.

A STATE_DELTA or ACTIVITY_DELTA whose patch cannot be applied raises ``PatchError`` with
``agent_state`` set to the state to continue with (the previous state; for ACTIVITY_DELTA the
event's metadata is already merged, as in the TypeScript client). ``EventPipeline`` catches it,
continues with that state, warns and records it in ``patch_errors``.
"""

from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel

from ag_ui.apply import _message_rows as rows
from ag_ui.apply import _snapshot_rows as snapshots
from ag_ui.apply._state import AgentState
from ag_ui.core._wire import not_an_event
from ag_ui.core.errors import ChunkExpansionError
from ag_ui.core.events import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    Event,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningMessageChunkEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

__all__ = ["apply_event"]

Row = Callable[[AgentState, Any], AgentState]


def _unexpanded(current: AgentState, event: Event) -> AgentState:
    name = event.type.value
    raise ChunkExpansionError(
        f"{name} must be expanded before being applied; feed events through "
        "ag_ui.verify.ChunkExpander or ag_ui.apply.EventPipeline.",
        rule="X0",
        event_type=name,
    )


def _state_snapshot(current: AgentState, event: StateSnapshotEvent) -> AgentState:
    return current.evolve(state=event.snapshot)


_ROWS: dict[type, Row] = {
    TextMessageStartEvent: lambda s, e: rows.stream_start(s, e, e.role, "TEXT_MESSAGE_START"),
    TextMessageContentEvent: rows.text_content,
    TextMessageEndEvent: lambda s, e: rows.stream_end(s, e, "TEXT_MESSAGE_END"),
    ReasoningMessageStartEvent: lambda s, e: rows.stream_start(
        s, e, "reasoning", "REASONING_MESSAGE_START"
    ),
    ReasoningMessageContentEvent: rows.reasoning_content,
    ReasoningMessageEndEvent: lambda s, e: rows.stream_end(s, e, "REASONING_MESSAGE_END"),
    ToolCallStartEvent: rows.tool_call_start,
    ToolCallArgsEvent: rows.tool_call_args,
    ToolCallEndEvent: rows.tool_call_end,
    ToolCallResultEvent: rows.tool_call_result,
    ReasoningEncryptedValueEvent: rows.encrypted_value,
    StateSnapshotEvent: _state_snapshot,
    StateDeltaEvent: snapshots.state_delta,
    MessagesSnapshotEvent: snapshots.messages_snapshot,
    ActivitySnapshotEvent: snapshots.activity_snapshot,
    ActivityDeltaEvent: snapshots.activity_delta,
    RunStartedEvent: snapshots.run_started,
    RunFinishedEvent: snapshots.run_finished,
    TextMessageChunkEvent: _unexpanded,
    ToolCallChunkEvent: _unexpanded,
    ReasoningMessageChunkEvent: _unexpanded,
}


def _no_change(current: AgentState, event: Event) -> AgentState:
    return current


def _row_for(cls: type, event: object) -> Row:
    if not isinstance(event, BaseModel) or not hasattr(event, "type"):
        not_an_event(event)
    for base in cls.__mro__:
        if base in _ROWS:
            return _ROWS[base]
    return _no_change


def apply_event(state: AgentState, event: Event) -> AgentState:
    """Apply one (expanded) event to ``state`` and return the new state.

    >>> from ag_ui.core import TextMessageStartEvent, TextMessageContentEvent
    >>> s = apply_event(AgentState(), TextMessageStartEvent(message_id="m1"))
    >>> apply_event(s, TextMessageContentEvent(message_id="m1", delta="Hi")).messages
    ({'id': 'm1', 'role': 'assistant', 'content': 'Hi'},)
    """
    cls = event.__class__
    row = _ROWS.get(cls)
    if row is None:
        row = _ROWS[cls] = _row_for(cls, event)
    return row(state, event)
