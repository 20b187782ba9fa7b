"""``agui validate`` against real third-party servers: pydantic-ai's AG-UI adapter and
ag-ui-langgraph, each in its own venv with a scripted model (tests/frameworks/apps), this SDK
forced in. Every scenario the framework can exercise passes, the others say why, and the
ag-ui-langgraph 0.0.47 defect (the first tool-call chunk's argument text dropped) is found."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ag_ui.testing.validation import validate
from tests.frameworks.fixtures import FrameworkServerFactory
from tests.frameworks.scenarios import SCENARIOS

pytestmark = pytest.mark.anyio

# The scripted models react to the start of the last user message (see each app's docstring).
MESSAGES = {
    "tools": SCENARIOS["frontend_tool"]["text"],
    "state": SCENARIOS["state"]["text"],
    "interrupt": SCENARIOS["interrupt"]["text"],
}
NOT_OFFERED = {
    "proto": "the server answered text/event-stream to an Accept that prefers "
    "application/vnd.ag-ui.event+proto (it does not offer protobuf)",
    "reconnect": "the server sends no SSE ids, so a client has nothing to resume from",
    "capabilities": "the server has no capabilities endpoint (GET <url>/capabilities answered 404)",
}


@pytest.mark.parametrize("framework", ["pydantic-ai", "langgraph"])
async def test_every_scenario_the_framework_exercises_passes(
    framework: str, framework_server: FrameworkServerFactory
) -> None:
    report = await validate(framework_server(framework), messages=MESSAGES)
    statuses = {s.name: s.status for s in report.scenarios}
    reasons = {s.name: s.reason for s in report.scenarios if s.status == "not exercised"}
    assert reasons == NOT_OFFERED, report.text()
    exercised = ["text", "multi-turn", "state", "tools", "interrupt", "cancel", "concurrent"]
    expected = dict.fromkeys([*exercised, "malformed"], "passed")
    assert {n: s for n, s in statuses.items() if n not in NOT_OFFERED} == expected, report.text()
    assert report.ok
    assert report.scenario("tools").runs[-1].label == "tool result"
    assert "outcome success" in report.scenario("interrupt").summary


async def test_the_ag_ui_langgraph_first_chunk_defect_is_found(
    framework_server: FrameworkServerFactory,
) -> None:
    message = {"tools": "frontend first-chunk-args: change the colour"}
    broken = await validate(framework_server("langgraph"), scenarios=["tools"], messages=message)
    tools = broken.scenario("tools")
    assert tools.status == "failed"
    [finding] = tools.errors
    assert (finding.rule, finding.run, finding.event_type) == (
        "tool.args-json",
        "tool call",
        "TOOL_CALL_END",
    )
    assert finding.agui == ("AGUI204",)
    assert "are not JSON" in finding.message
    assert finding.message.endswith("""'"blue"}'""")  # {"value": was dropped
    # pydantic-ai streams the same scripted chunks correctly
    fine = await validate(framework_server("pydantic-ai"), scenarios=["tools"], messages=message)
    assert fine.scenario("tools").status == "passed", fine.text()


def test_the_command_line_reports_the_defect(framework_server: FrameworkServerFactory) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ag_ui",
            "validate",
            framework_server("langgraph"),
            "--scenario",
            "tools",
            "--scenario-message",
            "tools=frontend first-chunk-args: change the colour",
            "--output",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    finding = report["scenarios"][0]["findings"][0]
    assert (finding["rule"], finding["eventIndex"], finding["aguiValidate"]) == (
        "tool.args-json",
        4,
        ["AGUI204"],
    )
