"""Rule ``tool.args-missing``: a tool call closed with no arguments where the run's declared tool
requires some (what ag-ui-langgraph 0.0.47 sends when a call's arguments arrive whole in one
chunk, ag-ui #2463) is legal, and warned about."""

from __future__ import annotations

import warnings
from typing import Any

import httpx
import pytest

from ag_ui.client import HttpAgent
from ag_ui.core import Tool, parse_event
from ag_ui.testing import ASGIStreamTransport, ScriptedAgent, grade_events
from ag_ui.verify import EventVerifier, ToolArgumentsWarning

WEATHER = Tool(
    name="get_weather",
    description="The weather in a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
)
NOW = Tool(name="now", description="The time.", parameters={"type": "object", "properties": {}})


def call(name: str, *deltas: str, call_id: str = "c1") -> list[dict[str, Any]]:
    start = {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name}
    args = [{"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": d} for d in deltas]
    return [start, *args, {"type": "TOOL_CALL_END", "toolCallId": call_id}]


def run(*events: dict[str, Any], input: Any = None) -> list[Any]:
    started: dict[str, Any] = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    if input is not None:
        started["input"] = input
    finished = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    return [parse_event(e) for e in (started, *events, finished)]


def problems(events: list[Any], **options: Any) -> list[str]:
    found: list[str] = []
    verifier = EventVerifier(on_tool_arguments=found.append, **options)
    for event in events:
        verifier.feed(event)
    verifier.finish()
    return found


@pytest.mark.parametrize("deltas", [(), ("{}",), (" { } ",)])
def test_a_call_without_required_arguments_is_named(deltas: tuple[str, ...]) -> None:
    [problem] = problems(run(*call("get_weather", *deltas)), tools=[WEATHER])
    assert problem.rule == "tool.args-missing"  # type: ignore[attr-defined]
    assert "'c1' to 'get_weather'" in problem
    assert "requires 'city'" in problem


def test_arguments_sent_or_nothing_required_or_an_unknown_tool_are_fine() -> None:
    assert problems(run(*call("get_weather", '{"city":"Paris"}')), tools=[WEATHER]) == []
    assert problems(run(*call("now")), tools=[NOW]) == []
    assert problems(run(*call("get_weather")), tools=[]) == []  # nothing known: nothing said


def test_the_tools_are_learned_from_run_started_input() -> None:
    input = {"threadId": "t", "runId": "r", "messages": [], "tools": [WEATHER.model_dump()]}
    [problem] = problems(run(*call("get_weather"), input=input))
    assert problem.rule == "tool.args-missing"  # type: ignore[attr-defined]


def test_the_grader_reports_a_warning_with_the_rule() -> None:
    input = {"threadId": "t", "runId": "r", "messages": [], "tools": [WEATHER.model_dump()]}
    verification = grade_events(run(*call("get_weather"), input=input))
    assert verification.ok  # legal: a warning, not an error
    [finding] = verification.warnings
    assert (finding.rule, finding.event_index, finding.severity) == (
        "tool.args-missing",
        2,  # the TOOL_CALL_END
        "warning",
    )
    assert finding.fix.startswith("Send every call's arguments")


def test_http_agent_warns_about_a_call_its_tool_needed_arguments_for() -> None:
    """The client knows the tools it sent: a server that drops the arguments is warned about."""
    agent_app = ScriptedAgent(call("get_weather")).app()

    async def main() -> None:
        async with httpx.AsyncClient(transport=ASGIStreamTransport(agent_app)) as http:
            agent = HttpAgent("http://testserver/agent", http_client=http)
            agent.add_message({"id": "u1", "role": "user", "content": "weather?"})
            await agent.run_agent(tools=[WEATHER])

    import anyio

    with pytest.warns(ToolArgumentsWarning, match="requires 'city'"):
        anyio.run(main)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolArgumentsWarning)

        # Without the tool declared, the client has no schema to judge by: nothing is said.
        async def untold() -> None:
            async with httpx.AsyncClient(transport=ASGIStreamTransport(agent_app)) as http:
                agent = HttpAgent("http://testserver/agent", http_client=http)
                agent.add_message({"id": "u1", "role": "user", "content": "weather?"})
                await agent.run_agent()

        anyio.run(untold)


def test_agui_validate_warns_about_a_server_that_drops_the_arguments() -> None:
    """The ``tools`` scenario offers a tool that requires ``text``; a server whose calls arrive
    without arguments (ag-ui-langgraph 0.0.47 with whole arguments) gets the warning."""
    import anyio

    from ag_ui.testing import validate

    dropping = ScriptedAgent(call("agui_validate_echo")).app()
    report = anyio.run(lambda: validate(dropping, scenarios=["tools"]))
    findings = [(f.rule, f.severity) for f in report.scenario("tools").findings]
    assert ("tool.args-missing", "warning") in findings
