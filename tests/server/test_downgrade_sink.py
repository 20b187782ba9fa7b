"""What a client that declares no protocol version (a 0.x client) gets from the server's
downgrading sink: every event the agent sent, less what a subagent produced, the attribution
taken out wherever it sits, and nearly every event passed on as the very same object (no
re-serialization per text delta)."""

from __future__ import annotations

from typing import Any

import pytest

from ag_ui.core import (
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    StateSnapshotEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    UserMessage,
)
from ag_ui.core.events import BaseEvent
from ag_ui.server._downgrade import downgrading_sink

pytestmark = pytest.mark.anyio


async def through_sink(events: list[BaseEvent], protocol_version: Any = None) -> list[BaseEvent]:
    got: list[BaseEvent] = []

    async def sink(batch: list[BaseEvent]) -> None:
        got.extend(batch)

    run_input = RunAgentInput(
        thread_id="t", run_id="r", messages=[], protocol_version=protocol_version
    )
    await downgrading_sink(sink, run_input)(events)
    return got


def wire(event: BaseEvent) -> dict[str, Any]:
    return event.model_dump(by_alias=True, mode="json", exclude_none=True)


async def test_an_unattributed_event_is_passed_on_as_the_same_object() -> None:
    delta = TextMessageContentEvent(message_id="m", delta="hi")
    (sent,) = await through_sink([delta])
    assert sent is delta


async def test_what_a_subagent_produced_is_withheld_and_its_state_kept_unattributed() -> None:
    events: list[BaseEvent] = [
        SubagentStartedEvent(subagent_run_id="s1", name="helper"),
        TextMessageContentEvent(message_id="m", delta="inner", subagent_run_id="s1"),
        StateSnapshotEvent(snapshot={"n": 1}, subagent_run_id="s1"),
        TextMessageContentEvent(message_id="m", delta="outer"),
    ]
    sent = await through_sink(events)
    assert [wire(e) for e in sent] == [
        {"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "outer"},
    ]


async def test_an_attribution_sent_as_an_extra_field_is_taken_out_too() -> None:
    # RUN_ERROR does not declare subagentRunId: it arrives as an extra field.
    error = RunErrorEvent.model_validate({"message": "boom", "subagentRunId": "s1"})
    (sent,) = await through_sink([error])
    assert "subagentRunId" not in wire(sent)
    assert wire(sent)["message"] == "boom"


async def test_attribution_one_level_down_is_taken_out_of_snapshot_messages() -> None:
    snapshot = MessagesSnapshotEvent.model_validate(
        {
            "messages": [
                {"id": "u", "role": "user", "content": "hi"},
                {"id": "a", "role": "assistant", "content": "inner", "subagentRunId": "s1"},
            ]
        }
    )
    (sent,) = await through_sink([snapshot])
    assert isinstance(sent, MessagesSnapshotEvent)
    assert [m.id for m in sent.messages] == ["u"]
    assert isinstance(sent.messages[0], UserMessage)


async def test_a_client_of_1_0_gets_everything_untouched() -> None:
    inner = TextMessageContentEvent(message_id="m", delta="inner", subagent_run_id="s1")
    assert await through_sink([inner], protocol_version="1.0") == [inner]


async def test_the_pending_tool_call_ids_of_1_0_are_left_out() -> None:
    # Clients before 1.0 validate the outcome strictly (CopilotKit 1.74 on @ag-ui/client
    # 0.0.59 fails the run on the unknown key) and find the pending calls in the stream.
    finished = RunFinishedEvent.model_validate(
        {
            "threadId": "t",
            "runId": "r",
            "outcome": {"type": "success", "pendingToolCallIds": ["call-1"]},
        }
    )
    (sent,) = await through_sink([finished])
    assert wire(sent) == {
        "type": "RUN_FINISHED",
        "threadId": "t",
        "runId": "r",
        "outcome": {"type": "success"},
    }
    assert await through_sink([finished], protocol_version="1.0") == [finished]
