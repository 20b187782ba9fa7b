"""``HttpAgent(debug=...)``: DEBUG records on ``ag_ui.client.events`` / ``.lifecycle``, off by
default, covering the points the TypeScript client's debug logger covers (the stage sequences
are compared with @ag-ui/client 1.0.0 through ``tests/interop/ts_debug_log.mjs``)."""

from __future__ import annotations

import json
import logging
import re
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from ag_ui.client import AgentStateMutation, DebugConfig, HttpAgent
from ag_ui.client._debug import resolve_debug
from ag_ui.core import RunAgentInput
from ag_ui.core.decoding import AnyEvent, parse_event
from ag_ui.core.errors import HTTPStatusError
from ag_ui.encoder import AGUI_MEDIA_TYPE, EventEncoder
from tests.client.client_helpers import asgi_agent, run_frames, static_app

pytestmark = pytest.mark.anyio

INTEROP = Path(__file__).resolve().parents[1] / "interop"
TEXT = [
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
]
STREAM = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hi"},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": " there"},
    {
        "type": "TOOL_CALL_CHUNK",
        "toolCallId": "c1",
        "toolCallName": "search",
        "parentMessageId": "m2",
        "delta": "{}",
    },
    {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


class ReplayAgent(HttpAgent):
    """Events from a list instead of HTTP, like the node script's agent."""

    def __init__(self, events: list[dict[str, Any]], **options: Any) -> None:
        super().__init__("http://127.0.0.1:9/agent", thread_id="t", **options)
        self.events = events

    async def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]:  # type: ignore[override]
        for event in self.events:
            yield parse_event(event)


def lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, str]]:
    """(logger, stage, rest of the message) for every debug record of the client."""
    found = []
    for record in caplog.records:
        if record.name.startswith("ag_ui.client.") and record.levelno == logging.DEBUG:
            match = re.match(r"\[([A-Z]+)\] (.*)$", record.getMessage(), re.DOTALL)
            assert match, record.getMessage()
            assert record.ag_ui_stage == match.group(1)  # type: ignore[attr-defined]
            found.append((record.name, match.group(1), match.group(2)))
    return found


@pytest.fixture
def debug_caplog(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="ag_ui.client")
    return caplog


async def test_nothing_is_logged_by_default(debug_caplog: pytest.LogCaptureFixture) -> None:
    agent = asgi_agent(static_app(run_frames(*TEXT)))
    await agent.run_agent()
    assert lines(debug_caplog) == []
    assert agent.debug == DebugConfig(events=False, lifecycle=False, verbose=False)


async def test_debug_true_logs_lifecycle_and_every_stage_verbosely(
    debug_caplog: pytest.LogCaptureFixture,
) -> None:
    agent = asgi_agent(static_app(run_frames(*TEXT)), debug=True, agent_id="agent-1")
    await agent.run_agent(run_id="r1")
    found = lines(debug_caplog)
    lifecycle = [(stage, rest.split(" {")[0]) for name, stage, rest in found if "lifecycle" in name]
    assert lifecycle == [
        ("LIFECYCLE", "Run started:"),
        ("HTTP", "Stream format detected:"),
        ("LIFECYCLE", "Run finished:"),
    ]
    started = json.loads(found[0][2].removeprefix("Run started: "))
    assert started == {"agentId": "agent-1", "threadId": agent.thread_id, "runId": "r1"}
    assert '"parser": "sse"' in found[1][2]
    events = [(stage, rest) for name, stage, rest in found if name == "ag_ui.client.events"]
    # Each event: received, verified, applied, in that order (no chunks here).
    assert [stage for stage, _ in events] == ["SSE", "VERIFY", "APPLY"] * 5
    content = [rest for stage, rest in events if '"TEXT_MESSAGE_CONTENT"' in rest]
    # Verbose: the event's full wire JSON.
    assert content[0] == (
        'Event received: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}'
    )
    assert content[2].startswith("Event applied: {")
    assert content[2].endswith('{"subscribers": 0}')


async def test_summaries_without_verbose(debug_caplog: pytest.LogCaptureFixture) -> None:
    agent = asgi_agent(static_app(run_frames(*TEXT)), debug={"lifecycle": False})
    await agent.run_agent()
    found = lines(debug_caplog)
    assert {name for name, _, _ in found} == {"ag_ui.client.events"}
    assert (
        "ag_ui.client.events",
        "VERIFY",
        'Event: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1"}',
    ) in found
    assert all("Hello" not in rest for _, _, rest in found)


async def test_lifecycle_only(debug_caplog: pytest.LogCaptureFixture) -> None:
    agent = asgi_agent(static_app(run_frames(*TEXT)), debug=DebugConfig(events=False))
    await agent.run_agent()
    assert {name for name, _, _ in lines(debug_caplog)} == {"ag_ui.client.lifecycle"}


async def test_a_failed_run_logs_errored_then_finished(
    debug_caplog: pytest.LogCaptureFixture,
) -> None:
    agent = asgi_agent(static_app(b"nope", status=500, media_type="text/plain"), debug=True)
    with pytest.raises(HTTPStatusError):
        await agent.run_agent()
    labels = [rest.split(":")[0] for _, stage, rest in lines(debug_caplog)]
    assert labels == ["Run started", "Run errored", "Run finished"]
    assert "500" in lines(debug_caplog)[1][2]


async def test_a_stopped_event_is_logged_as_dropped(debug_caplog: pytest.LogCaptureFixture) -> None:
    agent = asgi_agent(static_app(run_frames(*TEXT)), debug=DebugConfig(lifecycle=False))
    agent.subscribe(
        on_text_message_content_event=lambda p: AgentStateMutation(stop_propagation=True)
    )
    await agent.run_agent()
    dropped = [
        rest for _, stage, rest in lines(debug_caplog) if stage == "APPLY" and "dropped" in rest
    ]
    assert len(dropped) == 1
    assert '"TEXT_MESSAGE_CONTENT"' in dropped[0]
    assert "stop_propagation by subscriber" in dropped[0]


async def test_protobuf_events_are_logged_as_proto(debug_caplog: pytest.LogCaptureFixture) -> None:
    encoder = EventEncoder(accept=AGUI_MEDIA_TYPE)
    body = b"".join(
        encoder.encode_binary(parse_event(e))
        for e in [
            {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
            *TEXT,
            {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
        ]
    )
    agent = asgi_agent(static_app(body, media_type=AGUI_MEDIA_TYPE), proto=True, debug=True)
    await agent.run_agent()
    found = lines(debug_caplog)
    assert [stage for _, stage, rest in found if "received" in rest] == ["PROTO"] * 5
    assert any('"parser": "protobuf"' in rest for _, stage, rest in found if stage == "HTTP")


async def test_the_option_can_be_changed_later(debug_caplog: pytest.LogCaptureFixture) -> None:
    agent = asgi_agent(static_app(run_frames(*TEXT)))
    agent.debug = True
    await agent.run_agent()
    assert lines(debug_caplog)
    assert agent.clone().debug == agent.debug


def test_option_forms() -> None:
    assert resolve_debug(True) == DebugConfig(verbose=True)
    assert resolve_debug(False) == resolve_debug(None) == DebugConfig(False, False, False)
    assert resolve_debug({"verbose": True}) == DebugConfig(
        events=True, lifecycle=True, verbose=True
    )
    assert not resolve_debug({"events": False, "lifecycle": False}).enabled
    with pytest.raises(TypeError, match="lifecycles"):
        resolve_debug({"lifecycles": True})
    with pytest.raises(TypeError):
        resolve_debug("yes")  # type: ignore[arg-type]


def _typescript_lines(events: list[dict[str, Any]], debug: Any) -> list[dict[str, Any]]:
    completed = subprocess.run(
        ["node", str(INTEROP / "ts_debug_log.mjs")],
        input=json.dumps({"events": events, "debug": debug}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=INTEROP,
    )
    result: list[dict[str, Any]] = json.loads(completed.stdout)
    return result


def _by_stage(entries: list[tuple[str, str, str | None]]) -> dict[str, list[tuple[str, Any]]]:
    stages: dict[str, list[tuple[str, Any]]] = {}
    for stage, label, kind in entries:
        stages.setdefault(stage, []).append((label, kind))
    return stages


@pytest.mark.parametrize("debug", [True, {"verbose": False}, {"events": False}])
async def test_same_points_logged_as_the_typescript_client(
    debug_caplog: pytest.LogCaptureFixture, debug: Any
) -> None:
    expected = _typescript_lines(STREAM, debug)
    await ReplayAgent(STREAM, debug=debug).run_agent(run_id="r")
    ours = []
    for record in debug_caplog.records:
        if not record.name.startswith("ag_ui.client."):
            continue
        stage = record.ag_ui_stage  # type: ignore[attr-defined]
        label = record.getMessage().removeprefix(f"[{stage}] ").partition(" {")[0]
        data = record.ag_ui_data  # type: ignore[attr-defined]
        kind = None if stage == "LIFECYCLE" else data.type.value
        ours.append((stage, label, kind))
    theirs = [(line["stage"], line["label"], line["type"]) for line in expected]
    # Within each stage the lines are the same, in the same order (TypeScript applies events
    # asynchronously, so only the interleaving across stages differs).
    assert _by_stage(ours) == _by_stage(theirs)
    assert len(ours) == len(theirs) > 0
