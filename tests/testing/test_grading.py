"""Grading one stream: every stream rule of the catalogue can fail, at the right event, with a
title, a fix and (where one matches) the ag-ui-validate id."""

from __future__ import annotations

import pytest

from ag_ui.core import parse_any_event
from ag_ui.testing import RULES, StreamGrader, grade_events
from ag_ui.testing.rules import rule

from .rule_cases import RULE_CASES, UNREACHABLE_FROM_THE_WIRE, S, tc, tm

VERIFIER_RULES = {r.id for r in RULES.values() if "." not in r.id}


@pytest.mark.parametrize("rule_id", sorted(RULE_CASES))
def test_each_rule_is_reported_at_the_offending_event(rule_id: str) -> None:
    events, index = RULE_CASES[rule_id]
    verification = grade_events([parse_any_event(e) for e in events])
    assert not verification.ok
    error = verification.error
    assert error is not None
    assert (error.rule, error.event_index) == (rule_id, index)
    assert error.fix == RULES[rule_id].fix
    assert error.title == RULES[rule_id].title


def test_every_verifier_rule_has_a_case_or_a_reason() -> None:
    covered = set(RULE_CASES) | set(UNREACHABLE_FROM_THE_WIRE)
    assert sorted(VERIFIER_RULES - covered) == []


def test_the_catalogue_is_complete_and_stable() -> None:
    assert len(RULES) == len({r.id for r in RULES.values()})
    for entry in RULES.values():
        assert entry.title
        assert entry.fix.endswith((".", ")"))
        assert all(a.startswith("AGUI") and len(a) == 7 for a in entry.agui)
    # ids a user may have pinned in CI configuration: these must keep existing
    for pinned in ("T2", "END", "wire.frame", "tool.args-json", "state.patch", "reconnect.gap"):
        assert pinned in RULES
    assert rule("Z9").fix  # an id from a newer verifier still gets an entry


def test_a_legal_stream_has_no_findings() -> None:
    events = [S, *tm_stream(), tc("START"), tc("ARGS", delta='{"a": 1}'), tc("END")]
    events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    verification = grade_events([parse_any_event(e) for e in events])
    assert verification.ok
    assert verification.findings == []
    assert str(verification) == "legal stream"


def tm_stream() -> list[dict[str, object]]:
    return [tm("START"), tm("CONTENT"), tm("END")]


def test_the_reducer_starts_from_the_input_state() -> None:
    delta = {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]}
    finished = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    events = [parse_any_event(e) for e in (S, delta, finished)]
    assert grade_events(events, state={"count": 1}).ok
    assert grade_events(events, state={}).error.rule == "state.patch"  # type: ignore[union-attr]


def test_argument_pieces_are_joined_before_parsing() -> None:
    pieces = [tc("ARGS", delta=p) for p in ('{"ci', 'ty": ', '"Paris"}')]
    finished = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    events = [S, tc("START"), *pieces, tc("END"), finished]
    assert grade_events([parse_any_event(e) for e in events]).ok
    chunked = [
        S,
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "delta": '"a": 1}'},
        finished,
    ]
    verification = grade_events([parse_any_event(e) for e in chunked])
    assert verification.error is not None
    assert verification.error.rule == "tool.args-json"
    assert "not JSON" in verification.error.message
    assert '"a": 1}' in verification.error.message


def test_findings_after_the_first_violation_are_not_invented() -> None:
    grader = StreamGrader()
    for event in (S, tm("CONTENT"), tm("END"), tm("END")):
        grader.feed(parse_any_event(event))
    verification = grader.finish()
    assert [f.rule for f in verification.findings] == ["T2"]
    assert grader.events_seen == 4


def test_lenient_end() -> None:
    events = [parse_any_event(e) for e in (S, tm("START"))]
    assert grade_events(events, strict_end=False).ok
    assert grade_events(events).error.rule == "END"  # type: ignore[union-attr]


def test_finding_as_dict_is_the_json_shape() -> None:
    events, _ = RULE_CASES["T2"]
    finding = grade_events([parse_any_event(e) for e in events]).error
    assert finding is not None
    assert finding.as_dict() == {
        "rule": "T2",
        "severity": "error",
        "title": RULES["T2"].title,
        "message": finding.message,
        "eventIndex": 1,
        "eventType": "TEXT_MESSAGE_CONTENT",
        "fix": RULES["T2"].fix,
        "aguiValidate": ["AGUI101"],
        "run": None,
    }
