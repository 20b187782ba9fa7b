"""The drop-in on real framework integrations: pydantic-ai's AG-UI adapter and ag-ui-langgraph,
each in its own venv with this SDK's wheel installed over ``ag-ui-protocol``.

For every scenario (text, a backend tool, a frontend tool from ``RunAgentInput.tools``, shared
state, an interrupt) this SDK's ``HttpAgent`` (over SSE, and asking for protobuf) and the
TypeScript ``@ag-ui/client`` accept the stream and finish the conversation, and the frames
equal what the same framework sends on the official package, ids and timestamps aside.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from ag_ui.client import HttpAgent
from ag_ui.core import PROTOCOL_VERSION
from tests.frameworks.fixtures import FrameworkServerFactory
from tests.frameworks.scenarios import APPROVAL, FRONTEND_RESULT, SCENARIOS, first_body

pytestmark = pytest.mark.anyio

FRAMEWORKS = ("pydantic-ai", "langgraph")
INTEROP = Path(__file__).resolve().parents[1] / "interop"
TS_RUN = INTEROP / "ts_framework_run.mjs"

# What each scenario's final answer says (the scripted models quote the tool they ran).
EXPECTED_TEXT = {
    "text": r"Hello from (pydantic-ai|LangGraph)!",
    "backend_tool": r"get_weather said: .*sunny",
    "frontend_tool": rf"change_color said: {FRONTEND_RESULT}",
    "state": r"bump_counter said: counter=1",
    "interrupt": r"book_table said: booked a table for 2",
}


def _last_text(messages: list[dict[str, Any]]) -> str:
    texts = [m.get("content") for m in messages if m.get("role") == "assistant"]
    return next((t for t in reversed(texts) if isinstance(t, str) and t), "")


async def _converse(url: str, scenario: str, thread_id: str, *, proto: bool) -> HttpAgent:
    body = first_body(scenario, thread_id)
    agent = HttpAgent(
        url,
        thread_id=thread_id,
        initial_messages=body["messages"],
        initial_state=body["state"],
        proto=proto,
    )
    result = await agent.run_agent(run_id=body["runId"], tools=body["tools"])
    if scenario == "frontend_tool":
        # The run ends with the client tool's call pending: answer it and continue.
        assert result.pending_tool_call_ids == ["call-frontend"]
        agent.add_message(
            {
                "id": "tool-1",
                "role": "tool",
                "toolCallId": "call-frontend",
                "content": FRONTEND_RESULT,
            }
        )
        await agent.run_agent(run_id=f"{thread_id}-r2", tools=body["tools"])
    elif scenario == "interrupt":
        assert len(agent.pending_interrupts) == 1
        interrupt_id = agent.pending_interrupts[0].id
        resume = [{"interruptId": interrupt_id, "status": "resolved", "payload": APPROVAL}]
        await agent.run_agent(run_id=f"{thread_id}-r2", resume=resume)
    return agent


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "asks-protobuf"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("framework", FRAMEWORKS)
async def test_http_agent_completes_every_scenario(
    framework_server: FrameworkServerFactory, framework: str, scenario: str, proto: bool
) -> None:
    url = framework_server(framework)
    thread = f"py-{scenario}-{'proto' if proto else 'sse'}"
    agent = await _converse(url, scenario, thread, proto=proto)
    messages = [m.model_dump(by_alias=True, mode="json") for m in agent.messages]
    assert re.search(EXPECTED_TEXT[scenario], _last_text(messages)), messages
    if scenario == "state":
        assert agent.state.get("counter") == 1, agent.state
    assert not agent.pending_interrupts


def _ts_run(request: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(TS_RUN)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=INTEROP,
        timeout=60,
        check=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    assert answer["error"] is None, answer["error"]
    assert answer["runError"] is None, answer["runError"]
    # What a framework declares from ag_ui.core.PROTOCOL_VERSION is the official package's:
    # @ag-ui/client 1.0.x warns on every run about a producer declaring anything newer.
    assert answer["warnings"] == [], answer["warnings"]
    return answer


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_typescript_client_completes_every_scenario(
    framework_server: FrameworkServerFactory, framework: str, scenario: str
) -> None:
    url = framework_server(framework)
    thread = f"ts-{scenario}"
    body = first_body(scenario, thread)
    request = {"url": url, **body}
    first = _ts_run(request)
    if scenario == "frontend_tool":
        tool_message = {
            "id": "tool-1",
            "role": "tool",
            "toolCallId": "call-frontend",
            "content": FRONTEND_RESULT,
        }
        first = _ts_run(
            {**request, "runId": f"{thread}-r2", "messages": [*first["messages"], tool_message]}
        )
    elif scenario == "interrupt":
        assert first["outcome"]["type"] == "interrupt"
        interrupt_id = first["outcome"]["interrupts"][0]["id"]
        resume = [{"interruptId": interrupt_id, "status": "resolved", "payload": APPROVAL}]
        first = _ts_run(
            {**request, "runId": f"{thread}-r2", "messages": first["messages"], "resume": resume}
        )
    assert re.search(EXPECTED_TEXT[scenario], _last_text(first["messages"])), first["messages"]


# Random ids: uuids (pydantic-ai), LangChain run ids, LangGraph's 32-hex interrupt ids.
_RANDOM_ID = re.compile(
    r"(lc_run--)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b"
)


def _normalised(frames: list[dict[str, Any]]) -> list[Any]:
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        return names.setdefault(match.group(0), f"<id{len(names)}>")

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if k != "timestamp"}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str):
            return _RANDOM_ID.sub(rename, value)
        return value

    return [walk(frame) for frame in frames]


def _frames(url: str, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    answer = httpx.post(url, json=body, headers={"accept": "text/event-stream"}, timeout=60)
    assert answer.status_code == 200, answer.text
    frames = [
        json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")
    ]
    return answer.headers["content-type"], frames


def _conversation_frames(url: str, scenario: str, thread: str) -> list[Any]:
    body = first_body(scenario, thread)
    content_type, frames = _frames(url, body)
    assert content_type.startswith("text/event-stream")
    turns = [frames]
    if scenario == "interrupt":
        outcome = frames[-1]["outcome"]
        interrupt_id = outcome["interrupts"][0]["id"]
        resume = [{"interruptId": interrupt_id, "status": "resolved", "payload": APPROVAL}]
        turns.append(_frames(url, {**body, "runId": f"{thread}-r2", "resume": resume})[1])
    return _normalised([frame for turn in turns for frame in turn])


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_frames_equal_the_framework_on_the_official_package(
    framework_server: FrameworkServerFactory, framework: str, scenario: str
) -> None:
    ours = _conversation_frames(framework_server(framework), scenario, f"eq-ours-{scenario}")
    official = _conversation_frames(
        framework_server(framework, sdk="official"), scenario, f"eq-official-{scenario}"
    )
    # Thread ids differ on purpose (LangGraph checkpoints per thread): compare without them.
    ours_text = json.dumps(ours).replace("eq-ours-", "eq-")
    official_text = json.dumps(official).replace("eq-official-", "eq-")
    assert json.loads(ours_text) == json.loads(official_text)


@pytest.mark.parametrize("sdk", ["ours", "official"])
def test_the_langgraph_first_chunk_defect_is_reproducible(
    framework_server: FrameworkServerFactory, sdk: str
) -> None:
    """ag-ui-langgraph 0.0.47 drops the argument text of the first tool-call chunk.

    Ask the langgraph app for ``frontend first-chunk-args`` with a frontend tool offered: the
    model streams ``{"value": `` with the call's name and id, then ``"blue"}``; the stream
    carries only the second piece. The defect is the framework's: it shows on both packages.
    """
    body = first_body("frontend_tool", f"defect-{sdk}")
    body["messages"][0]["content"] = "frontend first-chunk-args"
    _, frames = _frames(framework_server("langgraph", sdk=sdk), body)
    arguments = "".join(f["delta"] for f in frames if f["type"] == "TOOL_CALL_ARGS")
    assert arguments == '"blue"}'
    with pytest.raises(json.JSONDecodeError):
        json.loads(arguments)


@pytest.mark.parametrize("framework", [*FRAMEWORKS, "starlette"])
def test_the_typescript_client_reads_the_official_declaration(
    framework_server: FrameworkServerFactory, framework: str
) -> None:
    """A framework on this SDK declares what it declares on the official package (pydantic-ai
    and the plain Starlette app read ``ag_ui.core.PROTOCOL_VERSION``), so ``@ag-ui/client``
    1.0.x reads it without its "the producer speaks protocol ..." warning."""
    answers = {
        sdk: _ts_run({"url": framework_server(framework, sdk=sdk), **first_body("text", sdk)})
        for sdk in ("ours", "official")
    }
    assert answers["ours"]["declared"] == answers["official"]["declared"]
    if framework != "langgraph":  # ag-ui-langgraph declares no version
        assert answers["ours"]["declared"] == PROTOCOL_VERSION == "1.0"
