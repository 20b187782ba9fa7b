"""A tool-calling ``ModelAgent`` run on a real uvicorn server, against the local fake OpenAI
API: the exact span tree, the GenAI attributes, the metrics, and the caller's trace continued
from ``HttpAgent``'s ``traceparent``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.trace import StatusCode

from ag_ui import telemetry
from ag_ui.providers import ModelAgent, OpenAIChat
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import CHAT, FakeProvider, Reply
from tests.providers.runs import client, run_once
from tests.telemetry.conftest import Otel

pytestmark = pytest.mark.anyio


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


def weather_agent(fake: FakeProvider) -> ModelAgent:
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return {"Paris": "sunny"}.get(city, "rain")

    fake.queue(
        CHAT, Reply.sse("openai_chat_parallel_tools.sse"), Reply.sse("openai_chat_after_tools.sse")
    )
    model = OpenAIChat("gpt-4o-mini", base_url=fake.openai_url, api_key="k", max_retries=0)
    return ModelAgent(model, tools=[get_weather])


async def test_a_tool_calling_run_is_one_tree_of_gen_ai_spans(
    otel: Otel, fake: FakeProvider
) -> None:
    with AgentServer(weather_agent(fake)) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert otel.tree() == [
        (
            "invoke_agent ModelAgent",
            [
                ("chat gpt-4o-mini", []),
                ("tool_call get_weather", []),
                ("tool_call get_weather", []),
                ("execute_tool get_weather", []),
                ("execute_tool get_weather", []),
                ("chat gpt-4o-mini", []),
            ],
        )
    ]
    [agent] = otel.named("invoke_agent ModelAgent")
    assert dict(agent.attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "ModelAgent",
        "gen_ai.conversation.id": "thread-1",
        "ag_ui.run_id": "run-1",
        "ag_ui.detached": False,
        "gen_ai.usage.input_tokens": 140,
        "gen_ai.usage.output_tokens": 28,
        "ag_ui.outcome": "success",
        "ag_ui.events": len(run.events),
    }
    first, second = otel.named("chat gpt-4o-mini")
    assert dict(first.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.response.finish_reasons": ("tool_calls",),
        "gen_ai.usage.input_tokens": 50,
        "gen_ai.usage.output_tokens": 20,
        "gen_ai.response.model": "gpt-4o-mini",
    }
    assert second.attributes is not None
    assert second.attributes["gen_ai.response.finish_reasons"] == ("end_turn",)
    assert (
        second.attributes["gen_ai.usage.input_tokens"],
        second.attributes["gen_ai.usage.output_tokens"],
    ) == (90, 8)
    tools = otel.named("execute_tool get_weather")
    assert sorted(dict(span.attributes or {})["gen_ai.tool.call.id"] for span in tools) == [
        "call_london",
        "call_paris",
    ]
    assert dict(tools[0].attributes or {}).keys() == {
        "gen_ai.operation.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.type",
    }  # no arguments, no result: content capture is off by default
    assert "gen_ai.input.messages" not in (first.attributes or {})


async def test_the_run_metrics(otel: Otel, fake: FakeProvider) -> None:
    with AgentServer(weather_agent(fake)) as server:
        run = await run_once(client(server.url))
    [duration] = otel.points("ag_ui.run.duration")
    assert duration.count == 1
    assert dict(duration.attributes) == {
        "gen_ai.agent.name": "ModelAgent",
        "ag_ui.outcome": "success",
    }
    [events] = otel.points("ag_ui.run.events")
    assert events.sum == len(run.events)
    assert [point.count for point in otel.points("ag_ui.run.time_to_first_event")] == [1]
    assert [point.value for point in otel.points("ag_ui.runs.active")] == [0]
    assert [point.value for point in otel.points("ag_ui.streams.active")] == [0]
    tokens = {
        point.attributes["gen_ai.token.type"]: point.sum
        for point in otel.points("gen_ai.client.token.usage")
    }
    assert tokens == {"input": 140, "output": 28}
    assert sum(point.count for point in otel.points("gen_ai.client.operation.duration")) == 2
    assert sum(point.count for point in otel.points("ag_ui.model.time_to_first_token")) == 2
    assert sum(point.count for point in otel.points("ag_ui.model.time_per_output_token")) == 2
    assert otel.points("ag_ui.run.errors") == []


async def test_content_is_captured_only_when_asked(otel: Otel, fake: FakeProvider) -> None:
    telemetry.instrument(tracer_provider=otel.tracer_provider, capture_content=True)
    with AgentServer(weather_agent(fake)) as server:
        await run_once(client(server.url))
    first, second = otel.named("chat gpt-4o-mini")
    assert first.attributes is not None
    assert second.attributes is not None
    assert first.attributes["gen_ai.input.messages"] == (
        '[{"role": "user", "parts": [{"type": "text", "content": '
        '"What is the weather in Paris and London?"}]}]'
    )
    assert '"response": "sunny"' in str(second.attributes["gen_ai.input.messages"])
    assert second.attributes["gen_ai.output.messages"] == (
        '[{"role": "assistant", "parts": [{"type": "text", "content": '
        '"Paris: sunny, London: rain."}]}]'
    )
    results = {
        span.attributes["gen_ai.tool.call.id"]: span.attributes["gen_ai.tool.call.result"]
        for span in otel.named("execute_tool get_weather")
        if span.attributes is not None
    }
    assert results == {"call_paris": "sunny", "call_london": "rain"}


async def test_http_agent_carries_the_callers_trace_into_the_run(
    otel: Otel, fake: FakeProvider
) -> None:
    tracer = otel.tracer_provider.get_tracer("the app")
    with (
        AgentServer(weather_agent(fake)) as server,
        tracer.start_as_current_span("button clicked") as clicked,
    ):
        await run_once(client(server.url))
    [agent] = otel.named("invoke_agent ModelAgent")
    assert agent.parent is not None
    assert agent.context is not None
    assert agent.parent.span_id == clicked.get_span_context().span_id
    assert agent.context.trace_id == clicked.get_span_context().trace_id
    assert [name for name, _ in otel.tree()] == ["button clicked"]


async def test_a_provider_failure_is_an_error_on_the_chat_and_the_run_span(
    otel: Otel, fake: FakeProvider
) -> None:
    fake.queue(
        CHAT, Reply.error(429, {"error": {"message": "slow down", "type": "rate_limit_error"}})
    )
    model = OpenAIChat("gpt-4o-mini", base_url=fake.openai_url, api_key="k", max_retries=0)
    with AgentServer(ModelAgent(model)) as server:
        run = await run_once(client(server.url))
    assert run.error is not None
    code = run.of("RUN_ERROR")[0]["code"]
    assert otel.tree() == [("invoke_agent ModelAgent", [("chat gpt-4o-mini", [])])]
    [chat] = otel.named("chat gpt-4o-mini")
    [agent] = otel.named("invoke_agent ModelAgent")
    for span in (chat, agent):
        assert span.status.status_code is StatusCode.ERROR
        assert (span.attributes or {})["error.type"] == code
    [duration] = otel.points("gen_ai.client.operation.duration")
    assert dict(duration.attributes)["error.type"] == code
