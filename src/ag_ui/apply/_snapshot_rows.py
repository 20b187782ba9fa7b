"""Reducer rows that replace or patch whole things (PROTOCOL.md §6.4): MESSAGES_SNAPSHOT,
ACTIVITY_SNAPSHOT/DELTA, STATE_SNAPSHOT/DELTA, RUN_STARTED and RUN_FINISHED."""

from __future__ import annotations

from typing import Any, Optional, Union

from ag_ui.apply._message_rows import MessageDict, ReducerWarning, _warn, merge_metadata
from ag_ui.apply._state import AgentState, RunSummary, push_message, replace_message, to_wire
from ag_ui.core.errors import PatchError
from ag_ui.core.events import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    MessagesSnapshotEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateDeltaEvent,
)
from ag_ui.json_patch import apply_patch
from ag_ui.verify._forward import known_operations

__all__ = [
    "ACTIVITY_HISTORY_METADATA",
    "ReducerWarning",
    "activity_delta",
    "activity_snapshot",
    "authoritative_activity_types",
    "messages_snapshot",
    "run_finished",
    "run_started",
    "state_delta",
]

ACTIVITY_HISTORY_METADATA = "@ag-ui/client"
"""MESSAGES_SNAPSHOT metadata key by which a snapshot claims authority over activity types."""

_LEGACY = "legacy"


def authoritative_activity_types(metadata: Optional[dict[str, Any]]) -> Union[list[str], str, None]:
    """Which activity types a MESSAGES_SNAPSHOT owns, read from its metadata.

    ``None``: all types; a list: exactly those; ``"legacy"``: not declared (the snapshot owns
    all types iff it carries an activity message). An invalid declaration owns nothing (``[]``).
    """
    if not metadata or ACTIVITY_HISTORY_METADATA not in metadata:
        return _LEGACY
    value = metadata[ACTIVITY_HISTORY_METADATA]
    if not isinstance(value, dict):
        # JS truthiness: a non-empty string/number/list is not an object either -> owns none.
        return []
    if "authoritativeActivityTypes" not in value:
        return _LEGACY
    types = value["authoritativeActivityTypes"]
    if types is None:
        return None
    if isinstance(types, list) and all(isinstance(t, str) for t in types):
        return list(types)
    return []


def messages_snapshot(current: AgentState, event: MessagesSnapshotEvent) -> AgentState:
    """Keep matching ids (replaced) and preserved client-only messages; append the rest."""
    incoming: list[MessageDict] = [to_wire(m) for m in event.messages]
    by_id = {m["id"]: m for m in incoming}
    owned = authoritative_activity_types(event.metadata)
    has_activity = any(m.get("role") == "activity" for m in incoming)
    has_reasoning = any(m.get("role") == "reasoning" for m in incoming)

    def preserved(message: MessageDict) -> bool:
        role = message.get("role")
        if role == "activity":
            if isinstance(owned, list):
                return message.get("activityType") not in owned
            return owned is not None and not has_activity
        return role == "reasoning" and not has_reasoning

    kept = [by_id.get(m["id"], m) for m in current.messages if m["id"] in by_id or preserved(m)]
    present = {m["id"] for m in kept}
    kept.extend(m for m in incoming if m["id"] not in present)
    return current.evolve(messages=tuple(kept))


def activity_snapshot(current: AgentState, event: ActivitySnapshotEvent) -> AgentState:
    """Create, replace (``replace`` absent/true) or keep an activity message."""
    activity: MessageDict = {
        "id": event.message_id,
        "role": "activity",
        "activityType": event.activity_type,
        "content": event.content,
    }
    if event.subagent_run_id is not None:
        activity["subagentRunId"] = event.subagent_run_id
    position = current._index.get(event.message_id, -1)
    replace = event.replace is not False
    if position < 0:
        result = activity
    else:
        existing = current.message_at(position)
        if existing.get("role") == "activity":
            if replace:
                result = {
                    **existing,
                    "activityType": event.activity_type,
                    "content": event.content,
                    "subagentRunId": event.subagent_run_id,
                }
                if event.subagent_run_id is None:
                    del result["subagentRunId"]
            else:
                result = existing
        elif replace:
            result = activity
        else:
            return current
    if event.metadata is not None:
        result = merge_metadata(result, event.metadata)
    if position < 0:
        return push_message(current, result)
    if result is current.message_at(position):
        return current
    return replace_message(current, position, result)


def activity_delta(current: AgentState, event: ActivityDeltaEvent) -> AgentState:
    """Patch an activity's content; metadata is merged first and kept if the patch fails."""
    position = current._index.get(event.message_id, -1)
    if position < 0:
        return current
    existing = current.message_at(position)
    if existing.get("role") != "activity":
        _warn(f"ACTIVITY_DELTA: message '{event.message_id}' is not an activity message")
        return current
    if event.metadata is not None:
        existing = merge_metadata(existing, event.metadata)
        current = replace_message(current, position, existing)
    try:
        patch = known_operations(event.patch, "ACTIVITY_DELTA")
        content = apply_patch(existing.get("content") or {}, patch)
    except PatchError as error:
        error.event = event
        error.agent_state = current
        raise
    updated = {**existing, "content": content, "activityType": event.activity_type}
    return replace_message(current, position, updated)


def state_delta(current: AgentState, event: StateDeltaEvent) -> AgentState:
    """RFC 6902 patch of the state; on failure ``PatchError`` (the state is unchanged)."""
    try:
        state = apply_patch(current.state, known_operations(event.delta, "STATE_DELTA"))
    except PatchError as error:
        error.event = event
        error.agent_state = current
        raise
    return current.evolve(state=state)


def run_started(current: AgentState, event: RunStartedEvent) -> AgentState:
    """Reset the run's tool-call tally; append input messages whose ids are new."""
    current = current.evolve(run=RunSummary())
    run_input = event.input
    if run_input is None:
        return current
    for message in run_input.messages:
        wire = to_wire(message)
        if wire["id"] not in current._index:
            current = push_message(current, wire)
    return current


def run_finished(current: AgentState, event: RunFinishedEvent) -> AgentState:
    """Record the outcome, result, pending tool calls and pending interrupts."""
    run = current.run
    outcome = event.outcome
    kind = getattr(outcome, "type", None) or "success"
    if isinstance(outcome, RunFinishedInterruptOutcome):
        interrupts = tuple(to_wire(i) for i in outcome.interrupts)
        summary = RunSummary(run.tool_call_ids, run.answered_tool_call_ids, "interrupt")
        return current.evolve(run=summary, pending_interrupts=interrupts)
    if kind == "cancelled":
        summary = RunSummary(run.tool_call_ids, run.answered_tool_call_ids, "cancelled")
        return current.evolve(run=summary, pending_interrupts=())
    named = getattr(outcome, "pending_tool_call_ids", None) if outcome is not None else None
    if named:
        pending = tuple(named)
    else:
        pending = tuple(i for i in run.tool_call_ids if i not in run.answered_tool_call_ids)
    summary = RunSummary(
        run.tool_call_ids, run.answered_tool_call_ids, "success", event.result, pending
    )
    return current.evolve(run=summary, pending_interrupts=())
