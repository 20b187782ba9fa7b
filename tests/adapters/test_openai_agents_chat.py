"""ag_ui.adapters.openai_agents over the SDK's ``OpenAIChatCompletionsModel`` (how an Agents SDK
agent reaches any Chat Completions server): parallel calls whose argument chunks interleave in
the Chat Completions wire format each end up under their own id, with their whole arguments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from agents import Agent

from tests.adapters.openai_agents_helpers import (
    Served,
    chat_model,
    client,
    get_weather,
    run,
    shape,
)
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import CHAT, FakeProvider, Reply

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


async def test_interleaved_parallel_calls_over_chat_completions(fake: FakeProvider) -> None:
    fake.queue(
        CHAT,
        Reply.sse("openai_chat_parallel_tools.sse"),
        Reply.sse("openai_chat_after_tools.sse"),
    )
    agent = Agent(name="assistant", model=chat_model(fake), tools=[get_weather])
    with AgentServer(Served(agent)) as server:
        http_agent, tap = client(server.url)
        events, _ = await run(http_agent, tap, run_id="run-1")
    run_1 = {"threadId": "thread-1", "runId": "run-1"}
    assert shape(events) == [
        ("RUN_STARTED", run_1),
        ("TOOL_CALL_START", {"toolCallId": "call_paris", "toolCallName": "get_weather"}),
        ("TOOL_CALL_ARGS", {"toolCallId": "call_paris", "delta": '{"city": '}),
        ("TOOL_CALL_START", {"toolCallId": "call_london", "toolCallName": "get_weather"}),
        ("TOOL_CALL_ARGS", {"toolCallId": "call_paris", "delta": '"Paris"}'}),
        ("TOOL_CALL_ARGS", {"toolCallId": "call_london", "delta": '{"city": "London"}'}),
        ("TOOL_CALL_END", {"toolCallId": "call_paris"}),
        ("TOOL_CALL_END", {"toolCallId": "call_london"}),
        result("result-run-1-1", "call_paris", "Sunny in Paris."),
        result("result-run-1-2", "call_london", "Sunny in London."),
        ("TEXT_MESSAGE_START", {"messageId": "msg-run-1-3", "role": "assistant"}),
        ("TEXT_MESSAGE_CONTENT", {"messageId": "msg-run-1-3", "delta": "Paris: sunny"}),
        ("TEXT_MESSAGE_CONTENT", {"messageId": "msg-run-1-3", "delta": ", London: rain."}),
        ("TEXT_MESSAGE_END", {"messageId": "msg-run-1-3"}),
        (
            "RUN_FINISHED",
            {
                **run_1,
                # The two Chat Completions calls' usage (50 + 90 in, 20 + 8 out), one model.
                "usage": [
                    {
                        "provider": "openai",
                        "model": "gpt-4o-mini",
                        "inputTokens": 140,
                        "outputTokens": 28,
                        "totalTokens": 168,
                        "reasoningTokens": 0,
                        "cachedInputTokens": 0,
                    }
                ],
            },
        ),
    ]


def result(message_id: str, call_id: str, content: str) -> tuple[str, dict[str, Any]]:
    return (
        "TOOL_CALL_RESULT",
        {"messageId": message_id, "toolCallId": call_id, "content": content, "role": "tool"},
    )
