"""``ModelAgent``'s loop: bounded rounds, tool failures the model can read, unknown tools, name
conflicts, the shared-state policy, sync tools off the event loop, and its set-up errors."""

from __future__ import annotations

import json
import threading
from typing import Any

import anyio
import httpx
import pytest

from ag_ui.core.errors import ProviderConfigError, ToolDefinitionError, ToolError
from ag_ui.providers import AnthropicMessages, ModelAgent, OpenAIChat, OpenAIResponses
from ag_ui.server import RunContext
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import CHAT, FakeProvider, Reply
from tests.providers.runs import USER, client, run_once

pytestmark = pytest.mark.anyio

TOOLS_THEN_ANSWER = (
    Reply.sse("openai_chat_parallel_tools.sse"),
    Reply.sse("openai_chat_after_tools.sse"),
)


def chat(fake: FakeProvider) -> OpenAIChat:
    return OpenAIChat("gpt-4o-mini", base_url=fake.openai_url, api_key="k", max_retries=0)


def results(run: Any) -> list[str]:
    return [r["content"] for r in run.of("TOOL_CALL_RESULT")]


async def test_rounds_are_bounded(fake: FakeProvider) -> None:
    fake.queue(CHAT, *[Reply.sse("openai_chat_parallel_tools.sse")] * 2)

    def get_weather(city: str) -> str:
        return "sunny"

    with AgentServer(ModelAgent(chat(fake), tools=[get_weather], max_rounds=2)) as server:
        run = await run_once(client(server.url))
    assert run.of("RUN_ERROR")[0]["code"] == "max_rounds_exceeded"
    assert "max_rounds=2" in run.of("RUN_ERROR")[0]["message"]
    assert len(run.of("TOOL_CALL_RESULT")) == 4


async def test_a_call_to_an_unknown_tool_is_answered_with_the_tools_there_are(
    fake: FakeProvider,
) -> None:
    fake.queue(CHAT, *TOOLS_THEN_ANSWER)

    def get_time() -> str:
        return "noon"

    with AgentServer(ModelAgent(chat(fake), tools=[get_time])) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert (
        results(run)
        == [
            "There is no tool named 'get_weather'; the tools available are: get_time.",
        ]
        * 2
    )
    assert fake.bodies(CHAT)[1]["messages"][-1]["content"].startswith("Error: There is no tool")


async def test_tool_errors_reach_the_model_without_secrets_unless_asked(fake: FakeProvider) -> None:
    def get_weather(city: str) -> str:
        if city == "Paris":
            raise ToolError("Paris is not covered by this service")
        raise KeyError("api-key-123")

    fake.queue(CHAT, *TOOLS_THEN_ANSWER, *TOOLS_THEN_ANSWER)
    with AgentServer(ModelAgent(chat(fake), tools=[get_weather])) as server:
        quiet = await run_once(client(server.url))
    with AgentServer(ModelAgent(chat(fake), tools=[get_weather]), debug=True) as server:
        loud = await run_once(client(server.url))
    assert results(quiet) == [
        "Paris is not covered by this service",
        "tool 'get_weather' failed; the details are in the server log",
    ]
    assert results(loud)[1] == "tool 'get_weather' failed: KeyError: 'api-key-123'"
    # The failed result goes back to the model marked as an error.
    assert fake.bodies(CHAT)[1]["messages"][-2]["content"] == (
        "Error: Paris is not covered by this service"
    )


async def test_arguments_that_do_not_fit_are_explained_to_the_model(fake: FakeProvider) -> None:
    def get_weather(city: int) -> str:
        return "never"

    fake.queue(CHAT, *TOOLS_THEN_ANSWER)
    with AgentServer(ModelAgent(chat(fake), tools=[get_weather])) as server:
        run = await run_once(client(server.url))
    assert results(run)[0] == (
        "invalid arguments for tool 'get_weather': \"city\": Input should be a valid integer, "
        "unable to parse string as an integer"
    )


async def test_a_sync_tool_runs_in_a_worker_thread_and_a_tool_can_take_the_context(
    fake: FakeProvider,
) -> None:
    threads: list[str] = []
    seen_runs: list[str] = []

    def get_weather(city: str) -> str:
        threads.append(threading.current_thread().name)
        return "sunny"

    async def get_time(ctx: RunContext) -> str:
        seen_runs.append(ctx.run_id)
        return "noon"

    fake.queue(CHAT, *TOOLS_THEN_ANSWER)
    agent = ModelAgent(chat(fake), tools=[get_weather, get_time])
    with AgentServer(agent) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert len(threads) == 2
    assert all("AnyIO worker" in name for name in threads)
    # get_time's schema has no parameter for the context.
    tools = {t["function"]["name"]: t["function"] for t in fake.bodies(CHAT)[0]["tools"]}
    assert tools["get_time"]["parameters"]["properties"] == {}


async def test_a_frontend_tool_named_like_a_backend_tool_is_refused(fake: FakeProvider) -> None:
    def get_weather(city: str) -> str:
        return "sunny"

    with AgentServer(ModelAgent(chat(fake), tools=[get_weather])) as server:
        run = await run_once(
            client(server.url), tools=[{"name": "get_weather", "description": "client side"}]
        )
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    assert run.of("RUN_ERROR")[0]["code"] == "tool_name_conflict"
    assert fake.requests == []


@pytest.mark.parametrize(
    ("share_state", "state", "offered"),
    [(None, {}, False), (None, {"a": 1}, True), (False, {"a": 1}, False), (True, None, True)],
)
async def test_shared_state_policy(
    fake: FakeProvider, share_state: Any, state: Any, offered: bool
) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    with AgentServer(ModelAgent(chat(fake), share_state=share_state)) as server:
        await run_once(client(server.url, state=state))
    body = fake.bodies(CHAT)[0]
    assert ("tools" in body) is offered
    assert ("shared state" in body["messages"][0]["content"]) is offered


def test_set_up_errors_name_the_fix() -> None:
    with pytest.raises(ProviderConfigError, match="not PROVIDER:MODEL"):
        ModelAgent("gpt-4o")
    with pytest.raises(ProviderConfigError, match="unknown provider 'gemini'"):
        ModelAgent("gemini:pro")
    provider = OpenAIChat("m", base_url="http://127.0.0.1:1/v1", api_key="k")
    with pytest.raises(ProviderConfigError, match="give them to the provider"):
        ModelAgent(provider, base_url="http://localhost")
    with pytest.raises(ProviderConfigError, match="max_rounds"):
        ModelAgent(provider, max_rounds=0)

    def twin(a: int) -> int:
        return a

    with pytest.raises(ToolDefinitionError, match="two backend tools are named 'twin'"):
        ModelAgent(provider, tools=[twin, twin])

    def variadic(*cities: str) -> str:
        return ""

    with pytest.raises(ToolDefinitionError, match=r"\*cities"):
        ModelAgent(provider, tools=[variadic])


@pytest.mark.parametrize("make", [OpenAIChat, OpenAIResponses, AnthropicMessages])
def test_a_base_url_or_a_timeout_that_cannot_work_is_refused(make: Any) -> None:
    with pytest.raises(ProviderConfigError, match="'localhost:11434' is not an http:// or https"):
        make("m", base_url="localhost:11434", api_key="k")
    for timeout in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ProviderConfigError, match="finite number of seconds more than 0"):
            make("m", base_url="http://127.0.0.1:1/v1", api_key="k", timeout=timeout)


def test_missing_api_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    with pytest.raises(ProviderConfigError, match="set the OPENAI_API_KEY environment variable"):
        ModelAgent("openai:gpt-4o-mini")
    with pytest.raises(ProviderConfigError, match="ANTHROPIC_API_KEY"):
        ModelAgent("anthropic:claude-sonnet-4-5")
    # A local server needs no key.
    ModelAgent("openai:llama3.2", base_url="http://127.0.0.1:11434/v1")


async def test_run_started_is_sent_before_the_model_answers(fake: FakeProvider) -> None:
    # The model takes its request and then sends nothing (a slow first token, here forever):
    # the client has RUN_STARTED already, then leaves, and the model's request is cancelled.
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse", stall_after=0))
    body = {"threadId": "t", "runId": "r", "messages": [USER], "protocolVersion": "1.1"}
    with AgentServer(ModelAgent(chat(fake))) as server:
        async with (
            httpx.AsyncClient(timeout=httpx.Timeout(10.0)) as http,
            http.stream("POST", server.url, json=body) as response,
        ):
            # One iterator, kept: a dropped one is closed by its finalizer, and so the stream.
            chunks = response.aiter_bytes()
            first = b""
            async for chunk in chunks:
                first += chunk
                if b"\n\n" in first:
                    break
            with anyio.fail_after(10):  # the model has the request, and has not answered
                while not fake.bodies(CHAT):
                    await anyio.sleep(0.01)
        assert fake.client_left.wait(timeout=10)  # the model's request ended with the client
    frame = json.loads(first.split(b"\n\n")[0].removeprefix(b"data: "))
    assert frame["type"] == "RUN_STARTED"
    assert (frame["threadId"], frame["runId"], frame["protocolVersion"]) == ("t", "r", "1.1")
    assert fake.frames_sent == [0]  # the model had sent nothing when RUN_STARTED arrived
