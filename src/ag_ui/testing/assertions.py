"""Assertions whose failure messages say what is wrong, where, and how to fix it.

* ``assert_legal_stream(result)``: the stream graded legal (strict end by default). The message
  names the rule, the event (with the events around it) and the fix.
* ``assert_conversation(result, expected)``: the conversation (messages) equals the expected
  one, with message ids and tool-call ids normalised unless ``ids=True``; the message shows the
  first difference and a diff.

``result`` is a ``RunResult``, a ``Conversation`` or (for the stream) a list of events.
Golden-stream snapshots are in ``ag_ui.testing.golden``.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from typing import Any, Union

from ag_ui.core.decoding import AnyEvent
from ag_ui.testing.conversation import Conversation
from ag_ui.testing.grading import Finding, Verification, grade_events
from ag_ui.testing.result import RunResult

__all__ = ["assert_conversation", "assert_legal_stream", "describe_event"]

_CONTEXT = 4  # events shown on each side of the offending one


def describe_event(event: Any) -> str:
    """One line for an event: its type and its most telling fields."""
    wire = event.model_dump(by_alias=True, mode="json") if hasattr(event, "model_dump") else event
    kind = wire.get("type", "?")
    parts = []
    for key, value in wire.items():
        if key in ("type", "timestamp", "rawEvent") or value is None:
            continue
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > 40:
            text = text[:37] + "..."
        parts.append(f"{key}={text}")
        if len(parts) == 4:
            break
    return f"{kind} {' '.join(parts)}".rstrip()


def _events_around(events: Sequence[AnyEvent], index: int) -> list[str]:
    start = max(0, index - _CONTEXT)
    end = min(len(events), index + _CONTEXT + 1)
    lines = []
    if start > 0:
        lines.append(f"       ... {start} earlier events")
    for position in range(start, end):
        marker = " -> " if position == index else "    "
        lines.append(f"{marker}{position:>4} {describe_event(events[position])}")
    if end < len(events):
        lines.append(f"       ... {len(events) - end} later events")
    return lines


def _explain(finding: Finding, events: Sequence[AnyEvent]) -> list[str]:
    agui = f" (ag-ui-validate {', '.join(finding.agui)})" if finding.agui else ""
    lines = [
        f"[{finding.rule}] {finding.title}{agui}",
        f"  at {finding.where()}: {finding.message}",
    ]
    lines.append(f"  fix: {finding.fix}")
    if events:
        index = finding.event_index if finding.event_index is not None else len(events) - 1
        if index < len(events):
            lines.append(f"  events ({len(events)} received):")
            lines += ["  " + line for line in _events_around(events, index)]
        else:
            lines.append(f"  (after the last of {len(events)} events received)")
    return lines


def _grade(
    subject: Union[RunResult, Conversation, Iterable[AnyEvent]], strict_end: bool
) -> tuple[Verification, list[AnyEvent]]:
    if isinstance(subject, Conversation):
        if subject.last is None:
            raise AssertionError("the conversation has no runs yet")
        subject = subject.last
    if isinstance(subject, RunResult):
        # The client graded it already (with its own strict_end); this can only relax it.
        grading = subject.verification
        if not strict_end:
            grading = Verification(findings=[f for f in grading.findings if f.rule != "END"])
        return grading, subject.events
    events = list(subject)
    return grade_events(events, strict_end=strict_end), events


def assert_legal_stream(
    subject: Union[RunResult, Conversation, Iterable[AnyEvent]],
    *,
    strict_end: bool = True,
    allow_warnings: bool = True,
) -> None:
    """Fail unless the stream is legal: every event decoded and valid, the §5 sequence rules,
    tool-call arguments that are JSON, state deltas that apply, and (``strict_end``) a
    terminal event at the end (a ``RunResult`` was graded by its client, whose ``strict_end``
    applies; ``strict_end=False`` here relaxes it). Warnings (skipped unknown events) fail only with
    ``allow_warnings=False``."""
    grading, events = _grade(subject, strict_end)
    problems = grading.findings if not allow_warnings else grading.errors
    if not problems:
        return
    count = len(problems)
    head = f"the AG-UI stream is not legal ({count} problem{'s' if count > 1 else ''}):"
    lines = [head]
    for finding in problems:
        lines += _explain(finding, events)
    raise AssertionError("\n".join(lines))


# -- conversations ------------------------------------------------------------------------------


def _wire_messages(subject: Any) -> list[dict[str, Any]]:
    if isinstance(subject, Conversation):
        return [dict(m) for m in subject.messages]
    if isinstance(subject, RunResult):
        return subject.wire_messages
    out = []
    for message in subject:
        dump = getattr(message, "model_dump", None)
        out.append(dump(by_alias=True, mode="json") if dump is not None else dict(message))
    return out


def _normalise_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop message ids; number tool-call ids by first appearance (so a tool message still
    points at the right call)."""
    calls: dict[str, str] = {}

    def call_id(value: str) -> str:
        return calls.setdefault(value, f"call-{len(calls) + 1}")

    out = []
    for message in messages:
        copy = {k: v for k, v in message.items() if k != "id"}
        if isinstance(copy.get("toolCalls"), list):
            copy["toolCalls"] = [
                {**call, "id": call_id(call["id"])} if isinstance(call.get("id"), str) else call
                for call in copy["toolCalls"]
            ]
        if isinstance(copy.get("toolCallId"), str):
            copy["toolCallId"] = call_id(copy["toolCallId"])
        out.append(copy)
    return out


_ABSENT: Any = object()


def _shown(value: Any) -> str:
    return "absent" if value is _ABSENT else json.dumps(value, ensure_ascii=False)


def _first_difference(actual: list[dict[str, Any]], expected: list[dict[str, Any]]) -> str:
    for index, (got, want) in enumerate(zip(actual, expected, strict=False)):
        if got != want:
            keys = sorted(set(got) | set(want))
            for key in keys:
                if got.get(key, _ABSENT) != want.get(key, _ABSENT):
                    role = want.get("role", got.get("role"))
                    was, wanted = got.get(key, _ABSENT), want.get(key, _ABSENT)
                    return (
                        f"message {index} ({role}): {key} is {_shown(was)}, "
                        f"expected {_shown(wanted)}"
                    )
    if len(actual) != len(expected):
        return f"{len(actual)} messages, expected {len(expected)}"
    return "messages differ"


def assert_conversation(subject: Any, expected: Iterable[Any], *, ids: bool = False) -> None:
    """Fail unless the conversation equals ``expected`` (messages as models or wire dicts).

    With ``ids=False`` (default) message ids are not compared and tool-call ids are compared by
    position, so expected messages may leave ids out."""
    actual = _wire_messages(subject)
    wanted = _wire_messages(list(expected))
    if not ids:
        actual, wanted = _normalise_ids(actual), _normalise_ids(wanted)
    if actual == wanted:
        return
    dump = [json.dumps(m, ensure_ascii=False, sort_keys=True) for m in actual]
    want = [json.dumps(m, ensure_ascii=False, sort_keys=True) for m in wanted]
    diff = difflib.unified_diff(want, dump, "expected", "actual", lineterm="", n=2)
    raise AssertionError(
        "the conversation differs from the expected one: "
        + _first_difference(actual, wanted)
        + "\n"
        + "\n".join(diff)
    )
