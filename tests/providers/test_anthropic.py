"""Anthropic Messages end to end: the real ``anthropic`` client against the fake provider's
documented event stream, served by ``ModelAgent``, run by our ``HttpAgent``."""

from __future__ import annotations

from typing import Any

import pytest

from ag_ui.providers import AnthropicMessages, ModelAgent
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import MESSAGES, FakeProvider, Reply
from tests.providers.runs import USER, client, run_once

pytestmark = pytest.mark.anyio

SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"sunny in {city}"


def claude(fake: FakeProvider, **options: Any) -> AnthropicMessages:
    return AnthropicMessages(
        "claude-sonnet-4-5", base_url=fake.url, api_key="test-key", max_retries=0, **options
    )


async def test_text_with_cache_counted_into_the_input(fake: FakeProvider) -> None:
    fake.queue(MESSAGES, Reply.sse("anthropic_text.sse"))
    agent = ModelAgent(claude(fake), system="Be brief.")
    with AgentServer(agent) as server:
        run = await run_once(
            client(server.url, {"id": "s1", "role": "system", "content": "Speak French."}, USER)
        )
    assert run.error is None
    assert run.types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert run.messages[-1]["content"] == "Hello from Claude."
    # Anthropic counts cache reads apart from input_tokens; AG-UI's input is the whole input.
    assert run.of("RUN_FINISHED")[0]["usage"] == [
        {
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "inputTokens": 125,
            "outputTokens": 6,
            "totalTokens": 131,
            "cachedInputTokens": 100,
            "cacheWriteInputTokens": 0,
        }
    ]
    assert fake.bodies(MESSAGES) == [
        {
            "model": "claude-sonnet-4-5",
            "stream": True,
            "max_tokens": 4096,
            "system": "Be brief.\n\nSpeak French.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": USER["content"]}]}],
        }
    ]


async def test_thinking_with_signature_before_a_tool_call_goes_back_signed(
    fake: FakeProvider,
) -> None:
    fake.queue(
        MESSAGES, Reply.sse("anthropic_thinking_tool.sse"), Reply.sse("anthropic_after_tool.sse")
    )
    agent = ModelAgent(
        claude(fake, thinking={"type": "enabled", "budget_tokens": 1024}), tools=[get_weather]
    )
    with AgentServer(agent) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert run.types[1:17] == [
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_ENCRYPTED_VALUE",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START",
    ]
    reasoning = run.messages[1]
    assert reasoning["role"] == "reasoning"
    assert reasoning["content"] == "The user wants the weather; call get_weather."
    assert reasoning["encryptedValue"] == SIGNATURE
    second = fake.bodies(MESSAGES)[1]
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "The user wants the weather; call get_weather.",
                    "signature": SIGNATURE,
                },
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny in Paris"}
            ],
        },
    ]
    assert run.of("RUN_FINISHED")[0]["usage"][0]["inputTokens"] == 180


async def test_redacted_thinking_round_trips_through_the_client(fake: FakeProvider) -> None:
    fake.queue(MESSAGES, Reply.sse("anthropic_redacted.sse"), Reply.sse("anthropic_text.sse"))
    with AgentServer(ModelAgent(claude(fake))) as server:
        agent = client(server.url)
        first = await run_once(agent)
        assert first.messages[1]["encryptedValue"] == REDACTED
        assert first.messages[1]["encryptedValueType"] == "anthropic.redacted_thinking"
        agent.add_message({"id": "user-2", "role": "user", "content": "And now?"})
        second = await run_once(agent, run_id="run-2")
    assert second.error is None
    assert fake.bodies(MESSAGES)[1]["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "redacted_thinking", "data": REDACTED},
            {"type": "text", "text": "Done."},
        ],
    }


async def test_an_error_event_mid_stream_closes_the_text_then_run_error(
    fake: FakeProvider,
) -> None:
    fake.queue(MESSAGES, Reply.sse("anthropic_overloaded_midstream.sse"))
    with AgentServer(ModelAgent(claude(fake))) as server:
        run = await run_once(client(server.url))
    assert run.types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_ERROR",
    ]
    assert run.of("RUN_ERROR")[0]["code"] == "provider_overloaded"


def _anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            429,
            _anthropic_error("rate_limit_error", "Number of requests exceeded org 1234"),
            "rate_limited",
        ),
        (500, _anthropic_error("api_error", "Internal server error"), "provider_error"),
        (529, _anthropic_error("overloaded_error", "Overloaded"), "provider_overloaded"),
        (
            400,
            _anthropic_error(
                "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
            ),
            "context_length_exceeded",
        ),
        (400, _anthropic_error("invalid_request_error", "messages.0: bad"), "provider_bad_request"),
        (
            401,
            _anthropic_error("authentication_error", "invalid x-api-key"),
            "provider_auth_failed",
        ),
    ],
)
async def test_http_failures_become_run_error_with_stable_codes(
    fake: FakeProvider, status: int, body: dict[str, Any], code: str
) -> None:
    fake.queue(MESSAGES, Reply.error(status, body))
    with AgentServer(ModelAgent(claude(fake))) as server:
        run = await run_once(client(server.url))
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    error = run.of("RUN_ERROR")[0]
    assert error["code"] == code
    assert body["error"]["message"] not in error["message"]


async def test_a_cut_stream_closes_the_open_tool_call_and_reasoning(fake: FakeProvider) -> None:
    fake.queue(MESSAGES, Reply.sse("anthropic_thinking_tool.sse", cut_after=12))
    with AgentServer(ModelAgent(claude(fake), tools=[get_weather])) as server:
        run = await run_once(client(server.url))
    assert run.types[-3:] == ["TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_ERROR"]
    assert run.of("RUN_ERROR")[0]["code"] == "provider_stream_incomplete"
    assert "TOOL_CALL_RESULT" not in run.types


async def test_a_stream_without_message_stop_is_incomplete(fake: FakeProvider) -> None:
    fake.queue(MESSAGES, Reply.sse("anthropic_text.sse", end_after=6))
    with AgentServer(ModelAgent(claude(fake))) as server:
        run = await run_once(client(server.url))
    assert run.of("RUN_ERROR")[0]["code"] == "provider_stream_incomplete"
