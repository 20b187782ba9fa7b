"""Sessions: rows, the verifier's findings at their event, state at any event, timing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ag_ui.apply import EventPipeline
from ag_ui.core.decoding import parse_any_event
from ag_ui.inspect import Inspector, InspectorError, Session
from tests.inspect.conftest import broken_run, timed_recording, weather_run, write

RUN_INPUT = {
    "threadId": "t1",
    "runId": "r1",
    "state": {"turns": 0},
    "messages": [{"id": "u1", "role": "user", "content": "weather in Paris?"}],
}


def open_recording(tmp_path: Path, data: bytes) -> tuple[Inspector, Session]:
    inspector = Inspector()
    return inspector, inspector.open(write(tmp_path, "run.jsonl", data))


def test_a_legal_recording_has_rows_state_and_no_findings(tmp_path: Path) -> None:
    _, session = open_recording(tmp_path, timed_recording(weather_run(), run_input=RUN_INPUT))
    rows = session.rows
    assert [row.type for row in rows] == [e["type"] for e in weather_run()]
    assert [row.at for row in rows] == [round(0.1 * (i + 1), 6) for i in range(12)]
    assert [row.category for row in rows[:4]] == ["lifecycle", "state", "tool", "tool"]
    assert session.findings() == []
    assert all(row.verified for row in rows)
    # The state after each event, from the request's state on.
    assert session.state_at(-1) == {"turns": 0}
    assert session.state_at(1) == {"turns": 1}
    assert session.state_at(6) == {"turns": 1, "city": "Paris"}
    detail = session.detail(6)
    assert detail["diff"] == [{"op": "add", "path": "/city", "value": "Paris"}]
    assert detail["gap"] == pytest.approx(0.1)
    assert session.detail(0)["runInput"]["messages"][0]["content"] == "weather in Paris?"
    # The conversation: the user's message from the request, then what the run built.
    messages = session.conversation()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[-1]["content"] == "It is 23C."
    assert messages[1]["toolCalls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }


def test_a_violation_is_an_error_at_the_event_that_caused_it(tmp_path: Path) -> None:
    _, session = open_recording(tmp_path, timed_recording(broken_run()))
    findings = session.findings()
    assert len(findings) == 1
    assert (findings[0].index, findings[0].severity, findings[0].rule) == (2, "error", "T2")
    assert "ghost" in findings[0].message
    rows = session.rows
    assert [row.verified for row in rows] == [True, True, True, False, False]
    # After the violation the reducer still shows the state.
    assert session.state_at(3) == {"step": 2}
    assert session.summary()["errors"] == 1
    assert rows[2].to_json()["f"] == "error"


def test_a_patch_that_does_not_apply_is_a_warning(tmp_path: Path) -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
        {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]
    _, session = open_recording(tmp_path, timed_recording(events))
    [finding] = session.findings()
    assert (finding.index, finding.severity) == (2, "warning")
    assert finding.message.startswith("patch not applied:")
    assert session.state_at(2) == {"a": 1}


def test_a_run_left_open_is_an_error_at_its_last_event(tmp_path: Path) -> None:
    _, session = open_recording(tmp_path, timed_recording(weather_run()[:-1]))
    [finding] = session.findings()
    assert (finding.index, finding.severity) == (10, "error")
    assert finding.message.startswith("at the end of the run:")


def test_timing_first_event_first_text_rates_gaps_and_spans(tmp_path: Path) -> None:
    events = weather_run()
    lines = timed_recording(events, run_input=RUN_INPUT)
    _, session = open_recording(tmp_path, lines)
    timing = session.timing.to_json()
    [run] = timing["runs"]
    assert run["ttfe"] == pytest.approx(0.1)  # the request at 0.0, the first event at 0.1
    assert run["ttft"] == pytest.approx(0.9)  # the first TEXT_MESSAGE_CONTENT is event 8
    assert run["duration"] == pytest.approx(1.2)
    assert run["events"] == 12
    assert run["chars"] == len("It is 23C.")
    assert run["charsPerSec"] == pytest.approx(10 / 0.1)
    assert run["status"] == "success"
    assert [gap["gap"] for gap in timing["gaps"]] == [pytest.approx(0.1)] * 5
    spans = {(s["kind"], s["id"]): s for s in timing["spans"]}
    assert (spans[("tool", "c1")]["i0"], spans[("tool", "c1")]["i1"]) == (2, 5)
    assert spans[("message", "m1")]["start"] == pytest.approx(0.8)
    assert spans[("message", "m1")]["end"] == pytest.approx(1.1)
    assert not spans[("message", "m1")]["open"]
    assert spans[("run", "run 1")]["end"] == pytest.approx(1.2)


def test_playback_position_limits_what_is_shown(tmp_path: Path) -> None:
    inspector, session = open_recording(tmp_path, timed_recording(weather_run()))
    player = inspector.player(session.id)
    assert session.visible == 12
    player.seek(9)
    assert session.visible == 9
    assert session.conversation()["messages"][-1]["content"] == "It is "
    assert session.timing.to_json()["runs"][0]["events"] == 9
    with pytest.raises(ValueError, match="speed must be"):
        player.set_speed(0)
    with pytest.raises(ValueError, match="unknown playback action"):
        player.command("rewind")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"hello\n", "cannot tell the input format"),
        (b'{"type": "RUN_STARTED"}\n', "line 1"),
    ],
)
def test_a_file_that_is_not_a_recording_is_one_clear_error(
    tmp_path: Path, data: bytes, message: str
) -> None:
    with pytest.raises(InspectorError, match=message):
        Inspector().open(write(tmp_path, "bad.jsonl", data))


def test_a_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InspectorError, match=r"cannot read .*missing\.jsonl: No such file"):
        Inspector().open(tmp_path / "missing.jsonl")


def test_the_public_surface_is_pinned() -> None:
    import ag_ui.inspect

    assert ag_ui.inspect.__all__ == [
        "CATEGORIES",
        "EXPORT_FORMATS",
        "Finding",
        "Inspector",
        "InspectorError",
        "Row",
        "Session",
        "TurnOptions",
        "create_inspector_app",
        "export_session",
        "serve",
    ]
    assert ag_ui.inspect.__all__ == sorted(ag_ui.inspect.__all__)
    for name in ag_ui.inspect.__all__:
        assert getattr(ag_ui.inspect, name) is not None


def test_the_conversation_at_any_event_is_rebuilt_from_checkpoints(tmp_path: Path) -> None:
    # 60 runs of 12 events (720 rows, checkpoints every 256): the messages after any count of
    # rows equal those of a pipeline fed exactly those events.
    events = [e for n in range(60) for e in weather_run(run=f"r{n}")]
    for n, event in enumerate(events):
        for key in ("messageId", "toolCallId"):
            if key in event:
                event[key] = f"{event[key]}-{n // 12}"
    _, session = open_recording(tmp_path, timed_recording(events))
    assert session.findings() == []
    for count in (0, 1, 255, 256, 257, 300, 511, 512, 700, 720):
        pipeline = EventPipeline()
        for event in events[:count]:
            pipeline.feed(parse_any_event(event))
        assert session.agent_state(count).messages == pipeline.agent_state.messages, count
        assert session.agent_state(count).state == pipeline.agent_state.state, count


@pytest.mark.anyio
async def test_a_recording_opened_while_running_plays(tmp_path: Path) -> None:
    import anyio

    inspector = Inspector()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(inspector.run)
        await anyio.sleep(0.01)
        path = write(tmp_path, "run.jsonl", timed_recording(weather_run(), gap=0.01))
        session = inspector.open(path, speed=10, play=True)
        assert session.visible == 0  # Play starts over from the first event
        with anyio.fail_after(5):
            await anyio.sleep(0.01)
            while session.status["playback"]["playing"]:
                await anyio.sleep(0.01)
        tasks.cancel_scope.cancel()
    assert session.visible == 12
