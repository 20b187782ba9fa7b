"""OpenAI Chat Completions end to end: the real ``openai`` client streams from the fake
provider (the documented SSE format), ``ModelAgent`` serves it on uvicorn, our ``HttpAgent``
runs it; every stream is checked by the verifier."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ag_ui.client import HttpAgent
from ag_ui.providers import ModelAgent, OpenAIChat
from ag_ui.tools import tool
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import CHAT, FakeProvider, Reply
from tests.providers.runs import USER, client, run_once

pytestmark = pytest.mark.anyio

FORECAST = {"Paris": "sunny", "London": "rain"}


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return FORECAST[city]


def chat(fake: FakeProvider, **options: Any) -> OpenAIChat:
    return OpenAIChat(
        "gpt-4o-mini", base_url=fake.openai_url, api_key="test-key", max_retries=0, **options
    )


async def test_text_streams_as_one_assistant_message_with_usage(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    with AgentServer(ModelAgent(chat(fake), system="Be brief.")) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert run.wire[1:] == [
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-run-1-1"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-run-1-1", "delta": "Hello"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-run-1-1", "delta": " from"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-run-1-1", "delta": " the model."},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-run-1-1"},
        {
            "type": "RUN_FINISHED",
            "threadId": "thread-1",
            "runId": "run-1",
            "usage": [
                {
                    "provider": "openai",
                    "model": "gpt-4o-mini",
                    "inputTokens": 12,
                    "outputTokens": 4,
                    "totalTokens": 16,
                    "reasoningTokens": 0,
                    "cachedInputTokens": 8,
                }
            ],
        },
    ]
    assert run.wire[0]["type"] == "RUN_STARTED"
    assert run.messages[-1] == {
        "id": "msg-run-1-1",
        "role": "assistant",
        "content": "Hello from the model.",
    }
    assert fake.bodies(CHAT) == [
        {
            "model": "gpt-4o-mini",
            "stream": True,
            "stream_options": {"include_usage": True},
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": USER["content"]},
            ],
        }
    ]


async def test_parallel_backend_tool_calls_run_and_the_model_answers(fake: FakeProvider) -> None:
    fake.queue(
        CHAT, Reply.sse("openai_chat_parallel_tools.sse"), Reply.sse("openai_chat_after_tools.sse")
    )
    with AgentServer(ModelAgent(chat(fake), tools=[get_weather])) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert run.types[1:10] == [
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TOOL_CALL_RESULT",
    ]
    starts = run.of("TOOL_CALL_START")
    assert [(s["toolCallId"], s["toolCallName"], s["parentMessageId"]) for s in starts] == [
        ("call_paris", "get_weather", "msg-run-1-1"),
        ("call_london", "get_weather", "msg-run-1-1"),
    ]
    results = run.of("TOOL_CALL_RESULT")
    assert [(r["toolCallId"], r["content"]) for r in results] == [
        ("call_paris", "sunny"),
        ("call_london", "rain"),
    ]
    # Both calls sit on one assistant message; the answer is a second assistant message.
    assert run.messages[1]["toolCalls"] == [
        {
            "id": "call_paris",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        },
        {
            "id": "call_london",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "London"}'},
        },
    ]
    assert run.messages[-1]["content"] == "Paris: sunny, London: rain."
    second = fake.bodies(CHAT)[1]
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": run.messages[1]["toolCalls"],
        },
        {"role": "tool", "tool_call_id": "call_paris", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_london", "content": "rain"},
    ]
    assert second["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The current weather in a city.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "additionalProperties": False,
                },
            },
        }
    ]
    usage = run.of("RUN_FINISHED")[0]["usage"]
    assert usage == [
        {
            "provider": "openai",
            "model": "gpt-4o-mini",
            "inputTokens": 140,
            "outputTokens": 28,
            "totalTokens": 168,
        }
    ]


CONFIRM = {
    "name": "confirm_booking",
    "description": "Ask the user to confirm a booking.",
    "parameters": {
        "type": "object",
        "properties": {"hotel": {"type": "string"}},
        "required": ["hotel"],
    },
}


async def test_a_client_side_tool_handler_answers_the_model_and_the_run_continues(
    fake: FakeProvider,
) -> None:
    """The frontend-tool round trip above, done by ``run_agent`` with a registered handler."""
    fake.queue(
        CHAT, Reply.sse("openai_chat_frontend_tool.sse"), Reply.sse("openai_chat_booked.sse")
    )
    asked: list[str] = []

    @tool
    async def confirm_booking(hotel: str) -> str:
        """Ask the user to confirm a booking."""
        asked.append(hotel)
        return "confirmed"

    with AgentServer(ModelAgent(chat(fake), tools=[get_weather])) as server:
        agent = client(server.url)
        agent.add_tool(confirm_booking)
        result = await agent.run_agent()
    assert asked == ["Ritz"]
    assert result.tool_rounds == 1
    assert result.pending_tool_calls == []
    assert agent.messages[-1].content == "Booked the Ritz."
    first, second = fake.bodies(CHAT)
    assert second["messages"][-1]["role"] == "tool"
    assert second["messages"][-1]["tool_call_id"] == "call_confirm"
    assert second["messages"][-1]["content"] == "confirmed"
    for request in (first, second):
        offered = {t["function"]["name"]: t["function"] for t in request["tools"]}
        assert list(offered) == ["get_weather", "confirm_booking"]
        assert offered["confirm_booking"]["parameters"]["required"] == ["hotel"]
        assert offered["confirm_booking"]["description"] == "Ask the user to confirm a booking."


async def test_frontend_tool_ends_the_run_pending_and_the_next_run_continues(
    fake: FakeProvider,
) -> None:
    fake.queue(
        CHAT, Reply.sse("openai_chat_frontend_tool.sse"), Reply.sse("openai_chat_booked.sse")
    )
    with AgentServer(ModelAgent(chat(fake), tools=[get_weather])) as server:
        agent = client(server.url)
        first = await run_once(agent, tools=[CONFIRM])
        assert first.error is None
        assert first.result is not None
        assert first.result.pending_tool_call_ids == ["call_confirm"]
        finished = first.of("RUN_FINISHED")[0]
        assert finished["outcome"] == {"type": "success", "pendingToolCallIds": ["call_confirm"]}
        assert "TOOL_CALL_RESULT" not in first.types
        # Text then the call, on one assistant message.
        assert first.messages[1]["content"] == "Let me ask you."
        assert first.messages[1]["toolCalls"][0]["function"] == {
            "name": "confirm_booking",
            "arguments": '{"hotel": "Ritz"}',
        }
        agent.add_message(
            {"id": "tool-1", "role": "tool", "toolCallId": "call_confirm", "content": "confirmed"}
        )
        second = await run_once(agent, run_id="run-2", tools=[CONFIRM])
    assert second.error is None
    assert second.messages[-1]["content"] == "Booked the Ritz."
    request = fake.bodies(CHAT)[1]
    assert request["messages"][-2:] == [
        {
            "role": "assistant",
            "content": "Let me ask you.",
            "tool_calls": [
                {
                    "id": "call_confirm",
                    "type": "function",
                    "function": {"name": "confirm_booking", "arguments": '{"hotel": "Ritz"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_confirm", "content": "confirmed"},
    ]
    names = [tool["function"]["name"] for tool in request["tools"]]
    assert names == ["get_weather", "confirm_booking"]


async def test_the_model_changes_shared_state_through_the_state_tool(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_state_tool.sse"), Reply.sse("openai_chat_booked.sse"))
    with AgentServer(ModelAgent(chat(fake))) as server:
        run = await run_once(client(server.url, state={"draft": "x", "guests": 2}))
    assert run.error is None
    assert run.of("STATE_DELTA") == [
        {
            "type": "STATE_DELTA",
            "delta": [
                {"op": "remove", "path": "/draft"},
                {"op": "add", "path": "/city", "value": "Paris"},
            ],
        }
    ]
    assert run.agent.state == {"guests": 2, "city": "Paris"}
    first, second = fake.bodies(CHAT)
    assert '{"draft": "x", "guests": 2}' in first["messages"][0]["content"]
    assert '{"city": "Paris", "guests": 2}' in second["messages"][0]["content"]
    assert [tool["function"]["name"] for tool in first["tools"]] == ["update_state"]


async def test_reasoning_content_from_compatible_servers_becomes_reasoning(
    fake: FakeProvider,
) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_reasoning_content.sse"))
    with AgentServer(ModelAgent(chat(fake))) as server:
        run = await run_once(client(server.url))
    assert run.types[1:-1] == [
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
    ]
    assert run.messages[1] == {
        "id": "reasoning-run-1-2",
        "role": "reasoning",
        "content": "The user greets; answer briefly.",
    }
    assert run.messages[2]["content"] == "Hi!"


RATE_LIMIT = {
    "error": {
        "message": "Rate limit reached for gpt-4o-mini in organization org-SECRET on tokens.",
        "type": "tokens",
        "param": None,
        "code": "rate_limit_exceeded",
    }
}


@pytest.mark.parametrize(
    ("reply", "code", "status"),
    [
        pytest.param(
            Reply.error(429, RATE_LIMIT, headers={"retry-after": "7"}),
            "rate_limited",
            429,
            id="429",
        ),
        pytest.param(
            Reply.error(500, {"error": {"message": "boom at shard-7", "type": "server_error"}}),
            "provider_error",
            500,
            id="500",
        ),
        pytest.param(
            Reply.error(
                400,
                {
                    "error": {
                        "message": "This model's maximum context length is 128000 tokens.",
                        "type": "invalid_request_error",
                        "param": "messages",
                        "code": "context_length_exceeded",
                    }
                },
            ),
            "context_length_exceeded",
            400,
            id="context-too-long",
        ),
        pytest.param(
            Reply.error(
                401, {"error": {"message": "Incorrect API key sk-abc", "code": "invalid_api_key"}}
            ),
            "provider_auth_failed",
            401,
            id="401",
        ),
        pytest.param(
            Reply.error(404, {"error": {"message": "The model `gpt-9` does not exist"}}),
            "model_not_found",
            404,
            id="404",
        ),
    ],
)
async def test_http_failures_become_run_error_with_a_stable_code_and_safe_message(
    fake: FakeProvider, reply: Reply, code: str, status: int
) -> None:
    fake.queue(CHAT, reply)
    with AgentServer(ModelAgent(chat(fake))) as server:
        run = await run_once(client(server.url))
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    error = run.of("RUN_ERROR")[0]
    assert error["code"] == code
    assert "SECRET" not in error["message"]
    assert "shard-7" not in error["message"]
    assert "sk-abc" not in error["message"]
    assert run.error is not None
    assert run.error.code == code


async def test_debug_mode_shows_the_provider_text(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.error(429, RATE_LIMIT))
    with AgentServer(ModelAgent(chat(fake)), debug=True) as server:
        run = await run_once(client(server.url))
    assert "org-SECRET" in run.of("RUN_ERROR")[0]["message"]


async def test_the_sdk_retries_a_429_that_says_when(fake: FakeProvider) -> None:
    fake.queue(
        CHAT,
        Reply.error(429, RATE_LIMIT, headers={"retry-after-ms": "10"}),
        Reply.sse("openai_chat_text.sse"),
    )
    provider = OpenAIChat("gpt-4o-mini", base_url=fake.openai_url, api_key="k", max_retries=1)
    with AgentServer(ModelAgent(provider)) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert run.messages[-1]["content"] == "Hello from the model."
    assert len(fake.bodies(CHAT)) == 2


async def test_a_stream_cut_midway_closes_the_open_message_before_run_error(
    fake: FakeProvider,
) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse", cut_after=2))
    with AgentServer(ModelAgent(chat(fake))) as server:
        run = await run_once(client(server.url))
    assert run.types == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_ERROR",
    ]
    assert run.of("RUN_ERROR")[0]["code"] == "provider_stream_incomplete"


async def test_a_stream_that_ends_without_finish_reason_is_incomplete(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse", end_after=3))
    with AgentServer(ModelAgent(chat(fake))) as server:
        run = await run_once(client(server.url))
    assert run.types[-2:] == ["TEXT_MESSAGE_END", "RUN_ERROR"]
    assert run.of("RUN_ERROR")[0]["code"] == "provider_stream_incomplete"


async def test_a_silent_provider_times_out_within_the_configured_bound(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse", stall_after=2))
    with AgentServer(ModelAgent(chat(fake, timeout=0.5))) as server:
        started = time.monotonic()
        run = await run_once(client(server.url))
        elapsed = time.monotonic() - started
    assert run.of("RUN_ERROR")[0]["code"] == "provider_timeout"
    assert run.types[-2:] == ["TEXT_MESSAGE_END", "RUN_ERROR"]
    assert elapsed < 10


async def test_an_answer_cut_at_max_tokens_is_reported(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_length.sse"))
    with AgentServer(ModelAgent(chat(fake))) as server:
        run = await run_once(client(server.url))
    assert run.of("RUN_ERROR")[0]["code"] == "max_tokens_reached"
    assert run.messages[-1]["content"] == "A very long ans"


async def test_an_unreachable_provider_is_reported(fake: FakeProvider) -> None:
    provider = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0)
    with AgentServer(ModelAgent(provider)) as server:
        run = await run_once(client(server.url))
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    assert run.of("RUN_ERROR")[0]["code"] == "provider_unreachable"


async def test_a_client_that_leaves_closes_the_provider_stream(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse", delay=0.3))
    with AgentServer(ModelAgent(chat(fake))) as server:
        agent = HttpAgent(server.url)  # no middleware: leaving the stream closes the connection
        agent.add_message(USER)
        async with agent.stream(run_id="run-1") as events:
            async for event in events:
                if event.type.value == "TEXT_MESSAGE_CONTENT":
                    break
        left = time.monotonic()
        assert fake.client_left.wait(timeout=5)
        assert time.monotonic() - left < 5
    assert fake.frames_sent[0] < 7
