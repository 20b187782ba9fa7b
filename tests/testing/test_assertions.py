"""The assertions fail with messages a person can act on, and pass when they should."""

from __future__ import annotations

from pathlib import Path

import pytest

from ag_ui.core import parse_any_event
from ag_ui.demo import create_demo_app
from ag_ui.testing import (
    AgentClient,
    ScriptedAgent,
    assert_conversation,
    assert_golden,
    assert_legal_stream,
    normalize_events,
)
from ag_ui.testing.faults import Drop

from .kit_helpers import run, text

pytestmark = pytest.mark.anyio


async def test_a_legal_stream_passes() -> None:
    result = await AgentClient(create_demo_app()).run("weather in Paris")
    assert_legal_stream(result)
    assert_legal_stream(result.events)


async def test_an_illegal_stream_names_rule_event_fix_and_neighbours() -> None:
    script = run(*text("m", "a", "b", "c", "d", "e", "f"))
    result = await AgentClient(ScriptedAgent(script).app(), faults=[Drop(event=1)]).run("x")
    with pytest.raises(AssertionError) as failure:
        assert_legal_stream(result)
    message = str(failure.value)
    assert message.splitlines()[:3] == [
        "the AG-UI stream is not legal (1 problem):",
        "[T2] TEXT_MESSAGE_CONTENT without TEXT_MESSAGE_START (ag-ui-validate AGUI101)",
        "  at event 1 TEXT_MESSAGE_CONTENT: Cannot send 'TEXT_MESSAGE_CONTENT' event: No active "
        "text message found with ID 'm'. Start a text message with 'TEXT_MESSAGE_START' first.",
    ]
    assert "  fix: Send TEXT_MESSAGE_START for the messageId before its content" in message
    assert '   ->    1 TEXT_MESSAGE_CONTENT messageId="m" delta="a"' in message
    assert "         0 RUN_STARTED" in message
    assert "... 3 later events" in message


def test_the_end_rule_can_be_relaxed() -> None:
    events = [parse_any_event(e) for e in run()[:1]]
    with pytest.raises(AssertionError, match=r"\[END\] the stream ended inside a run"):
        assert_legal_stream(events)
    assert_legal_stream(events, strict_end=False)


def test_warnings_fail_only_when_asked() -> None:
    from ag_ui.testing import Finding, StreamGrader

    grader = StreamGrader()
    grader.note(
        Finding("wire.unknown-event", "frame 3: unknown event type 'X'", 3, severity="warning")
    )
    for event in run():
        grader.feed(parse_any_event(event))
    verification = grader.finish()
    assert verification.ok
    assert len(verification.warnings) == 1


async def test_conversation_equality_ignores_ids_by_default() -> None:
    result = await AgentClient(create_demo_app()).run("book a table")
    expected = [
        {"role": "user", "content": "book a table"},
        {
            "role": "assistant",
            "content": "I can book that, but I need your confirmation first.",
            "toolCalls": [
                {
                    "id": "my-call",
                    "type": "function",
                    "function": {
                        "name": "confirm_booking",
                        "arguments": '{"request":"book a table"}',
                    },
                }
            ],
        },
    ]
    assert_conversation(result, expected)
    with pytest.raises(AssertionError) as failure:
        assert_conversation(result, [*expected[:1], {"role": "assistant", "content": "Sure!"}])
    message = str(failure.value)
    assert message.startswith(
        "the conversation differs from the expected one: message 1 (assistant): content is "
        '"I can book that, but I need your confirmation first.", expected "Sure!"'
    )
    assert "--- expected" in message
    assert "+++ actual" in message
    renamed = [{**result.wire_messages[0], "id": "other"}, *result.wire_messages[1:]]
    assert_conversation(result, renamed)
    with pytest.raises(AssertionError, match=r'message 0 \(user\): id is "user-'):
        assert_conversation(result, renamed, ids=True)
    assert_conversation(result, result.messages, ids=True)


async def test_golden_streams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = tmp_path / "golden" / "weather.jsonl"
    first = await AgentClient(create_demo_app()).run("weather in Paris")
    with pytest.raises(
        AssertionError, match="does not exist: create it with pytest --agui-update-golden"
    ):
        assert_golden(first, golden)
    assert_golden(first, golden, update=True)
    second = await AgentClient(create_demo_app()).run("weather in Paris")
    assert_golden(second, golden)  # other ids and timestamps, same stream
    lines = golden.read_text().splitlines()
    assert lines[0].startswith('{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"')
    assert "timestamp" not in golden.read_text()
    other = await AgentClient(create_demo_app()).run("weather in Rome")
    with pytest.raises(AssertionError) as failure:
        assert_golden(other, golden)
    assert "differs from golden stream" in str(failure.value)
    assert "+" in str(failure.value)
    monkeypatch.setenv("AGUI_UPDATE_GOLDEN", "1")
    assert_golden(other, golden)
    monkeypatch.delenv("AGUI_UPDATE_GOLDEN")
    assert_golden(other, golden)


def test_normalisation_keeps_references_consistent() -> None:
    events = [
        {"type": "TEXT_MESSAGE_START", "messageId": "abc", "timestamp": 5},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "xyz",
            "toolCallName": "f",
            "parentMessageId": "abc",
        },
        {"type": "TOOL_CALL_RESULT", "messageId": "r9", "toolCallId": "xyz", "content": "ok"},
    ]
    assert normalize_events(parse_any_event(e) for e in events) == [
        {"type": "TEXT_MESSAGE_START", "messageId": "message-1"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "tool-call-1",
            "toolCallName": "f",
            "parentMessageId": "message-1",
        },
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "message-2",
            "toolCallId": "tool-call-1",
            "content": "ok",
        },
    ]
