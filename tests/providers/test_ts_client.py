"""The official TypeScript client (``@ag-ui/client``, which verifies every stream itself) runs a
``ModelAgent`` as a front end with a client-side tool does: run 1 ends with the tool call
pending, the front end adds the result, run 2 continues. For each API, what the TS client stored
(reasoning with its encrypted value, the call, the result) must make a valid next request."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest

from ag_ui.providers import AnthropicMessages, ModelAgent, OpenAIChat, OpenAIResponses
from ag_ui.providers._provider import ModelProvider
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import CHAT, MESSAGES, RESPONSES, FakeProvider, Reply

INTEROP = Path(__file__).resolve().parents[1] / "interop"

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "The weather where the user is (asks the browser).",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
CONFIRM_TOOL = {
    "name": "confirm_booking",
    "description": "Ask the user to confirm.",
    "parameters": {"type": "object", "properties": {"hotel": {"type": "string"}}},
}


def ts_round_trip(
    url: str, tools: list[dict[str, Any]], result: str, state: Any = None
) -> dict[str, Any]:
    completed = subprocess.run(
        [
            "node",
            str(INTEROP / "ts_tool_round_trip.mjs"),
            url,
            json.dumps(tools),
            result,
            json.dumps(state if state is not None else {}),
        ],
        capture_output=True,
        check=True,
        timeout=60,
        cwd=INTEROP,
    )
    return dict(json.loads(completed.stdout))


def _chat(fake: FakeProvider) -> ModelProvider:
    return OpenAIChat("gpt-4o-mini", base_url=fake.openai_url, api_key="k", max_retries=0)


def _responses(fake: FakeProvider) -> ModelProvider:
    return OpenAIResponses("gpt-5-mini", base_url=fake.openai_url, api_key="k", max_retries=0)


def _anthropic(fake: FakeProvider) -> ModelProvider:
    return AnthropicMessages("claude-sonnet-4-5", base_url=fake.url, api_key="k", max_retries=0)


def _chat_request_check(body: dict[str, Any]) -> None:
    assert body["messages"][-2]["tool_calls"][0]["id"] == "call_confirm"
    assert body["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_confirm",
        "content": "yes",
    }


def _responses_request_check(body: dict[str, Any]) -> None:
    assert body["input"][1:] == [
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
        {"type": "function_call_output", "call_id": "call_w1", "output": "yes"},
    ]


def _anthropic_request_check(body: dict[str, Any]) -> None:
    assistant, results = body["messages"][1:]
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "The user wants the weather; call get_weather.",
        "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
    }
    assert assistant["content"][2]["type"] == "tool_use"
    assert results == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "yes"}],
    }


CASES = [
    pytest.param(
        _chat,
        CHAT,
        ["openai_chat_frontend_tool.sse", "openai_chat_booked.sse"],
        CONFIRM_TOOL,
        _chat_request_check,
        id="chat-completions",
    ),
    pytest.param(
        _responses,
        RESPONSES,
        ["openai_responses_reasoning_tool.sse", "openai_responses_after_tool.sse"],
        WEATHER_TOOL,
        _responses_request_check,
        id="responses-reasoning",
    ),
    pytest.param(
        _anthropic,
        MESSAGES,
        ["anthropic_thinking_tool.sse", "anthropic_after_tool.sse"],
        WEATHER_TOOL,
        _anthropic_request_check,
        id="anthropic-thinking",
    ),
]


@pytest.mark.parametrize(("make", "path", "fixtures", "tool", "check"), CASES)
def test_frontend_tool_round_trip_with_the_typescript_client(
    fake: FakeProvider,
    make: Callable[[FakeProvider], ModelProvider],
    path: str,
    fixtures: list[str],
    tool: dict[str, Any],
    check: Callable[[dict[str, Any]], None],
) -> None:
    fake.queue(path, *[Reply.sse(name) for name in fixtures])
    with AgentServer(ModelAgent(make(fake))) as server:
        outcome = ts_round_trip(server.url, [tool], "yes")
    first, second = outcome["first"], outcome["second"]
    assert (first["error"], first["runError"]) == (None, None)
    assert (second["error"], second["runError"]) == (None, None)
    assert first["types"][-1] == "RUN_FINISHED"
    assert "TOOL_CALL_RESULT" not in first["types"]
    roles = [m["role"] for m in second["messages"]]
    assert roles[-3:] == ["assistant", "tool", "assistant"]
    reasoning = [m for m in first["messages"] if m["role"] == "reasoning"]
    if path != CHAT:
        assert reasoning
        assert reasoning[0]["encryptedValue"]
    check(fake.bodies(path)[1])


def test_shared_state_changes_reach_the_typescript_client(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_state_tool.sse"), Reply.sse("openai_chat_booked.sse"))
    fake.queue(CHAT, Reply.sse("openai_chat_booked.sse"))
    with AgentServer(ModelAgent(_chat(fake))) as server:
        outcome = ts_round_trip(server.url, [], "unused", state={"draft": "x", "guests": 2})
    assert outcome["first"]["state"] == {"guests": 2, "city": "Paris"}
    assert "STATE_DELTA" in outcome["first"]["types"]
    assert outcome["second"]["runError"] is None


def _ts_run(url: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    completed = subprocess.run(
        ["node", str(INTEROP / "ts_client_run.mjs"), url, json.dumps(messages), "{}"],
        capture_output=True,
        check=True,
        timeout=60,
        cwd=INTEROP,
    )
    return dict(json.loads(completed.stdout))


def test_redacted_thinking_round_trips_through_the_typescript_1_0_client(
    fake: FakeProvider,
) -> None:
    # The 1.0 client cannot store encryptedValueType: for it the redacted data keeps the
    # in-band prefix this SDK used before 1.1, so it still goes back as a redacted block.
    redacted = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
    fake.queue(MESSAGES, Reply.sse("anthropic_redacted.sse"), Reply.sse("anthropic_text.sse"))
    user = {"id": "user-1", "role": "user", "content": "Hi"}
    with AgentServer(ModelAgent(_anthropic(fake))) as server:
        first = _ts_run(server.url, [user])
        assert (first["error"], first["runError"]) == (None, None)
        (reasoning,) = [m for m in first["messages"] if m["role"] == "reasoning"]
        assert reasoning["encryptedValue"] == f"redacted_thinking:{redacted}"
        assert "encryptedValueType" not in reasoning
        again = [*first["messages"], {"id": "user-2", "role": "user", "content": "And now?"}]
        second = _ts_run(server.url, again)
    assert (second["error"], second["runError"]) == (None, None)
    assert fake.bodies(MESSAGES)[1]["messages"][1]["content"][0] == {
        "type": "redacted_thinking",
        "data": redacted,
    }
