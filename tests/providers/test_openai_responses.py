"""OpenAI Responses end to end: the real ``openai`` client against the fake provider's
documented event stream, served by ``ModelAgent``, run by our ``HttpAgent``."""

from __future__ import annotations

from typing import Any

import pytest

from ag_ui.providers import ModelAgent, OpenAIResponses
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import RESPONSES, FakeProvider, Reply
from tests.providers.runs import USER, client, run_once

pytestmark = pytest.mark.anyio


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"sunny in {city}"


def responses(fake: FakeProvider, **options: Any) -> OpenAIResponses:
    return OpenAIResponses(
        "gpt-5-mini", base_url=fake.openai_url, api_key="test-key", max_retries=0, **options
    )


async def test_text_and_usage(fake: FakeProvider) -> None:
    fake.queue(RESPONSES, Reply.sse("openai_responses_text.sse"))
    with AgentServer(ModelAgent(responses(fake), system="Be brief.")) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert run.types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert run.messages[-1]["content"] == "Hello there."
    assert run.of("RUN_FINISHED")[0]["usage"] == [
        {
            "provider": "openai",
            "model": "gpt-5-mini",
            "inputTokens": 20,
            "outputTokens": 3,
            "totalTokens": 23,
            "reasoningTokens": 0,
            "cachedInputTokens": 0,
        }
    ]
    assert fake.bodies(RESPONSES) == [
        {
            "model": "gpt-5-mini",
            "stream": True,
            "store": False,
            "include": ["reasoning.encrypted_content"],
            "instructions": "Be brief.",
            "input": [{"type": "message", "role": "user", "content": USER["content"]}],
        }
    ]


async def test_reasoning_with_encrypted_content_before_a_tool_call_goes_back(
    fake: FakeProvider,
) -> None:
    fake.queue(
        RESPONSES,
        Reply.sse("openai_responses_reasoning_tool.sse"),
        Reply.sse("openai_responses_after_tool.sse"),
    )
    with AgentServer(ModelAgent(responses(fake), tools=[get_weather])) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert run.types[1:9] == [
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_ENCRYPTED_VALUE",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TOOL_CALL_START",
    ]
    assert run.of("REASONING_ENCRYPTED_VALUE") == [
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "rs_1",
            "encryptedValue": "gAAAAB-encrypted-reasoning-1",
            "encryptedValueType": "openai.encrypted_content",
        }
    ]
    # The client keeps the reasoning with its encrypted value and its type ...
    assert run.messages[1] == {
        "id": "rs_1",
        "role": "reasoning",
        "content": "Need the weather for Paris.",
        "encryptedValue": "gAAAAB-encrypted-reasoning-1",
        "encryptedValueType": "openai.encrypted_content",
    }
    # ... and the agent's second request carries it back, before the call it led to.
    assert fake.bodies(RESPONSES)[1]["input"][1:] == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Need the weather for Paris."}],
            "encrypted_content": "gAAAAB-encrypted-reasoning-1",
        },
        {
            "type": "function_call",
            "call_id": "call_w1",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_w1", "output": "sunny in Paris"},
    ]
    usage = run.of("RUN_FINISHED")[0]["usage"][0]
    assert (usage["inputTokens"], usage["cachedInputTokens"], usage["reasoningTokens"]) == (
        120,
        50,
        20,
    )


async def test_next_run_sends_the_clients_reasoning_back(fake: FakeProvider) -> None:
    """What the TS or Python client stored (reasoning + call + result) is a valid next input."""
    fake.queue(RESPONSES, Reply.sse("openai_responses_text.sse"))
    history = [
        USER,
        {"id": "rs_1", "role": "reasoning", "content": "", "encryptedValue": "enc-1"},
        {
            "id": "m1",
            "role": "assistant",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}}
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "", "error": "it broke"},
    ]
    with AgentServer(ModelAgent(responses(fake))) as server:
        run = await run_once(client(server.url, *history))
    assert run.error is None
    assert fake.bodies(RESPONSES)[0]["input"][1:] == [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc-1"},
        {"type": "function_call", "call_id": "c1", "name": "x", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "Error: it broke"},
    ]


@pytest.mark.parametrize(
    ("fixture", "code"),
    [
        ("openai_responses_failed.sse", "provider_error"),
        ("openai_responses_error_event.sse", "rate_limited"),
    ],
)
async def test_failure_events_in_the_stream_become_run_error(
    fake: FakeProvider, fixture: str, code: str
) -> None:
    fake.queue(RESPONSES, Reply.sse(fixture))
    with AgentServer(ModelAgent(responses(fake))) as server:
        run = await run_once(client(server.url))
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    error = run.of("RUN_ERROR")[0]
    assert error["code"] == code
    assert "org-secret" not in error["message"]


async def test_http_429_and_context_too_long(fake: FakeProvider) -> None:
    fake.queue(
        RESPONSES,
        Reply.error(429, {"error": {"message": "slow down", "code": "rate_limit_exceeded"}}),
        Reply.error(
            400,
            {
                "error": {
                    "message": "Your input exceeds the context window of this model.",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            },
        ),
    )
    with AgentServer(ModelAgent(responses(fake))) as server:
        first = await run_once(client(server.url))
        second = await run_once(client(server.url))
    assert first.of("RUN_ERROR")[0]["code"] == "rate_limited"
    assert second.of("RUN_ERROR")[0]["code"] == "context_length_exceeded"


async def test_a_cut_stream_closes_open_reasoning_before_run_error(fake: FakeProvider) -> None:
    fake.queue(RESPONSES, Reply.sse("openai_responses_reasoning_tool.sse", cut_after=4))
    with AgentServer(ModelAgent(responses(fake), tools=[get_weather])) as server:
        run = await run_once(client(server.url))
    assert run.types == [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "RUN_ERROR",
    ]
    assert run.of("RUN_ERROR")[0]["code"] == "provider_stream_incomplete"
