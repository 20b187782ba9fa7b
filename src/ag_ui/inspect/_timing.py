"""Timing of a session: time to first event and first text, rates, the longest gaps, and the
spans of a waterfall (runs, messages, tool calls, steps, reasoning, subagents).

Fed one row at a time (``add``), so a live session and a playback keep it current cheaply;
a backwards seek rebuilds it from the rows still shown.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any, Optional

from ag_ui.inspect._rows import Row

__all__ = ["MAX_SPANS", "Timing"]

MAX_SPANS = 2000
"""The waterfall keeps this many spans; a longer session says how many it left out."""

_LONGEST_GAPS = 5

_TEXT_CONTENT = ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK")


@dataclass
class _RunTiming:
    run: int
    run_id: Optional[str] = None
    requested_at: Optional[float] = None
    first_event_at: Optional[float] = None
    first_text_at: Optional[float] = None
    last_text_at: Optional[float] = None
    last_event_at: Optional[float] = None
    events: int = 0
    chars: int = 0
    status: str = "open"

    def to_json(self) -> dict[str, Any]:
        start = self.requested_at if self.requested_at is not None else self.first_event_at
        duration = _minus(self.last_event_at, start)
        text_time = _minus(self.last_text_at, self.first_text_at)
        return {
            "run": self.run,
            "runId": self.run_id,
            "events": self.events,
            "chars": self.chars,
            "status": self.status,
            "ttfe": _minus(self.first_event_at, start),
            "ttft": _minus(self.first_text_at, start),
            "duration": duration,
            "eventsPerSec": _rate(self.events, duration),
            "charsPerSec": _rate(self.chars, text_time),
        }


def _minus(end: Optional[float], start: Optional[float]) -> Optional[float]:
    if end is None or start is None:
        return None
    return round(end - start, 6)


def _rate(count: int, seconds: Optional[float]) -> Optional[float]:
    if not seconds or seconds <= 0:
        return None
    return round(count / seconds, 1)


@dataclass
class _Span:
    kind: str
    key: str
    label: str
    start: Optional[float]
    first: int
    end: Optional[float] = None
    last: int = -1
    lane: Optional[str] = None
    open: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.key,
            "label": self.label,
            "start": self.start,
            "end": self.end,
            "i0": self.first,
            "i1": self.last,
            "lane": self.lane,
            "open": self.open,
        }


# (kind, id field, label field, opening types, closing types, types that extend the span)
_SPAN_RULES: tuple[tuple[str, str, Optional[str], tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "message",
        "messageId",
        "role",
        ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK"),
        ("TEXT_MESSAGE_END",),
    ),
    (
        "tool",
        "toolCallId",
        "toolCallName",
        ("TOOL_CALL_START", "TOOL_CALL_CHUNK"),
        ("TOOL_CALL_END", "TOOL_CALL_RESULT"),
    ),
    ("step", "stepName", "stepName", ("STEP_STARTED",), ("STEP_FINISHED",)),
    ("reasoning", "messageId", None, ("REASONING_START",), ("REASONING_END",)),
    (
        "subagent",
        "subagentRunId",
        "name",
        ("SUBAGENT_STARTED",),
        ("SUBAGENT_FINISHED", "SUBAGENT_ERROR"),
    ),
)

_EXTENDS = {
    "TEXT_MESSAGE_CONTENT": ("message", "messageId"),
    "TEXT_MESSAGE_CHUNK": ("message", "messageId"),
    "TOOL_CALL_ARGS": ("tool", "toolCallId"),
    "TOOL_CALL_CHUNK": ("tool", "toolCallId"),
    "REASONING_MESSAGE_START": ("reasoning", "messageId"),
    "REASONING_MESSAGE_CONTENT": ("reasoning", "messageId"),
    "REASONING_MESSAGE_END": ("reasoning", "messageId"),
}


@dataclass
class Timing:
    """The timing view of the rows added so far."""

    runs: list[_RunTiming] = field(default_factory=list)
    _gaps: list[tuple[float, int]] = field(default_factory=list)  # a min-heap of the longest
    _spans: dict[tuple[str, str], _Span] = field(default_factory=dict)
    _spans_dropped: int = 0
    _previous: Optional[Row] = None
    timed: bool = False

    def begin_run(self, run: int, requested_at: Optional[float]) -> None:
        self.runs.append(_RunTiming(run=run, requested_at=requested_at))
        self._span("run", f"run {run + 1}", f"run {run + 1}", requested_at, -1)

    def add(self, row: Row) -> None:
        while len(self.runs) <= row.run:
            self.begin_run(len(self.runs), None)
        run = self.runs[row.run]
        run.events += 1
        at = row.at
        if at is not None:
            self.timed = True
            if run.first_event_at is None:
                run.first_event_at = at
            run.last_event_at = at
            previous = self._previous
            if previous is not None and previous.run == row.run and previous.at is not None:
                self._note_gap(at - previous.at, row.index)
        wire = row.wire
        if row.type in _TEXT_CONTENT and isinstance(wire.get("delta"), str):
            run.chars += len(wire["delta"])
            if at is not None:
                if run.first_text_at is None:
                    run.first_text_at = at
                run.last_text_at = at
        if row.type == "RUN_STARTED" and isinstance(wire.get("runId"), str):
            run.run_id = wire["runId"]
        elif row.type == "RUN_FINISHED":
            outcome = wire.get("outcome")
            run.status = outcome.get("type", "success") if isinstance(outcome, dict) else "success"
        elif row.type == "RUN_ERROR":
            run.status = "error"
        self._track_spans(row)
        self._previous = row

    def _note_gap(self, gap: float, index: int) -> None:
        item = (round(gap, 6), index)
        if len(self._gaps) < _LONGEST_GAPS:
            heapq.heappush(self._gaps, item)
        elif item > self._gaps[0]:
            heapq.heapreplace(self._gaps, item)

    def _span(self, kind: str, key: str, label: str, at: Optional[float], index: int) -> _Span:
        span = self._spans.get((kind, key))
        if span is None:
            span = _Span(kind, key, label, at, index, end=at, last=index)
            if len(self._spans) < MAX_SPANS:
                self._spans[(kind, key)] = span
            else:
                self._spans_dropped += 1
        return span

    def _track_spans(self, row: Row) -> None:
        wire, at, index = row.wire, row.at, row.index
        run_span = self._spans.get(("run", f"run {row.run + 1}"))
        if run_span is not None:
            if run_span.first < 0:
                run_span.first, run_span.start = (
                    index,
                    run_span.start if run_span.start is not None else at,
                )
            run_span.end, run_span.last = at, index
            if row.type in ("RUN_FINISHED", "RUN_ERROR"):
                run_span.open = False
        for kind, id_field, label_field, opening, closing in _SPAN_RULES:
            if row.type in opening or row.type in closing:
                key = wire.get(id_field)
                if not isinstance(key, str):
                    return
                label = wire.get(label_field) if label_field else None
                span = self._span(kind, key, f"{kind} {label or key}", at, index)
                span.end, span.last = at, index
                span.lane = span.lane or row.lane
                if row.type in closing:
                    span.open = False
                return
        extends = _EXTENDS.get(row.type)
        if extends is not None:
            kind, id_field = extends
            extended = self._spans.get((kind, str(wire.get(id_field))))
            if extended is not None:
                extended.end, extended.last = at, index

    def to_json(self) -> dict[str, Any]:
        return {
            "timed": self.timed,
            "runs": [run.to_json() for run in self.runs],
            "gaps": [{"i": index, "gap": gap} for gap, index in sorted(self._gaps, reverse=True)],
            "spans": [span.to_json() for span in self._spans.values()],
            "spansDropped": self._spans_dropped,
        }
