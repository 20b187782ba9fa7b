"""A session: one conversation, recording or tapped thread, as the page sees it.

The session owns the rows (every event received, analysed once), the runs' requests, the
findings and the timing. What the page is shown is ``rows[:visible]``: a live session shows
everything as it arrives; a playback moves ``visible`` with the recording's clock, and a jump
just sets it, because every row (and the state after it) was computed when it was added.

Watchers wait on ``changed()``; every change bumps ``version`` and wakes them, and a change
that takes rows away (a backwards jump) also bumps ``generation`` so they start over.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Any, Optional

from ag_ui.apply import AgentState
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.types import RunAgentInput
from ag_ui.inspect._analysis import Analyzer, replay
from ag_ui.inspect._changes import Changes
from ag_ui.inspect._rows import Finding, Row, category_of, summary_of
from ag_ui.inspect._timing import Timing

__all__ = ["CHECKPOINT_EVERY", "RunInfo", "Session"]

CHECKPOINT_EVERY = 256
"""Rows between two kept copies of the conversation (a jump replays at most this many)."""


@dataclass
class RunInfo:
    """A run of the session: the request body that started it (if known) and where it began."""

    number: int
    first_row: int
    at: Optional[float] = None
    input: Optional[dict[str, Any]] = None
    trace_id: Optional[str] = None
    """The run's OpenTelemetry trace id, from the response's ``x-ag-ui-trace-id`` header."""


def _wire(event: AnyEvent) -> tuple[dict[str, Any], str]:
    text = event.model_dump_json(by_alias=True)
    return json.loads(text), text


@dataclass
class Session:
    """Rows, runs and findings of one conversation; see the module docstring."""

    id: str
    title: str
    kind: str  # "live", "recording" or "tap"
    source: Optional[str] = None
    transport: Optional[str] = None
    rows: list[Row] = field(default_factory=list)
    runs: list[RunInfo] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    status: dict[str, Any] = field(default_factory=dict)
    generation: int = 0
    follow: bool = True  # show every row as it is added (live); playback turns it off
    _visible: int = 0
    _analyzer: Analyzer = field(default_factory=Analyzer)
    _timing: Timing = field(default_factory=Timing)
    _timed_upto: int = 0
    # Where the messages can be rebuilt from: rows applied -> the AgentState after them (every
    # run's start, and every CHECKPOINT_EVERY rows). Keeping an AgentState per row would keep a
    # copy of the message list per event: quadratic memory in a long conversation.
    _bases: dict[int, AgentState] = field(default_factory=dict)
    _changes: Changes = field(default_factory=Changes)

    # -- building ------------------------------------------------------------------------------

    def begin_run(self, run_input: Optional[RunAgentInput], at: Optional[float]) -> RunInfo:
        """A new run starts here (a request was sent, or a recording's input line)."""
        for finding in self._analyzer.begin_run(run_input):
            self._attach(finding)
        body = None
        if run_input is not None:
            body = run_input.model_dump(by_alias=True, mode="json", exclude_none=True)
        info = RunInfo(number=len(self.runs), first_row=len(self.rows), at=at, input=body)
        self._bases[len(self.rows)] = self._analyzer.state  # a run starts from its request
        self.runs.append(info)
        self._changed_now()
        return info

    def add_event(self, event: AnyEvent, at: Optional[float], raw: Optional[str] = None) -> Row:
        """Analyse one received event and append its row."""
        if not self.runs:
            self.begin_run(None, None)
        index = len(self.rows)
        applied, findings, verified = self._analyzer.feed(event, index)
        wire, text = _wire(event)
        event_type = str(wire.get("type", ""))
        lane = wire.get("subagentRunId") if isinstance(wire.get("subagentRunId"), str) else None
        row = Row(
            index=index,
            run=len(self.runs) - 1,
            at=at,
            type=event_type,
            category=category_of(event_type),
            summary=summary_of(wire),
            wire=wire,
            wire_json=text,
            raw=raw,
            state=self._analyzer.state.state,
            applied=applied,
            lane=lane,
            verified=verified,
            findings=findings,
        )
        self.rows.append(row)
        if len(self.rows) % CHECKPOINT_EVERY == 0:
            self._bases[len(self.rows)] = self._analyzer.state
        if self.follow:
            self._visible = len(self.rows)
        self._changed_now()
        return row

    def end(self) -> None:
        """The stream is over: a run left open becomes a finding."""
        for finding in self._analyzer.finish():
            self._attach(finding)
        self._changed_now()

    def set_trace_id(self, trace_id: str) -> None:
        """The current run's trace id (docs/telemetry.md), shown with its first event."""
        if self.runs and self.runs[-1].trace_id is None:
            self.runs[-1].trace_id = trace_id
            self._changed_now()

    def note(self, text: str) -> None:
        self.notices.append(text)
        self._changed_now()

    def set_status(self, **fields: Any) -> None:
        self.status.update(fields)
        self._changed_now()

    def _attach(self, finding: Finding) -> None:
        if 0 <= finding.index < len(self.rows):
            self.rows[finding.index].findings.append(finding)
            if finding.index < self._visible:
                self.generation += 1  # a row already sent changed: the page starts over

    # -- what is shown ------------------------------------------------------------------------

    @property
    def visible(self) -> int:
        return self._visible

    def set_visible(self, count: int) -> None:
        """Show the first ``count`` rows (a playback step or a jump)."""
        count = max(0, min(count, len(self.rows)))
        if count == self._visible:
            return
        if count < self._visible:
            self.generation += 1
        self._visible = count
        self._changed_now()

    @property
    def timing(self) -> Timing:
        """The timing of the visible rows (rebuilt after a backwards jump)."""
        if self._timed_upto > self._visible:
            self._timing, self._timed_upto = Timing(), 0
        while self._timed_upto < self._visible:
            row = self.rows[self._timed_upto]
            while len(self._timing.runs) <= row.run:
                number = len(self._timing.runs)
                self._timing.begin_run(number, self.runs[number].at)
            self._timing.add(row)
            self._timed_upto += 1
        return self._timing

    def findings(self) -> list[Finding]:
        return [f for row in self.rows[: self._visible] for f in row.findings]

    def state_at(self, index: int) -> Any:
        """The agent state right after row ``index`` (-1: before the first row)."""
        if index < 0:
            return self._initial_state()
        return self.rows[index].state

    def agent_state(self, count: int) -> AgentState:
        """Messages, state and interrupts after the first ``count`` rows: the nearest checkpoint
        at or before ``count``, with the reducer replaying the rows after it."""
        if count == len(self.rows):
            return self._analyzer.state
        positions = sorted(self._bases)
        base = positions[bisect.bisect_right(positions, count) - 1] if positions else 0
        state = self._bases.get(base, AgentState())
        for row in self.rows[base:count]:
            state = replay(state, row.applied)
        return state

    def _initial_state(self) -> Any:
        first = self.runs[0].input if self.runs else None
        return first.get("state") if first else None

    def conversation(self) -> dict[str, Any]:
        """The messages as a user would see them after the last visible row."""
        if self._visible:
            agent_state = self.agent_state(self._visible)
            messages = list(agent_state.messages)
            interrupts = list(agent_state.pending_interrupts)
        else:
            first = self.runs[0].input if self.runs else None
            messages = list(first.get("messages", [])) if first else []
            interrupts = []
        return {"messages": messages, "interrupts": interrupts}

    def summary(self) -> dict[str, Any]:
        """What the session list shows."""
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "source": self.source,
            "transport": self.transport,
            "events": len(self.rows),
            "visible": self._visible,
            "runs": len(self.runs),
            "errors": sum(1 for f in self.findings() if f.severity == "error"),
            "status": self.status,
            "notices": self.notices,
            "timed": any(row.at is not None for row in self.rows[:1]),
            "duration": self.rows[-1].at if self.rows and self.rows[-1].at is not None else None,
        }

    def detail(self, index: int) -> dict[str, Any]:
        """Everything about one row: JSON decoded and as received, state, diff, findings."""
        from ag_ui.server import json_patch_diff

        row = self.rows[index]
        before, after = self.state_at(index - 1), row.state
        run = self.runs[row.run]
        return {
            "row": row.to_json(),
            "decoded": row.wire,
            "raw": row.raw,
            "state": after,
            "diff": json_patch_diff(before, after) if before != after else [],
            "findings": [f.to_json() for f in row.findings],
            "runInput": run.input if run.first_row == index else None,
            "traceId": run.trace_id if run.first_row == index else None,
            "gap": None
            if index == 0 or row.at is None or self.rows[index - 1].at is None
            else round(row.at - (self.rows[index - 1].at or 0.0), 6),
        }

    # -- change notification ------------------------------------------------------------------

    @property
    def version(self) -> int:
        """Bumped by every change (watchers compare it with what they last showed)."""
        return self._changes.version

    def _changed_now(self) -> None:
        self._changes.bump()

    async def changed(self, seen: int) -> None:
        """Return once ``version`` is past ``seen``."""
        await self._changes.wait(seen)
