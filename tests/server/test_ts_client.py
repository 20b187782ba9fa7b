"""The real TypeScript client (``@ag-ui/client@1.0.0`` ``HttpAgent``, via Node) against the demo
agent on a real uvicorn: every scenario resolves with zero verification errors and zero client
warnings, and leaves the expected messages and state."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from ag_ui.core import CustomEvent, TextMessageContentEvent
from ag_ui.demo import create_demo_app, demo_agent, lookup_weather
from ag_ui.server import AgentEndpoint, RunContext, create_app
from tests.support.servers import serve

INTEROP = Path(__file__).resolve().parent.parent / "interop"
SAFE = "The agent failed while handling this run; see the server log for details."


@pytest.fixture(params=["sse", "protobuf"])
def proto(request: pytest.FixtureRequest) -> bool:
    """Each scenario runs twice: SSE (the stock HttpAgent) and protobuf (Accept overridden)."""
    return bool(request.param == "protobuf")


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with serve(create_demo_app()) as url:
        yield url + "/agent"


def run_ts_client(*, url: str, turns: list[dict[str, Any]], proto: bool) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the TypeScript peer tests")
    spec = json.dumps({"url": url, "threadId": "thread-1", "turns": turns, "proto": proto})
    done = subprocess.run(
        [node, str(INTEROP / "server_scenarios.mjs"), spec],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=INTEROP,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["warnings"] == []
    expected_type = "application/vnd.ag-ui.event+proto" if proto else "text/event-stream"
    assert result["contentTypes"] == [expected_type] * len(turns)
    for run in result["runs"]:
        assert run["failed"] is None  # the client's verifier and pipeline accepted the stream
    return result


def assistant(message_id: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"id": message_id, "role": "assistant", "content": content, **extra}


def user(number: int, content: str) -> dict[str, Any]:
    return {"id": f"user-{number}", "role": "user", "content": content}


def test_greeting(demo_url: str, proto: bool) -> None:
    result = run_ts_client(proto=proto, url=demo_url, turns=[{"say": "hi", "runId": "r1"}])
    assert result["messages"] == [
        user(1, "hi"),
        assistant(
            "msg-r1-1",
            "Hello from the AG-UI demo agent! You said: \"hi\". Try 'weather in Paris', "
            "'book a table for two', 'where am I?' or 'research protocols'.",
        ),
    ]
    assert result["state"] == {"turns": 1}
    assert result["runs"][0]["events"][0] == {
        "type": "RUN_STARTED",
        "threadId": "thread-1",
        "runId": "r1",
        "protocolVersion": "1.0",
    }


def test_weather_backend_tool_reasoning_activity_and_state(demo_url: str, proto: bool) -> None:
    result = run_ts_client(
        proto=proto, url=demo_url, turns=[{"say": "What's the weather in Oslo?", "runId": "r1"}]
    )
    report = lookup_weather("Oslo")
    assert result["messages"] == [
        user(1, "What's the weather in Oslo?"),
        {
            "id": "reasoning-r1-2",
            "role": "reasoning",
            "content": "The user wants the weather in Oslo. I'll call get_weather.",
        },
        {
            "id": "activity-r1-3",
            "role": "activity",
            "activityType": "progress",
            "content": {"title": "Looking up the weather in Oslo", "percent": 100, "done": True},
        },
        {
            "id": "call-r1-4",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "call-r1-4",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {
            "id": "result-r1-5",
            "role": "tool",
            "toolCallId": "call-r1-4",
            "content": json.dumps(report, separators=(",", ":")),
        },
        assistant(
            "msg-r1-6", f"It is {report['temperature_c']}°C and {report['conditions']} in Oslo."
        ),
    ]
    assert result["state"] == {"turns": 1, "weather": {"Oslo": report}, "last_city": "Oslo"}
    types = [event["type"] for event in result["runs"][0]["events"]]
    assert types.count("TOOL_CALL_ARGS") == 2  # streamed arguments
    assert types.count("ACTIVITY_DELTA") == 2
    assert types.count("STATE_DELTA") == 2


@pytest.mark.parametrize(
    ("answer", "result_content", "reply", "status"),
    [
        ("approve", '{"approved":true}', "Done: your booking is confirmed.", "confirmed"),
        ("decline", '{"approved":false}', "OK, I did not book it.", "declined"),
        ("cancel", '{"cancelled":true}', "OK, I did not book it.", "declined"),
    ],
)
def test_frontend_tool_interrupt_then_resume(
    demo_url: str, proto: bool, answer: str, result_content: str, reply: str, status: str
) -> None:
    result = run_ts_client(
        proto=proto,
        url=demo_url,
        turns=[{"say": "book a table for two", "runId": "r1"}, {"resume": answer, "runId": "r2"}],
    )
    first, second = result["runs"]
    assert first["outcome"] == {
        "type": "interrupt",
        "interrupts": [
            {
                "id": "confirm-call-r1-2",
                "reason": "tool_call",
                "message": "Confirm the booking: book a table for two",
                "toolCallId": "call-r1-2",
                "responseSchema": {
                    "type": "object",
                    "properties": {"approved": {"type": "boolean"}},
                    "required": ["approved"],
                },
            }
        ],
    }
    assert second["outcome"] is None
    assert second["pendingInterrupts"] == []
    assert result["messages"] == [
        user(1, "book a table for two"),
        assistant(
            "msg-r1-1",
            "I can book that, but I need your confirmation first.",
            toolCalls=[
                {
                    "id": "call-r1-2",
                    "type": "function",
                    "function": {
                        "name": "confirm_booking",
                        "arguments": '{"request":"book a table for two"}',
                    },
                }
            ],
        ),
        {"id": "result-r2-1", "role": "tool", "toolCallId": "call-r1-2", "content": result_content},
        assistant("msg-r2-2", reply),
    ]
    assert result["state"] == {"turns": 2, "booking": {"status": status}}


def test_subagent(demo_url: str, proto: bool) -> None:
    result = run_ts_client(
        proto=proto, url=demo_url, turns=[{"say": "research protocols", "runId": "r1"}]
    )
    assert result["messages"] == [
        user(1, "research protocols"),
        {
            "id": "reasoning-r1-3",
            "role": "reasoning",
            "content": "Collecting what I know about protocols.",
            "subagentRunId": "subagent-r1-1",
        },
        assistant(
            "msg-r1-4",
            "protocols is worth a closer look; here are three notes.",
            subagentRunId="subagent-r1-1",
        ),
        assistant("msg-r1-5", "My researcher looked into protocols."),
    ]
    events = result["runs"][0]["events"]
    assert {"type": "SUBAGENT_FINISHED", "subagentRunId": "subagent-r1-1"}.items() <= next(
        e for e in events if e["type"] == "SUBAGENT_FINISHED"
    ).items()


def test_conversation_keeps_state_across_runs(demo_url: str, proto: bool) -> None:
    result = run_ts_client(
        proto=proto,
        url=demo_url,
        turns=[{"say": "hello", "runId": "r1"}, {"say": "weather in Rome", "runId": "r2"}],
    )
    assert result["state"] == {
        "turns": 2,
        "weather": {"Rome": lookup_weather("Rome")},
        "last_city": "Rome",
    }
    second_types = [event["type"] for event in result["runs"][1]["events"]]
    assert "STATE_SNAPSHOT" not in second_types  # the client sent its state: deltas only


def test_agent_failure_reaches_the_client_as_a_safe_run_error(demo_url: str, proto: bool) -> None:
    result = run_ts_client(
        proto=proto, url=demo_url, turns=[{"say": "crash please", "runId": "r1"}]
    )
    events = result["runs"][0]["events"]
    assert events[-1] == {"type": "RUN_ERROR", "message": SAFE, "code": "agent_error"}
    assert "crashed on purpose" not in json.dumps(result)


async def _broken(run_input: Any, ctx: RunContext) -> Any:
    yield CustomEvent(name="before", value=1)
    # Content for a message that was never started: verify rule T2 (PROTOCOL.md §5.3).
    yield TextMessageContentEvent(message_id="ghost", delta="boo")
    yield CustomEvent(name="after", value=2)


def test_sequence_breaking_agent_reaches_the_client_as_run_error(proto: bool) -> None:
    with serve(create_app(_broken)) as url:
        result = run_ts_client(
            proto=proto, url=url + "/agent", turns=[{"say": "go", "runId": "r1"}]
        )
    events = result["runs"][0]["events"]
    assert [event["type"] for event in events] == ["RUN_STARTED", "CUSTOM", "RUN_ERROR"]
    assert events[-1]["code"] == "protocol_violation"
    assert "T2" in events[-1]["message"]


def test_fetch_follows_the_redirect_of_a_fastapi_mount(proto: bool) -> None:
    """``app.mount("/agent", endpoint)``: ``POST /agent`` is redirected (307) to ``/agent/``,
    which ``fetch`` follows with the method and body, as this SDK's client does."""
    app = FastAPI()
    app.mount("/agent", AgentEndpoint(demo_agent))
    with serve(app) as url:
        result = run_ts_client(
            proto=proto, url=url + "/agent", turns=[{"say": "hi", "runId": "r1"}]
        )
    assert result["messages"][1]["content"].startswith("Hello from the AG-UI demo agent!")
