"""ag_ui.adapters.openai_agents: what the adapter refuses (each a RUN_ERROR with its code, before
the model is asked) and a structured final output as RUN_FINISHED.result; in process, through
the test kit's client (no client-side checks in the way)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from agents import Agent, function_tool
from pydantic import BaseModel

from ag_ui.adapters.openai_agents import OpenAIAgentsAgent
from ag_ui.core.errors import RequestRejectedError
from ag_ui.server import create_app
from ag_ui.testing import AgentClient
from tests.adapters import responses_script as script
from tests.adapters.openai_agents_helpers import Served, model, weather_agent
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import RESPONSES, FakeProvider

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


def approve(interrupt_id: str, payload: Any = None) -> dict[str, Any]:
    return {
        "interruptId": interrupt_id,
        "status": "resolved",
        "payload": {"approved": True} if payload is None else payload,
    }


async def test_resumes_that_do_not_fit_the_open_approvals_are_refused(
    fake: FakeProvider,
) -> None:
    fake.queue(
        RESPONSES,
        script.response(
            script.whole_call("fc_1", "call_1", "delete_file", {"path": "/a"}),
            script.whole_call("fc_2", "call_2", "delete_file", {"path": "/b"}),
        ),
    )
    client = AgentClient(create_app(OpenAIAgentsAgent(weather_agent(fake))))
    async with client:
        nothing_open = await client.run("hi", thread_id="t", resume=[approve("call_1")])
        first = await client.run("Delete /a and /b", thread_id="t", run_id="r1")
        assert [i["id"] for i in first.interrupts] == ["call_1", "call_2"]
        history = {"messages": first.messages, "thread_id": "t"}
        unknown = await client.run(resume=[approve("call_9")], **history)
        partial = await client.run(resume=[approve("call_1")], **history)
        bad = await client.run(
            resume=[approve("call_1"), approve("call_2", {"approved": "yes"})], **history
        )
    codes = [
        run.run_error.code if run.run_error else None
        for run in (nothing_open, unknown, partial, bad)
    ]
    assert codes == [
        "no_open_interrupt",
        "unknown_interrupt",
        "incomplete_resume",
        "invalid_resume_payload",
    ]
    assert "call_9" in (unknown.run_error.message if unknown.run_error else "")
    assert len(fake.bodies(RESPONSES)) == 1  # none of them reached the model


async def test_a_client_tool_named_like_an_agent_tool_is_refused(fake: FakeProvider) -> None:
    client = AgentClient(create_app(OpenAIAgentsAgent(weather_agent(fake))))
    clash = {"name": "get_weather", "description": "mine", "parameters": {"type": "object"}}
    result = await client.run("hi", tools=[clash])
    assert result.run_error is not None
    assert result.run_error.code == "tool_name_conflict"
    assert "get_weather" in result.run_error.message
    assert fake.bodies(RESPONSES) == []


class Forecast(BaseModel):
    city: str
    degrees: int


async def test_a_structured_final_output_is_the_runs_result(fake: FakeProvider) -> None:
    fake.queue(RESPONSES, script.response(script.text("m1", '{"city":"Paris","degrees":18}')))
    agent = Agent(name="forecaster", model=model(fake), output_type=Forecast)
    result = await AgentClient(create_app(OpenAIAgentsAgent(agent))).run("Paris?")
    finished = result.events[-1]
    assert finished.type.value == "RUN_FINISHED"
    assert finished.result == {"city": "Paris", "degrees": 18}
    assert result.text == '{"city":"Paris","degrees":18}'


async def test_two_resumes_at_once_run_the_approved_tool_once(fake: FakeProvider) -> None:
    calls: list[str] = []

    @function_tool(needs_approval=True)
    def send_payment(to: str) -> str:
        """Send a payment."""
        calls.append(to)
        return f"paid {to}"

    fake.queue(
        RESPONSES,
        script.response(script.whole_call("fc_1", "call_p", "send_payment", {"to": "Ann"})),
        script.response(script.text("m2", "Paid.")),
    )
    agent = Agent(name="payer", model=model(fake), tools=[send_payment])
    client = AgentClient(create_app(OpenAIAgentsAgent(agent)))
    async with client:
        first = await client.run("Pay Ann", thread_id="t", run_id="r1")
        results: list[Any] = []

        async def resume(run_id: str) -> None:
            history = {"messages": first.messages, "thread_id": "t", "run_id": run_id}
            results.append(await client.run(resume=[approve("call_p")], **history))

        async with anyio.create_task_group() as group:
            group.start_soon(resume, "r2")
            group.start_soon(resume, "r3")
    assert calls == ["Ann"]
    codes = sorted(str(r.run_error.code) if r.run_error else "finished" for r in results)
    assert codes == ["finished", "no_open_interrupt"]


def _caller(request: Any) -> Any:
    """The ``authorize`` hook of the next test: the caller named by a header, else 401."""
    user = request.headers.get("x-user")
    if not user:
        raise RequestRejectedError(401, "unauthorized", "send x-user")
    return {"user": user}


async def test_an_approval_is_answered_only_by_the_caller_whose_run_stopped_on_it(
    fake: FakeProvider,
) -> None:
    calls: list[str] = []

    @function_tool(needs_approval=True)
    def send_payment(to: str) -> str:
        """Send a payment."""
        calls.append(to)
        return f"paid {to}"

    fake.queue(
        RESPONSES,
        script.response(script.whole_call("fc_1", "call_p", "send_payment", {"to": "Ann"})),
        script.response(script.text("m2", "Paid.")),
    )
    agent = Agent(name="payer", model=model(fake), tools=[send_payment])
    with AgentServer(Served(agent), authorize=_caller) as server:
        alice = AgentClient(url=server.url, headers={"x-user": "alice"})
        mallory = AgentClient(url=server.url, headers={"x-user": "mallory"})
        first = await alice.run("Pay Ann", thread_id="t", run_id="r1")
        assert [i["id"] for i in first.interrupts] == ["call_p"]
        history = {"messages": first.messages, "thread_id": "t", "resume": [approve("call_p")]}
        # Another principal who learned the thread id (and the call id) answers the approval:
        stolen = await mallory.run(run_id="r2", **history)
        assert stolen.run_error is not None
        assert stolen.run_error.code == "no_open_interrupt"
        assert calls == []  # the tool did not run
        assert len(fake.bodies(RESPONSES)) == 1  # nor did the model hear of it
        # The owner's approval is still open: their resume runs the tool.
        owned = await alice.run(run_id="r3", **history)
    assert owned.run_error is None
    assert owned.text == "Paid."
    assert calls == ["Ann"]


async def test_ctx_principal_is_the_principal_hook_applied_to_the_verdict() -> None:
    seen: list[Any] = []

    async def agent(run_input: Any, ctx: Any) -> None:
        seen.append(ctx.principal)
        await ctx.say("ok")

    def principal(verdict: Any) -> Any:
        return None if verdict is None else f"user:{verdict['user']}"

    with AgentServer(agent, authorize=_caller, principal=principal) as server:
        await AgentClient(url=server.url, headers={"x-user": "alice"}).run("hi")
    with AgentServer(agent) as server:
        await AgentClient(url=server.url).run("hi")
    assert seen == ["user:alice", None]
