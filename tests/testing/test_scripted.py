"""``ScriptedAgent``: lists and recordings (timed JSON Lines, JSON Lines, SSE, protobuf), the
three pacings, run selection, the request's ids, and the three ways of serving it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ag_ui.core import TextMessageChunkEvent
from ag_ui.demo import create_demo_app
from ag_ui.encoder import EventEncoder
from ag_ui.proto import encode_frame
from ag_ui.recording import read_recording
from ag_ui.server import create_app
from ag_ui.testing import AgentClient, ScriptedAgent

from .kit_helpers import run, text

pytestmark = pytest.mark.anyio


async def test_a_list_of_events_is_served_with_the_requests_ids() -> None:
    agent = ScriptedAgent(run(*text("m1", "Hel", "lo")))
    result = await AgentClient(agent.app()).run("hi", thread_id="T", run_id="R")
    assert result.ok
    assert result.text == "Hello"
    started = result.events[0]
    assert (started.thread_id, started.run_id) == ("T", "R")  # type: ignore[union-attr]
    assert agent.requests[0].messages[0].content == "hi"


async def test_several_responses_are_served_in_order_then_again() -> None:
    agent = ScriptedAgent(run(*text("a", "one")), run(*text("b", "two")))
    client = AgentClient(create_app(agent))
    answers = [(await client.run("x")).text for _ in range(3)]
    assert answers == ["one", "two", "one"]


async def test_a_recording_replays_in_any_format(tmp_path: Path) -> None:
    async with AgentClient(create_demo_app()) as client:
        original = await client.run("weather in Rome", thread_id="t", run_id="r")
    timed = tmp_path / "run.jsonl"
    timed.write_bytes(original.recording())
    plain = "\n".join(json.dumps(e.model_dump(mode="json", by_alias=True)) for e in original.events)
    sse = b"".join(EventEncoder().encode_sse(e) for e in original.events)
    binary = b"".join(encode_frame(e) for e in original.events)
    expected = [e.model_dump(mode="json", exclude={"timestamp"}) for e in original.events]
    for source in (timed, plain.encode(), sse, binary, read_recording(sse)):
        agent = ScriptedAgent.from_recording(source, pacing="instant")
        replay = await AgentClient(agent.app()).run("weather in Rome", thread_id="t", run_id="r")
        assert replay.ok
        assert replay.text == original.text
        assert [e.model_dump(mode="json", exclude={"timestamp"}) for e in replay.events] == expected


async def test_recorded_pacing_keeps_the_gaps(tmp_path: Path) -> None:
    lines = [
        {"aguiRecording": 1},
        {"at": 0.0, "input": {"threadId": "t", "runId": "r", "messages": []}},
        {"at": 0.05, "event": {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}},
        {"at": 0.25, "event": {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a"}},
        {"at": 0.30, "event": {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}},
    ]
    path = tmp_path / "timed.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    agent = ScriptedAgent.from_recording(path)
    assert agent.pacing == "recorded"
    assert agent.delays(agent.runs[0]) == pytest.approx([0.05, 0.2, 0.05])
    fast = ScriptedAgent.from_recording(path, speed=10)
    assert fast.delays(fast.runs[0]) == pytest.approx([0.005, 0.02, 0.005])
    result = await AgentClient(agent.app()).run("x")
    gaps = [b - a for a, b in zip(result.times, result.times[1:], strict=False)]
    # sleeping never ends early: each gap is at least the recorded one (minus clock jitter)
    assert gaps[0] >= 0.19
    assert result.times[0] >= 0.045


def test_pacing_choices_and_their_errors() -> None:
    events = run(*text("m", "a", "b"))
    assert ScriptedAgent(events).delays(ScriptedAgent(events).runs[0]) == [0.0] * 6
    fixed = ScriptedAgent(events, pacing=0.1)
    assert fixed.delays(fixed.runs[0]) == [0.0, 0.1, 0.1, 0.1, 0.1, 0.1]
    with pytest.raises(ValueError, match="needs arrival times"):
        ScriptedAgent(events, pacing="recorded")
    with pytest.raises(ValueError, match="pacing must be"):
        ScriptedAgent(events, pacing="slow")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="speed must be > 0"):
        ScriptedAgent(events, speed=0)
    with pytest.raises(ValueError, match="at least one response"):
        ScriptedAgent()
    with pytest.raises(ValueError, match="response 0 item 1 is not an AG-UI event"):
        ScriptedAgent([{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}, {"type": "NOPE"}])
    with pytest.raises(TypeError, match="response 0 item 0 is a str"):
        ScriptedAgent(["RUN_STARTED"])  # type: ignore[list-item]


async def test_match_selects_the_run_recorded_for_the_same_message() -> None:
    def recorded(message: str, answer: str) -> list[dict[str, Any]]:
        body = {
            "threadId": "t",
            "runId": "r",
            "messages": [{"id": "u", "role": "user", "content": message}],
        }
        return [
            {"at": 0, "input": body},
            *({"at": 0.0, "event": e} for e in run(*text("m", answer))),
        ]

    data = "\n".join(
        json.dumps(line) for line in recorded("hello", "hi!") + recorded("bye", "ciao")
    )
    agent = ScriptedAgent.from_recording(data.encode(), select="match")
    client = AgentClient(agent.app())
    assert (await client.run("bye")).text == "ciao"
    assert (await client.run("hello")).text == "hi!"
    assert (await client.run("unknown")).text == "hi!"  # falls back to the sequence


async def test_keep_ids_sends_the_script_unchanged() -> None:
    agent = ScriptedAgent(run(thread="script-thread"), keep_ids=True)
    result = await AgentClient(agent.raw_app()).run("x", thread_id="other")
    assert result.events[0].thread_id == "script-thread"  # type: ignore[union-attr]


async def test_the_raw_app_keeps_a_broken_script_broken() -> None:
    broken = [TextMessageChunkEvent(message_id="m", delta="no RUN_STARTED")]
    guarded = await AgentClient(ScriptedAgent(broken).app()).run("x")
    assert guarded.ok  # the toolkit added RUN_STARTED and RUN_FINISHED
    raw = await AgentClient(ScriptedAgent(broken).raw_app()).run("x")
    assert [f.rule for f in raw.verification.findings] == ["R3"]
    assert raw.event_types == ["TEXT_MESSAGE_CHUNK"]


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "protobuf"])
async def test_the_raw_app_speaks_both_transports_and_http(proto: bool) -> None:
    app = ScriptedAgent(run(*text("m", "x"))).raw_app("/chat")
    client = AgentClient(app, path="/chat")
    result = await client.run("x", proto=proto)
    assert result.ok
    assert result.proto is proto
    assert (await client.post(b"{}")).status == 400
    assert (await client.post(b"", method="GET")).status == 405
    assert (await AgentClient(app, path="/elsewhere").post(b"{}")).status == 404


async def test_capabilities_come_from_the_recording_header() -> None:
    header = {"aguiRecording": 1, "capabilities": {"identity": {"name": "recorded"}}}
    events = [{"at": 0.0, "event": e} for e in run()]
    data = "\n".join(json.dumps(line) for line in [header, *events]).encode()
    agent = ScriptedAgent.from_recording(data)
    for app in (agent.app(), agent.raw_app()):
        capabilities = await AgentClient(app).capabilities()
        assert capabilities is not None
        assert capabilities.identity is not None
        assert capabilities.identity.name == "recorded"
