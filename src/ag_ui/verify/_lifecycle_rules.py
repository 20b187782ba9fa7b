"""Verifier rules for steps (S1-S3), activity ownership and subagents (N2-N5, A1-A6).

Part of ``EventVerifier`` (see ``_handlers.py`` for text, tool calls and reasoning).
"""

from __future__ import annotations

from typing import Any, NoReturn, Optional, Union

from ag_ui.core._wire import event_type_name
from ag_ui.core.errors import EventSequenceError
from ag_ui.core.events import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
)
from ag_ui.core.outcomes import UnknownOutcome
from ag_ui.verify._forward import warn_unknown
from ag_ui.verify._nulls import explicit_null, null_error
from ag_ui.verify._ownership import Owners

__all__ = ["LifecycleRules"]


def _field(obj: Any, name: str, wire: str) -> Any:
    # Outcomes are models after parsing, but an in-process producer may hand over dicts.
    if isinstance(obj, dict):
        return obj.get(wire, obj.get(name))
    return getattr(obj, name, None)


_SubagentEvent = Union[SubagentStartedEvent, SubagentFinishedEvent, SubagentErrorEvent]


def _fail(rule: str, event_type: str, message: str, **ids: Any) -> NoReturn:
    raise EventSequenceError(message, rule=rule, event_type=event_type, ids=ids)


class LifecycleRules:
    owners: Owners
    null_checks: bool
    open_steps: dict[Optional[str], dict[str, None]]
    active_subagents: dict[str, None]
    closed_subagents: set[str]

    # -- steps (S1-S3), keyed by (owner, name) ---------------------------------------------

    def _step_started(self, event: StepStartedEvent) -> None:
        name, owner = event.step_name, event.subagent_run_id
        steps = self.open_steps.setdefault(owner, {})
        if name in steps:
            where = f" in subagent '{owner}'" if owner is not None else ""
            _fail(
                "S1",
                "STEP_STARTED",
                f'Step "{name}" is already active for '
                f"'STEP_STARTED'{where}. Finish it with 'STEP_FINISHED' first.",
                step_name=name,
                subagent_run_id=owner,
            )
        steps[name] = None

    def _step_finished(self, event: StepFinishedEvent) -> None:
        name, owner = event.step_name, event.subagent_run_id
        steps = self.open_steps.get(owner)
        if steps is not None and name in steps:
            del steps[name]
            return
        for other, other_steps in self.open_steps.items():
            if other != owner and name in other_steps:
                mine = f"subagent '{owner}'" if owner is not None else "the parent agent"
                theirs = f"subagent '{other}'" if other is not None else "the parent agent"
                _fail(
                    "S2",
                    "STEP_FINISHED",
                    f"Cannot send 'STEP_FINISHED' for step "
                    f'"{name}" attributed to {mine}: that step is open under {theirs}. A '
                    "step must be finished by whoever started it.",
                    step_name=name,
                    subagent_run_id=owner,
                    owner=other,
                )
        _fail(
            "S3",
            "STEP_FINISHED",
            f"Cannot send 'STEP_FINISHED' for step \"{name}\" that "
            "was not started. Send 'STEP_STARTED' first.",
            step_name=name,
            subagent_run_id=owner,
        )

    # -- activity (ownership only) ---------------------------------------------------------

    def _activity_snapshot(self, event: ActivitySnapshotEvent) -> None:
        message_id = event.message_id
        # Only a replacing snapshot re-mints (and so re-owns) a known activity.
        if message_id not in self.owners.activity or event.replace is not False:
            self.owners.activity[message_id] = event.subagent_run_id

    def _activity_delta(self, event: ActivityDeltaEvent) -> None:
        tag = event.subagent_run_id
        if tag is not None:
            self.owners.check(
                self.owners.activity, tag, event.message_id, "activity", "ACTIVITY_DELTA"
            )

    # -- subagents (N2-N5, A1-A6) ----------------------------------------------------------

    def _subagent_nulls(
        self, event: _SubagentEvent, name: str, fields: tuple[tuple[str, str], ...]
    ) -> None:
        if self.null_checks:
            for attribute, wire in fields:
                if explicit_null(event, attribute):
                    null_error("N2", name, wire, {"subagent_run_id": event.subagent_run_id})
        outcome = getattr(event, "outcome", None)
        if outcome is None:
            return
        if isinstance(outcome, UnknownOutcome):  # kept, warned about, counts as none
            warn_unknown(f"{name}: outcome type {outcome.type!r} is not one this SDK knows")
            return
        kind = _field(outcome, "type", "type")
        if kind not in ("success", "suspended"):
            _fail(
                "N3",
                name,
                f"Cannot send '{name}' with outcome type '{kind}'. The outcome is "
                'either { type: "success" } or { type: "suspended" }.',
            )
        if self.null_checks and (
            explicit_null(outcome, "interrupt_ids")
            or (
                isinstance(outcome, dict)
                and "interruptIds" in outcome
                and outcome["interruptIds"] is None
            )
        ):
            null_error("N4", name, "outcome.interruptIds", {})
        ids = _field(outcome, "interrupt_ids", "interruptIds")
        if isinstance(ids, list) and any(not isinstance(i, str) for i in ids):
            _fail(
                "N5",
                name,
                f"Cannot send '{name}' with a non-string entry in "
                "'outcome.interruptIds'. Interrupt ids are strings.",
            )

    def _subagent_started(self, event: SubagentStartedEvent) -> None:
        self._subagent_nulls(
            event,
            "SUBAGENT_STARTED",
            (
                ("description", "description"),
                ("parent_subagent_run_id", "parentSubagentRunId"),
                ("parent_tool_call_id", "parentToolCallId"),
                ("parent_message_id", "parentMessageId"),
            ),
        )
        run_id = getattr(event, "subagent_run_id", None)
        if not isinstance(run_id, str):
            _fail(
                "A1",
                "SUBAGENT_STARTED",
                "Cannot send 'SUBAGENT_STARTED' without a 'subagentRunId'.",
            )
        if not isinstance(getattr(event, "name", None), str):
            _fail(
                "A1",
                "SUBAGENT_STARTED",
                "Cannot send 'SUBAGENT_STARTED' without a 'name'.",
                subagent_run_id=run_id,
            )
        if run_id in self.active_subagents:
            _fail(
                "A2",
                "SUBAGENT_STARTED",
                f"Cannot send 'SUBAGENT_STARTED': subagent "
                f"'{run_id}' is already active. Finish it with 'SUBAGENT_FINISHED' first.",
                subagent_run_id=run_id,
            )
        if run_id in self.closed_subagents:
            _fail(
                "A3",
                "SUBAGENT_STARTED",
                f"Cannot send 'SUBAGENT_STARTED': subagent "
                f"'{run_id}' has already finished in this run. Subagent IDs are "
                "per-invocation and cannot be reused.",
                subagent_run_id=run_id,
            )
        parent = getattr(event, "parent_subagent_run_id", None)
        if (
            parent is not None
            and parent not in self.active_subagents
            and parent not in self.closed_subagents
        ):
            _fail(
                "A4",
                "SUBAGENT_STARTED",
                f"Cannot send 'SUBAGENT_STARTED': "
                f"parentSubagentRunId '{parent}' has not been started in this run.",
                subagent_run_id=run_id,
                parent_subagent_run_id=parent,
            )
        self.active_subagents[run_id] = None

    def _subagent_closed(self, event: Union[SubagentFinishedEvent, SubagentErrorEvent]) -> None:
        name = event_type_name(event)
        is_error = isinstance(event, SubagentErrorEvent)
        self._subagent_nulls(
            event, name, (("code", "code"),) if is_error else (("outcome", "outcome"),)
        )
        run_id = getattr(event, "subagent_run_id", None)
        if not isinstance(run_id, str):
            _fail("A5", name, f"Cannot send '{name}' without a 'subagentRunId'.")
        if is_error and not isinstance(getattr(event, "message", None), str):
            _fail(
                "A5",
                name,
                "Cannot send 'SUBAGENT_ERROR' without a 'message'.",
                subagent_run_id=run_id,
            )
        if run_id not in self.active_subagents:
            _fail(
                "A6",
                name,
                f"Cannot send '{name}': no active subagent found with ID "
                f"'{run_id}'. A 'SUBAGENT_STARTED' event must be sent first.",
                subagent_run_id=run_id,
            )
        del self.active_subagents[run_id]
        self.closed_subagents.add(run_id)
