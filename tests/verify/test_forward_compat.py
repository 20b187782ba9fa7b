"""Open unions on input (issue 11, item 8) and tool arguments that are not JSON (item 7): what
the models keep, what the verifier and the reducer say and skip, on every path."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ag_ui.apply import EventPipeline
from ag_ui.core import (
    AGUIValidationError,
    UnknownOperation,
    UnknownOutcome,
    parse_event,
)
from ag_ui.core.errors import PatchError
from ag_ui.json_patch import apply_patch
from ag_ui.proto import decode_event, encode_event
from ag_ui.testing import grade_events
from ag_ui.verify import (
    EventVerifier,
    ForwardCompatibilityWarning,
    ToolArgumentsWarning,
    tool_arguments_problem,
)

RUN = {"threadId": "t", "runId": "r"}
FAILED_RUN = {"type": "RUN_FINISHED", **RUN, "outcome": {"type": "failed", "reason": "quota"}}
FAILED_SUBAGENT = {"type": "SUBAGENT_FINISHED", "subagentRunId": "s", "outcome": {"type": "x"}}
MERGE = {"type": "STATE_DELTA", "delta": [{"op": "merge", "path": "/a", "value": 1}]}


@pytest.mark.parametrize("wire", [FAILED_RUN, FAILED_SUBAGENT], ids=["run", "subagent"])
def test_an_unknown_outcome_is_kept_as_received_on_every_path(wire: dict[str, Any]) -> None:
    text = json.dumps(wire)
    for data in (text, text.encode(), wire):
        event = parse_event(data)
        assert isinstance(event.outcome, UnknownOutcome)
        assert event.model_dump(by_alias=True) == wire
    assert decode_event(encode_event(parse_event(wire))).outcome.type == wire["outcome"]["type"]


def test_known_outcomes_are_still_checked() -> None:
    for outcome, problem in [
        ({}, 'outcome: missing required field "type"'),
        ([{"type": "interrupt", "interrupts": []}], "outcome: expected object, received array"),
        ({"type": "interrupt"}, 'outcome (type "interrupt"): missing required field "interrupts"'),
    ]:
        with pytest.raises(AGUIValidationError) as caught:
            parse_event({"type": "RUN_FINISHED", **RUN, "outcome": outcome})
        assert caught.value.problems == (problem,)


def test_an_unknown_patch_op_is_kept_and_the_reducer_skips_only_it() -> None:
    event = parse_event(
        {"type": "STATE_DELTA", "delta": [*MERGE["delta"], {"op": "add", "path": "/b", "value": 2}]}
    )
    assert event.delta[0] == {"op": "merge", "path": "/a", "value": 1}
    assert isinstance(UnknownOperation.model_validate(event.delta[0]), UnknownOperation)
    pipeline = EventPipeline(state={"a": 0})
    pipeline.feed(parse_event({"type": "RUN_STARTED", **RUN}))
    with pytest.warns(ForwardCompatibilityWarning, match="unknown op 'merge'; the rest"):
        pipeline.feed(event)
    assert pipeline.agent_state.state == {"a": 0, "b": 2}
    assert pipeline.patch_errors == []
    with pytest.raises(PatchError, match="unknown operation 'merge'"):
        apply_patch({}, event.delta)  # RFC 6902 itself stays strict
    with pytest.raises(AGUIValidationError, match='missing required field "op"'):
        parse_event({"type": "STATE_DELTA", "delta": [{"path": "/a"}]})


def test_the_verifier_warns_about_unknown_outcomes_instead_of_refusing_them() -> None:
    verifier = EventVerifier()
    verifier.feed(parse_event({"type": "RUN_STARTED", **RUN}))
    verifier.feed(parse_event({"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"}))
    with pytest.warns(ForwardCompatibilityWarning, match="SUBAGENT_FINISHED: outcome type 'x'"):
        verifier.feed(parse_event(FAILED_SUBAGENT))
    with pytest.warns(ForwardCompatibilityWarning, match="RUN_FINISHED: outcome type 'failed'"):
        verifier.feed(parse_event(FAILED_RUN))
    verifier.finish()


TOOL_CALL = [
    {"type": "RUN_STARTED", **RUN},
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "weather"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '"Paris"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "RUN_FINISHED", **RUN},
]


def test_tool_arguments_that_are_not_json_are_one_check_for_every_consumer() -> None:
    expected = tool_arguments_problem("c1", '"Paris"}', 1)
    assert expected is not None
    assert expected.startswith("the arguments of tool call 'c1'")
    assert tool_arguments_problem("c1", "", 0) is None  # a tool without arguments
    assert tool_arguments_problem("c1", '{"city": "Paris"}', 2) is None
    events = [parse_event(e) for e in TOOL_CALL]
    heard: list[str] = []
    verifier = EventVerifier(on_tool_arguments=heard.append)
    for event in events:
        verifier.feed(event)
    assert heard == [expected]
    pipeline = EventPipeline()
    for event in events[:-2]:
        pipeline.feed(event)
    with pytest.warns(ToolArgumentsWarning) as caught:
        pipeline.feed(events[-2])
    assert [str(w.message) for w in caught] == [expected]
    findings = grade_events(events).findings
    assert [(f.rule, f.message, f.event_index) for f in findings] == [
        ("tool.args-json", expected, 3)
    ]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_tool_arguments_with_nan_are_not_json(constant: str) -> None:
    # JSON.parse refuses them, so a TypeScript front end could not read these arguments.
    problem = tool_arguments_problem("c1", f'{{"temperature": {constant}}}', 1)
    assert problem is not None
    assert f"({constant} is not a JSON value" in problem
