"""Client-side (frontend) tools: registered handlers answer the agent's calls and the run goes on.

Against real uvicorn servers: the demo agent (``where am I`` calls the frontend tool
``get_location``) and a scripted agent that calls whatever tools the user message lists, and
records every ``RunAgentInput`` it gets (what the client sent).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from pydantic import Field

from ag_ui.client import HttpAgent, RunError, SyncHttpAgent, ToolRoundsExceededError
from ag_ui.core import RunAgentInput, Tool, ToolMessage
from ag_ui.demo import LOCATION_TOOL, create_demo_app
from ag_ui.server import RunContext, create_app
from ag_ui.tools import ToolError, tool
from tests.support.servers import serve

pytestmark = pytest.mark.anyio

SEEN: list[RunAgentInput] = []


async def scripted(run_input: RunAgentInput, ctx: RunContext) -> None:
    """The first user message is JSON ``[[tool, args], ...]``: those calls are made in every run
    that starts from the user message; a run answered by tool messages says what came back,
    unless the message was ``"loop"``, which calls ``ping`` in every run."""
    SEEN.append(run_input)
    user = next(m for m in run_input.messages if m.role == "user")
    last = run_input.messages[-1]
    if user.content == "loop":
        await ctx.call_tool("ping", {})
        return
    if last.role == "user":
        for name, args in json.loads(str(user.content)):
            await ctx.call_tool(name, args)
        return
    answers = []
    for message in reversed(run_input.messages):
        if not isinstance(message, ToolMessage):
            break
        answers.insert(0, f"{message.content}|{message.error}")
    await ctx.say(" / ".join(answers))


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    with (
        serve(create_demo_app()) as demo,
        serve(create_app(scripted, path="/agent")) as script,
    ):
        yield {"demo": f"{demo}/agent", "scripted": f"{script}/agent"}


@pytest.fixture(autouse=True)
def _clear_seen() -> None:
    SEEN.clear()


def _ask(agent: HttpAgent, text: str) -> None:
    agent.add_message({"id": f"u{len(agent.messages)}", "role": "user", "content": text})


def _calls(*calls: tuple[str, dict[str, Any]]) -> str:
    return json.dumps([list(call) for call in calls])


async def test_a_sync_handler_answers_the_demo_agent_and_the_thread_continues(
    urls: dict[str, str],
) -> None:
    agent = HttpAgent(urls["demo"])

    @agent.tool
    def get_location() -> dict[str, str]:
        """The user's current city."""
        return {"city": "Lisbon"}

    _ask(agent, "Where am I?")
    result = await agent.run_agent()
    assert result.outcome_type == "success"
    assert result.tool_rounds == 1
    assert result.pending_tool_calls == []
    assert result.pending_tool_call_ids == []
    roles = [message.role for message in result.new_messages]
    assert roles == ["assistant", "tool", "assistant"]
    answer = result.new_messages[1]
    assert isinstance(answer, ToolMessage)
    assert answer.error is None
    assert json.loads(str(answer.content)) == {"city": "Lisbon"}
    assert answer.tool_call_id == result.new_messages[0].tool_calls[0].id  # type: ignore[union-attr]
    assert str(result.new_messages[2].content).startswith("You are in Lisbon, where it is")
    assert agent.state["last_city"] == "Lisbon"


async def test_definitions_come_from_the_signature_and_go_with_every_run(
    urls: dict[str, str],
) -> None:
    async def search(
        query: Annotated[str, Field(description="What to look for")], limit: int = 3
    ) -> list[str]:
        """Search the user's notes."""
        return [f"{query} {n}" for n in range(limit)]

    agent = HttpAgent(urls["scripted"], tools=[search])
    agent.add_tool(
        lambda: "dark",
        name="theme",
        description="The UI theme",
        parameters={"type": "object", "properties": {}},
    )

    @agent.tool(name="volume", description="The UI volume")
    def current_volume(unit: str = "percent") -> int:
        return 70

    assert current_volume() == 70  # still a function
    _ask(agent, _calls(("search", {"query": "tea", "limit": 2}), ("theme", {}), ("volume", {})))
    extra = Tool(name="manual", description="answered by hand", parameters={"type": "object"})
    result = await agent.run_agent(tools=[extra])
    assert len(SEEN) == 2  # the first run and one follow-up
    for sent in SEEN:
        assert [t.name for t in sent.tools] == ["search", "theme", "volume", "manual"]
    schema = SEEN[0].tools[0].parameters
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["description"] == "What to look for"
    assert schema["properties"]["limit"]["default"] == 3
    assert SEEN[0].tools[0].description == "Search the user's notes."
    assert SEEN[0].tools[1].parameters == {"type": "object", "properties": {}}
    assert SEEN[0].tools[2].description == "The UI volume"
    assert result.new_messages[-1].content == '["tea 0","tea 1"]|None / dark|None / 70|None'
    assert sorted(agent.tools) == ["search", "theme", "volume"]


async def test_a_handler_that_raises_answers_with_error_set(urls: dict[str, str]) -> None:
    @tool
    def get_location() -> str:
        raise PermissionError("location access denied")

    agent = HttpAgent(urls["demo"], tools=[get_location])
    _ask(agent, "where am i")
    result = await agent.run_agent()
    answer = next(m for m in result.new_messages if isinstance(m, ToolMessage))
    assert answer.error == "tool 'get_location' raised PermissionError: location access denied"
    assert answer.content == answer.error
    assert "Sorry, I could not find out where you are" in str(result.new_messages[-1].content)


async def test_tool_error_and_bad_arguments_are_reported_as_errors(urls: dict[str, str]) -> None:
    agent = HttpAgent(urls["scripted"])

    @agent.tool
    def divide(a: int, b: int) -> float:
        if b == 0:
            raise ToolError("cannot divide by zero")
        return a / b

    _ask(agent, _calls(("divide", {"a": 1, "b": 0}), ("divide", {"a": "x"})))
    result = await agent.run_agent()
    tool_messages = [m for m in result.new_messages if isinstance(m, ToolMessage)]
    assert [m.error for m in tool_messages] == [
        "cannot divide by zero",
        "invalid arguments for tool 'divide': \"a\": Input should be a valid integer, unable "
        'to parse string as an integer; "b": missing (required)',
    ]


async def test_unregistered_calls_stay_pending_as_typed_calls(urls: dict[str, str]) -> None:
    agent = HttpAgent(urls["scripted"])
    _ask(agent, _calls(("pick_color", {"default": "red"})))
    offered = {"name": "pick_color", "description": "Ask the user", "parameters": {}}
    result = await agent.run_agent(tools=[offered])
    assert result.tool_rounds == 0
    assert len(SEEN) == 1
    [call] = result.pending_tool_calls
    assert result.pending_tool_call_ids == [call.id]
    assert call.function.name == "pick_color"
    assert json.loads(call.function.arguments) == {"default": "red"}
    message = agent.add_tool_result(call.id, {"color": "blue"})
    assert agent.messages[-1] == message
    follow_up = await agent.run_agent(tools=[offered])
    assert follow_up.new_messages[-1].content == '{"color":"blue"}|None'


async def test_registered_calls_are_answered_and_the_loop_stops_for_the_others(
    urls: dict[str, str],
) -> None:
    agent = HttpAgent(urls["scripted"])
    agent.add_tool(lambda: "Lisbon", name="get_location")
    _ask(agent, _calls(("get_location", {}), ("pick_color", {})))
    result = await agent.run_agent()
    assert len(SEEN) == 1  # no follow-up: pick_color is the application's
    assert [call.function.name for call in result.pending_tool_calls] == ["pick_color"]
    assert result.pending_tool_call_ids == [result.pending_tool_calls[0].id]
    assert [m.content for m in result.new_messages if isinstance(m, ToolMessage)] == ["Lisbon"]
    agent.add_tool_result(result.pending_tool_calls[0].id, "green")
    follow_up = await agent.run_agent()
    assert follow_up.new_messages[-1].content == "Lisbon|None / green|None"


async def test_a_bound_on_rounds_stops_an_agent_that_keeps_calling(urls: dict[str, str]) -> None:
    calls = 0

    def ping() -> str:
        nonlocal calls
        calls += 1
        return "pong"

    agent = HttpAgent(urls["scripted"], tools=[ping], max_tool_rounds=3)
    _ask(agent, "loop")
    with pytest.raises(ToolRoundsExceededError) as caught:
        await agent.run_agent()
    error = caught.value
    assert len(SEEN) == 4
    assert calls == 3
    assert error.rounds == 3
    assert error.result.tool_rounds == 3
    assert [m.role for m in error.result.new_messages].count("tool") == 3
    assert [call.function.name for call in error.pending_tool_calls] == ["ping"]
    assert error.result.pending_tool_call_ids == [error.pending_tool_calls[0].id]
    assert "max_tool_rounds=3" in str(error)
    assert "ping" in str(error)
    unanswered = error.pending_tool_calls[0].id
    assert not any(
        isinstance(m, ToolMessage) and m.tool_call_id == unanswered for m in agent.messages
    )


async def test_interrupts_keep_their_explicit_path(urls: dict[str, str]) -> None:
    called = []
    agent = HttpAgent(urls["demo"])
    agent.add_tool(lambda: called.append(1) or "yes", name="confirm_booking")
    _ask(agent, "book a table for two")
    result = await agent.run_agent()
    assert result.outcome_type == "interrupt"
    assert called == []
    assert result.tool_rounds == 0
    [interrupt] = result.interrupts
    resumed = await agent.run_agent(
        resume=[{"interrupt_id": interrupt.id, "status": "resolved", "payload": {"approved": True}}]
    )
    assert resumed.new_messages[-1].content == "Done: your booking is confirmed."
    assert called == []


async def test_a_failed_follow_up_run_raises_as_any_run(urls: dict[str, str]) -> None:
    agent = HttpAgent(urls["demo"])
    agent.add_tool(lambda: "Lisbon", name=LOCATION_TOOL)
    _ask(agent, "where am I")
    await agent.run_agent()
    _ask(agent, "crash")
    with pytest.raises(RunError):
        await agent.run_agent()


def test_the_sync_agent_runs_the_loop_too(urls: dict[str, str]) -> None:
    with SyncHttpAgent(urls["demo"], tools=[tool(lambda: "Oslo", name=LOCATION_TOOL)]) as agent:
        agent.add_message({"id": "u1", "role": "user", "content": "where am I"})
        result = agent.run_agent()
        assert result.tool_rounds == 1
        assert str(result.new_messages[-1].content).startswith("You are in Oslo")
    with SyncHttpAgent(urls["scripted"]) as agent:

        async def theme() -> str:
            return "dark"

        agent.add_tool(theme)
        agent.add_message({"id": "u1", "role": "user", "content": _calls(("theme", {}), ("x", {}))})
        result = agent.run_agent()
        [call] = result.pending_tool_calls
        agent.add_tool_result(call.id, "by hand", error="no x here")
        result = agent.run_agent()
    assert result.new_messages[-1].content == "dark|None / by hand|no x here"


def test_registration_mistakes_are_clear_errors() -> None:
    agent = HttpAgent("http://127.0.0.1:9/agent")
    agent.add_tool(lambda: 1, name="one")
    with pytest.raises(ValueError, match="already registered"):
        agent.add_tool(lambda: 2, name="one")
    with pytest.raises(ValueError, match="tools= names one, already registered"):
        agent.prepare_input(tools=[{"name": "one", "description": "", "parameters": {}}])
    with pytest.raises(ValueError, match="max_tool_rounds must be an integer of 1 or more"):
        agent.max_tool_rounds = 0
    with pytest.raises(KeyError, match="no client tool named 'two' \\(registered: one\\)"):
        agent.remove_tool("two")
    agent.remove_tool("one")
    assert dict(agent.tools) == {}
    assert agent.prepare_input().tools == []
    twin_source = HttpAgent("http://127.0.0.1:9/agent", tools=[tool(lambda: 1, name="a")])
    twin = twin_source.clone()
    twin.add_tool(lambda: 2, name="b")
    assert sorted(twin.tools) == ["a", "b"]
    assert sorted(twin_source.tools) == ["a"]
