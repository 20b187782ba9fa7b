"""``validate()``, the engine of ``agui validate``, in process: our demo agent passes, a correct
tool-calling agent passes the tool round trip, and a broken server fails each rule."""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree

import pytest

from ag_ui.testing import RULES, AgentClient
from ag_ui.testing.validation import SCENARIOS, validate

from .broken_servers import BROKEN, demo, frames_app, resumable_demo, tool_calling, unknown_event
from .rule_cases import RULE_CASES, UNREACHABLE_FROM_THE_WIRE

pytestmark = pytest.mark.anyio


async def test_the_demo_agent_passes_every_scenario_it_can_exercise() -> None:
    report = await validate(resumable_demo(), message="book a table")
    statuses = {s.name: s.status for s in report.scenarios}
    assert list(statuses) == list(SCENARIOS)
    assert set(statuses.values()) == {"passed"}, report.text()
    assert report.ok
    assert "resumed the interrupt(s) confirm-" in report.scenario("interrupt").summary
    assert report.scenario("tools").summary == (
        "the agent called agui_validate_echo; the run carrying its result finished (interrupt)"
    )  # it answered the result, then the session's message ("book a table") that came with it
    assert "compared with an uninterrupted run" in report.scenario("reconnect").summary
    assert "the same content as over SSE" in report.scenario("proto").summary
    runs = {run.label: run for s in report.scenarios for run in s.runs}
    assert runs["protobuf run"].content_type == "application/vnd.ag-ui.event+proto"


async def test_not_exercised_scenarios_say_why() -> None:
    report = await validate(demo())  # no store: no SSE ids; no interrupt for a greeting
    assert report.ok
    reasons = {s.name: s.reason for s in report.scenarios if s.status == "not exercised"}
    assert reasons == {
        "interrupt": "no run ended with an interrupt; give a message that makes the agent ask for "
        "approval (--scenario-message interrupt=TEXT; the demo agent: 'book a table')",
        "reconnect": "the server sends no SSE ids, so a client has nothing to resume from",
    }


async def test_a_frontend_tool_round_trip_passes() -> None:
    report = await validate(tool_calling(), scenarios=["tools", "capabilities"])
    tools = report.scenario("tools")
    assert tools.status == "passed", report.text()
    assert [r.label for r in tools.runs] == ["tool call", "tool result"]
    assert report.scenario("capabilities").status == "not exercised"


@pytest.mark.parametrize("rule_id", sorted(BROKEN))
async def test_each_scenario_rule_fails_on_a_server_that_breaks_it(rule_id: str) -> None:
    factory, scenario, options = BROKEN[rule_id]
    names = ["text", scenario] if scenario != "text" else ["text"]
    report = await validate(factory(), scenarios=names, **options)
    result = report.scenario(scenario)
    assert result.status == "failed", report.text()
    assert rule_id in {f.rule for f in result.errors}, report.text()
    assert not report.ok
    finding = next(f for f in result.errors if f.rule == rule_id)
    assert finding.fix == RULES[rule_id].fix
    assert finding.run


@pytest.mark.parametrize("rule_id", sorted(RULE_CASES))
async def test_each_stream_rule_fails_through_validate(rule_id: str) -> None:
    events, index = RULE_CASES[rule_id]
    report = await validate(frames_app(events), scenarios=["text"])
    finding = report.scenario("text").errors[0]
    assert (finding.rule, finding.event_index, finding.run) == (rule_id, index, "text run")


def test_every_rule_of_the_catalogue_can_fail() -> None:
    covered = (
        set(RULE_CASES)
        | set(UNREACHABLE_FROM_THE_WIRE)
        | set(BROKEN)
        | {"wire.unknown-event"}
        # Raw asyncio servers that stall, flood, stream forever or send Latin-1 reach these
        # (tests/cli/test_validate_bounds.py).
        | {"wire.no-answer", "wire.endless", "wire.too-large", "wire.utf8"}
        | {"tool.args-missing"}  # a warning: tests/verify/test_tool_args_missing.py
    )
    assert sorted(set(RULES) - covered) == []


async def test_an_unknown_event_is_a_warning_not_a_failure() -> None:
    report = await validate(unknown_event(), scenarios=["text"])
    text = report.scenario("text")
    assert text.status == "passed"
    assert [(f.rule, f.severity) for f in text.findings] == [("wire.unknown-event", "warning")]


async def test_reports_render_as_text_json_and_junit() -> None:
    factory, _, _ = BROKEN["tool.args-json"]
    report = await validate(factory(), scenarios=["text", "interrupt", "malformed"])
    text = report.text()
    assert text.splitlines()[0] == "agui validate http://testserver/agent"
    assert "  FAIL  text" in text
    assert "  SKIP  interrupt" in text
    assert "  PASS  malformed" in text
    assert (
        "error [tool.args-json] tool call arguments are not valid JSON (ag-ui-validate AGUI204)"
        in text
    )
    assert "at text run, event 3 TOOL_CALL_END: the arguments of tool call 'c1'" in text
    assert text.splitlines()[-1] == "3 scenarios: 1 passed, 1 failed, 1 not exercised"
    data = json.loads(report.json())
    assert (data["ok"], data["passed"], data["failed"], data["notExercised"]) == (False, 1, 1, 1)
    finding = data["scenarios"][0]["findings"][0]
    assert finding["rule"] == "tool.args-json"
    assert finding["eventIndex"] == 3
    assert finding["aguiValidate"] == ["AGUI204"]
    assert finding["run"] == "text run"
    root = ElementTree.fromstring(report.junit())
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("failures") == "1"
    assert suite.get("skipped") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    failure = cases["text"].find("failure")
    assert failure is not None
    assert failure.get("type") == "tool.args-json"
    assert cases["interrupt"].find("skipped") is not None
    assert cases["malformed"].find("failure") is None


async def test_unknown_scenarios_and_unreachable_servers() -> None:
    with pytest.raises(ValueError, match="unknown scenario 'nope'; the scenarios are: text, "):
        await validate(demo(), scenarios=["nope"])
    from ag_ui.core import TransportError

    with pytest.raises(TransportError, match="failed"):
        await validate("http://127.0.0.1:9/agent")


async def test_headers_reach_the_server() -> None:
    seen: list[Any] = []
    inner = demo()

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen.append(dict(scope["headers"]).get(b"authorization"))
        await inner(scope, receive, send)

    await validate(
        AgentClient(recording, headers={"Authorization": "Bearer t0ken"}), scenarios=["text"]
    )
    assert seen
    assert set(seen) == {b"Bearer t0ken"}


async def test_a_scenario_can_have_its_own_message() -> None:
    report = await validate(
        demo(), scenarios=["text", "interrupt"], messages={"interrupt": "book a table"}
    )
    assert report.scenario("text").summary.endswith("characters of assistant text")
    interrupt = report.scenario("interrupt")
    assert interrupt.status == "passed", report.text()
    assert [run.label for run in interrupt.runs] == ["interrupting run", "resume"]
    nothing = await validate(demo(), scenarios=["interrupt"], messages={"interrupt": "hello"})
    assert nothing.scenario("interrupt").reason == (
        "the run for the interrupt message ended with outcome success, not an interrupt"
    )
    with pytest.raises(ValueError, match="unknown scenario 'tool'"):
        await validate(demo(), messages={"tool": "x"})
