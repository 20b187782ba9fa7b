"""What the timeline shows of one event: its category, a one-line summary and its wire JSON.

Categories group the 31 event types (and the legacy ``THINKING_*`` ones) the way a person
scanning a stream thinks of them; the page colours and filters by them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["CATEGORIES", "Finding", "Row", "category_of", "summary_of"]

CATEGORIES: tuple[str, ...] = (
    "lifecycle",
    "text",
    "tool",
    "state",
    "reasoning",
    "activity",
    "subagent",
    "special",
)

_PREFIXES: tuple[tuple[str, str], ...] = (
    ("RUN_", "lifecycle"),
    ("STEP_", "lifecycle"),
    ("TEXT_MESSAGE_", "text"),
    ("TOOL_CALL_", "tool"),
    ("STATE_", "state"),
    ("MESSAGES_", "state"),
    ("REASONING_", "reasoning"),
    ("THINKING_", "reasoning"),
    ("ACTIVITY_", "activity"),
    ("SUBAGENT_", "subagent"),
)

_SUMMARY_LIMIT = 120


@dataclass(frozen=True)
class Finding:
    """A verifier or reducer verdict on one event: ``severity`` is ``error`` or ``warning``."""

    index: int
    severity: str
    message: str
    rule: Optional[str] = None

    def to_json(self) -> dict[str, Any]:
        return {"i": self.index, "sev": self.severity, "rule": self.rule, "msg": self.message}


@dataclass
class Row:
    """One received event, with everything the inspector knows about it.

    ``at`` is seconds since the session began (``None`` when the recording has no times);
    ``raw`` is the event as it came off the wire (SSE data text, or protobuf frame hex);
    ``state`` is the agent state (JSON) right after the event (patches copy only the path they
    change, so keeping one per event is cheap); ``applied`` are the events the reducer applied
    for it (chunks expanded), replayed to rebuild the messages at any event.
    """

    index: int
    run: int
    at: Optional[float]
    type: str
    category: str
    summary: str
    wire: dict[str, Any]
    wire_json: str
    raw: Optional[str]
    state: Any
    applied: tuple[Any, ...]
    lane: Optional[str] = None
    verified: bool = True
    findings: list[Finding] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The compact form streamed to the page (details are fetched on selection)."""
        severity = None
        if self.findings:
            severity = "error" if any(f.severity == "error" for f in self.findings) else "warning"
        return {
            "i": self.index,
            "run": self.run,
            "t": self.at,
            "type": self.type,
            "cat": self.category,
            "sum": self.summary,
            "json": self.wire_json,
            "lane": self.lane,
            "f": severity,
            "v": self.verified,
        }


def category_of(event_type: str) -> str:
    for prefix, category in _PREFIXES:
        if event_type.startswith(prefix):
            return category
    return "special"


def _clip(text: str) -> str:
    return text if len(text) <= _SUMMARY_LIMIT else text[: _SUMMARY_LIMIT - 1] + "…"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def summary_of(wire: dict[str, Any]) -> str:
    """A short human line: the ids, names and text that tell this event from its neighbours."""
    event_type = str(wire.get("type", ""))
    parts: list[str] = []
    for key in ("stepName", "name", "toolCallName", "activityType", "role"):
        if isinstance(wire.get(key), str):
            parts.append(wire[key])
    if "delta" in wire:
        delta = wire["delta"]
        parts.append(
            _compact(delta) if not isinstance(delta, str) else json.dumps(delta, ensure_ascii=False)
        )
    if event_type == "RUN_ERROR":
        parts.append(f"{wire.get('code') or 'error'}: {wire.get('message', '')}")
    elif event_type == "RUN_FINISHED":
        outcome = wire.get("outcome")
        if isinstance(outcome, dict):
            parts.append(f"outcome {outcome.get('type')}")
    elif event_type == "TOOL_CALL_RESULT":
        parts.append(_compact(wire.get("content")))
    elif event_type in ("STATE_SNAPSHOT", "ACTIVITY_SNAPSHOT"):
        parts.append(_compact(wire.get("snapshot", wire.get("content"))))
    elif event_type == "MESSAGES_SNAPSHOT":
        parts.append(f"{len(wire.get('messages') or [])} messages")
    elif event_type in ("STATE_DELTA", "ACTIVITY_DELTA") and "patch" in wire:
        parts.append(_compact(wire["patch"]))
    for key in ("messageId", "toolCallId", "runId", "subagentRunId"):
        if isinstance(wire.get(key), str):
            parts.append(f"{key}={wire[key]}")
            break
    return _clip(" ".join(parts))
