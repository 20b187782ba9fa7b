"""The official TypeScript client (``@ag-ui/client`` in Node, which verifies every stream itself)
reads Agents SDK agents served by ``OpenAIAgentsAgent`` on a real uvicorn: parallel calls (one
streamed, one whole) and a handoff's subagent end up in its conversation, and a tool approval
is its pending interrupt."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from agents import Agent

from tests.adapters import responses_script as script
from tests.adapters.openai_agents_helpers import Served, model, weather_agent
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import RESPONSES, FakeProvider

INTEROP = Path(__file__).resolve().parents[1] / "interop"
USER = [{"id": "u1", "role": "user", "content": "Weather in Paris and London, then billing?"}]


def ts_run(agent: Any) -> dict[str, Any]:
    """One run of ``ts_client_run.mjs`` (thread ``thread-1``, run ``run-1``) against ``agent``."""
    with AgentServer(Served(agent)) as server:
        done = subprocess.run(
            ["node", str(INTEROP / "ts_client_run.mjs"), server.url, json.dumps(USER)],
            capture_output=True,
            check=True,
            timeout=60,
            cwd=INTEROP,
            text=True,
        )
    return dict(json.loads(done.stdout))


def test_the_ts_client_reads_parallel_calls_and_a_handoff() -> None:
    with FakeProvider() as fake:
        billing = Agent(name="billing", model=model(fake))
        triage = weather_agent(fake, handoffs=[billing])
        fake.queue(
            RESPONSES,
            script.response(
                script.call("fc_1", "call_p", "get_weather", '{"city":', '"Paris"}'),
                script.whole_call("fc_2", "call_l", "get_weather", {"city": "London"}),
            ),
            script.response(script.whole_call("fc_3", "call_h", "transfer_to_billing", {})),
            script.response(script.text("m1", "Billing ", "here.")),
        )
        outcome = ts_run(triage)
    assert outcome["error"] is None
    assert outcome["runError"] is None
    calls = {
        call["id"]: (call["function"]["name"], json.loads(call["function"]["arguments"]))
        for message in outcome["messages"]
        if message["role"] == "assistant"
        for call in message.get("toolCalls") or []
    }
    assert calls == {
        "call_p": ("get_weather", {"city": "Paris"}),
        "call_l": ("get_weather", {"city": "London"}),
        "call_h": ("transfer_to_billing", {}),
    }
    results = {m["toolCallId"]: m["content"] for m in outcome["messages"] if m["role"] == "tool"}
    assert results == {
        "call_p": "Sunny in Paris.",
        "call_l": "Sunny in London.",
        "call_h": '{"assistant": "billing"}',
    }
    last = outcome["messages"][-1]
    assert (last["role"], last["content"]) == ("assistant", "Billing here.")
    assert last.get("subagentRunId") == "subagent-run-1-4"


def test_the_ts_client_sees_the_approval_as_pending() -> None:
    with FakeProvider() as fake:
        fake.queue(
            RESPONSES,
            script.response(script.whole_call("fc_1", "call_d", "delete_file", {"path": "/x"})),
        )
        outcome = ts_run(weather_agent(fake))
    assert outcome["error"] is None
    [pending] = outcome["pendingInterrupts"]
    assert (pending["id"], pending["reason"], pending["toolCallId"]) == (
        "call_d",
        "tool_call",
        "call_d",
    )
    assert pending["responseSchema"]["required"] == ["approved"]
