"""One test per reducer row of PROTOCOL.md §6.4, asserting the whole message list and state."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from ag_ui.apply import AgentState, ReducerWarning, RunSummary, apply_event
from ag_ui.core import parse_event
from ag_ui.core.errors import ChunkExpansionError, PatchError


def run(events: list[dict[str, Any]], start: AgentState | None = None) -> AgentState:
    state = start if start is not None else AgentState()
    for event in events:
        state = apply_event(state, parse_event(event))
    return state


def ev(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def test_text_message_start_creates_or_reuses() -> None:
    start = AgentState(
        messages=[{"id": "m1", "role": "assistant", "toolCalls": []}],
        state={"keep": True},
    )
    result = run(
        [
            ev("TEXT_MESSAGE_START", messageId="m1", role="user", metadata={"a": 1}),
            ev("TEXT_MESSAGE_START", messageId="m2", name="bob", subagentRunId="s1"),
            ev("TEXT_MESSAGE_START", messageId="m3", role="system"),
        ],
        start,
    )
    assert result.messages == (
        {"id": "m1", "role": "assistant", "toolCalls": [], "metadata": {"a": 1}},
        {"id": "m2", "role": "assistant", "content": "", "name": "bob", "subagentRunId": "s1"},
        {"id": "m3", "role": "system", "content": ""},
    )
    assert result.state == {"keep": True}


def test_text_message_start_on_an_activity_is_dropped_with_a_warning() -> None:
    start = AgentState(
        messages=[{"id": "a", "role": "activity", "activityType": "t", "content": {}}]
    )
    with pytest.warns(ReducerWarning):
        result = run([ev("TEXT_MESSAGE_START", messageId="a")], start)
    assert result is start


def test_text_message_content_appends_and_merges_metadata() -> None:
    result = run(
        [
            ev("TEXT_MESSAGE_START", messageId="m1", metadata={"a": 1, "b": [1]}),
            ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="Hel"),
            ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="lo", metadata={"b": [2]}),
        ]
    )
    assert result.messages == (
        {"id": "m1", "role": "assistant", "content": "Hello", "metadata": {"a": 1, "b": [2]}},
    )
    assert result.state is None


def test_text_message_content_for_a_missing_message_is_skipped() -> None:
    start = AgentState()
    with pytest.warns(ReducerWarning):
        result = run([ev("TEXT_MESSAGE_CONTENT", messageId="nope", delta="x")], start)
    assert result is start


def test_text_message_end_merges_metadata_only() -> None:
    result = run(
        [
            ev("TEXT_MESSAGE_START", messageId="m1"),
            ev("TEXT_MESSAGE_END", messageId="m1", metadata={"usage": 5}),
        ]
    )
    assert result.messages == (
        {"id": "m1", "role": "assistant", "content": "", "metadata": {"usage": 5}},
    )


def test_tool_call_start_places_the_call() -> None:
    start = AgentState(
        messages=[
            {"id": "a1", "role": "assistant", "content": "x"},
            {"id": "u1", "role": "user", "content": "q"},
        ]
    )
    with pytest.warns(ReducerWarning, match="not assistant"):
        result = run(
            [
                ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f", parentMessageId="a1"),
                ev("TOOL_CALL_START", toolCallId="c2", toolCallName="g", parentMessageId="u1"),
                ev(
                    "TOOL_CALL_START",
                    toolCallId="c3",
                    toolCallName="h",
                    parentMessageId="new",
                    subagentRunId="s1",
                ),
                ev("TOOL_CALL_START", toolCallId="c4", toolCallName="i", metadata={"m": 1}),
            ],
            start,
        )

    def call(call_id: str, name: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
            **extra,
        }

    assert result.messages == (
        {"id": "a1", "role": "assistant", "content": "x", "toolCalls": [call("c1", "f")]},
        {"id": "u1", "role": "user", "content": "q"},
        {"id": "c2", "role": "assistant", "toolCalls": [call("c2", "g")]},
        {"id": "new", "role": "assistant", "toolCalls": [call("c3", "h")], "subagentRunId": "s1"},
        {"id": "c4", "role": "assistant", "toolCalls": [call("c4", "i", metadata={"m": 1})]},
    )
    assert result.run.tool_call_ids == ("c1", "c2", "c3", "c4")


def test_tool_call_start_is_idempotent_and_renames() -> None:
    with pytest.warns(ReducerWarning):
        result = run(
            [
                ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f"),
                ev("TOOL_CALL_START", toolCallId="c1", toolCallName="g", metadata={"x": 1}),
            ]
        )
    assert result.messages == (
        {
            "id": "c1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "g", "arguments": ""},
                    "metadata": {"x": 1},
                }
            ],
        },
    )


def test_tool_call_args_and_end_build_the_arguments() -> None:
    result = run(
        [
            ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f"),
            ev("TOOL_CALL_ARGS", toolCallId="c1", delta='{"a":'),
            ev("TOOL_CALL_ARGS", toolCallId="c1", delta="1}", metadata={"p": 1}),
            ev("TOOL_CALL_END", toolCallId="c1", metadata={"q": 2}),
        ]
    )
    assert result.messages == (
        {
            "id": "c1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"a":1}'},
                    "metadata": {"p": 1, "q": 2},
                }
            ],
        },
    )


def test_tool_call_result_goes_after_its_assistant_message() -> None:
    result = run(
        [
            ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f", parentMessageId="a1"),
            ev("TOOL_CALL_START", toolCallId="c2", toolCallName="g", parentMessageId="a1"),
            ev("TEXT_MESSAGE_START", messageId="m2"),
            ev("TOOL_CALL_RESULT", messageId="t1", toolCallId="c1", content="one"),
            ev(
                "TOOL_CALL_RESULT",
                messageId="t2",
                toolCallId="c2",
                subagentRunId="s1",
                content=[{"type": "text", "text": "two"}],
                metadata={"k": 1},
            ),
            ev("TOOL_CALL_RESULT", messageId="t3", toolCallId="zz", content="orphan"),
        ]
    )
    calls = result.messages[0]["toolCalls"]
    assert result.messages == (
        {"id": "a1", "role": "assistant", "toolCalls": calls},
        {"id": "t1", "toolCallId": "c1", "role": "tool", "content": "one"},
        {
            "id": "t2",
            "toolCallId": "c2",
            "role": "tool",
            "subagentRunId": "s1",
            "content": [{"type": "text", "text": "two"}],
            "metadata": {"k": 1},
        },
        {"id": "m2", "role": "assistant", "content": ""},
        {"id": "t3", "toolCallId": "zz", "role": "tool", "content": "orphan"},
    )
    assert result.run.answered_tool_call_ids == frozenset({"c1", "c2", "zz"})
    assert result.message_position("m2") == 3


def test_state_snapshot_replaces_the_state() -> None:
    result = run([ev("STATE_SNAPSHOT", snapshot={"a": 1}), ev("STATE_SNAPSHOT", snapshot=[1])])
    assert (result.messages, result.state) == ((), [1])


def test_state_delta_patches_without_touching_the_old_state() -> None:
    before = AgentState(state={"a": {"b": [1, 2]}, "z": {"deep": True}})
    frozen = copy.deepcopy(before.state)
    after = run([ev("STATE_DELTA", delta=[{"op": "add", "path": "/a/b/-", "value": 3}])], before)
    assert after.state == {"a": {"b": [1, 2, 3]}, "z": {"deep": True}}
    assert before.state == frozen
    assert after.state["z"] is before.state["z"]  # untouched subtrees are shared


def test_state_delta_failure_keeps_the_state_and_reports() -> None:
    before = AgentState(state={"a": 1})
    event = parse_event(
        ev(
            "STATE_DELTA",
            delta=[
                {"op": "add", "path": "/b", "value": 2},
                {"op": "test", "path": "/a", "value": 2},
            ],
        )
    )
    with pytest.raises(PatchError) as caught:
        apply_event(before, event)
    error = caught.value
    assert (error.operation_index, error.path, error.event, error.agent_state) == (
        1,
        "/a",
        event,
        before,
    )
    assert before.state == {"a": 1}


def test_messages_snapshot_merges_by_id_and_keeps_client_only_messages() -> None:
    start = AgentState(
        messages=[
            {"id": "a1", "role": "activity", "activityType": "plan", "content": {}},
            {"id": "r1", "role": "reasoning", "content": "hm"},
            {"id": "m1", "role": "assistant", "content": "old"},
            {"id": "m2", "role": "assistant", "content": "dropped"},
        ],
        state={"s": 1},
    )
    result = run(
        [
            ev(
                "MESSAGES_SNAPSHOT",
                messages=[
                    {"id": "u0", "role": "user", "content": "first"},
                    {"id": "m1", "role": "assistant", "content": "new", "subagentRunId": "s1"},
                ],
            )
        ],
        start,
    )
    assert result.messages == (
        {"id": "a1", "role": "activity", "activityType": "plan", "content": {}},
        {"id": "r1", "role": "reasoning", "content": "hm"},
        {"id": "m1", "role": "assistant", "content": "new", "subagentRunId": "s1"},
        {"id": "u0", "role": "user", "content": "first"},
    )
    assert result.state == {"s": 1}


def test_messages_snapshot_activity_authority() -> None:
    start = AgentState(
        messages=[
            {"id": "a1", "role": "activity", "activityType": "plan", "content": {}},
            {"id": "a2", "role": "activity", "activityType": "search", "content": {}},
        ]
    )
    owned = ev(
        "MESSAGES_SNAPSHOT",
        messages=[],
        metadata={"@ag-ui/client": {"authoritativeActivityTypes": ["plan"]}},
    )
    assert run([owned], start).messages == (start.messages[1],)
    owns_all = ev(
        "MESSAGES_SNAPSHOT",
        messages=[],
        metadata={"@ag-ui/client": {"authoritativeActivityTypes": None}},
    )
    assert run([owns_all], start).messages == ()
    invalid = ev("MESSAGES_SNAPSHOT", messages=[], metadata={"@ag-ui/client": "bad"})
    assert run([invalid], start).messages == start.messages


def test_activity_snapshot_rows() -> None:
    result = run(
        [
            ev(
                "ACTIVITY_SNAPSHOT",
                messageId="a1",
                activityType="plan",
                content={"x": 1},
                subagentRunId="s1",
                metadata={"m": 1},
            ),
            ev(
                "ACTIVITY_SNAPSHOT",
                messageId="a1",
                activityType="other",
                content={"x": 2},
                replace=False,
                metadata={"n": 2},
            ),
            ev("ACTIVITY_SNAPSHOT", messageId="a2", activityType="p", content={}),
            ev(
                "ACTIVITY_SNAPSHOT",
                messageId="a2",
                activityType="q",
                content={"y": 1},
                subagentRunId="s2",
            ),
            ev("ACTIVITY_SNAPSHOT", messageId="a2", activityType="r", content={"z": 1}),
        ],
        AgentState(messages=[{"id": "t", "role": "user", "content": "x"}]),
    )
    assert result.messages == (
        {"id": "t", "role": "user", "content": "x"},
        {
            "id": "a1",
            "role": "activity",
            "activityType": "plan",
            "content": {"x": 1},
            "subagentRunId": "s1",
            "metadata": {"m": 1, "n": 2},
        },
        {"id": "a2", "role": "activity", "activityType": "r", "content": {"z": 1}},
    )


def test_activity_snapshot_over_a_non_activity_message() -> None:
    start = AgentState(messages=[{"id": "m", "role": "user", "content": "x"}])
    keep = run(
        [ev("ACTIVITY_SNAPSHOT", messageId="m", activityType="p", content={}, replace=False)], start
    )
    assert keep is start
    over = run([ev("ACTIVITY_SNAPSHOT", messageId="m", activityType="p", content={"a": 1})], start)
    assert over.messages == (
        {"id": "m", "role": "activity", "activityType": "p", "content": {"a": 1}},
    )


def test_activity_delta_patches_content_and_keeps_metadata_on_failure() -> None:
    start = run(
        [ev("ACTIVITY_SNAPSHOT", messageId="a1", activityType="plan", content={"steps": [1]})]
    )
    patched = run(
        [
            ev(
                "ACTIVITY_DELTA",
                messageId="a1",
                activityType="plan2",
                patch=[{"op": "add", "path": "/steps/-", "value": 2}],
            )
        ],
        start,
    )
    assert patched.messages == (
        {"id": "a1", "role": "activity", "activityType": "plan2", "content": {"steps": [1, 2]}},
    )
    bad = parse_event(
        ev(
            "ACTIVITY_DELTA",
            messageId="a1",
            activityType="x",
            metadata={"m": 1},
            patch=[{"op": "remove", "path": "/nope"}],
        )
    )
    with pytest.raises(PatchError) as caught:
        apply_event(patched, bad)
    assert caught.value.agent_state.messages == (
        {
            "id": "a1",
            "role": "activity",
            "activityType": "plan2",
            "content": {"steps": [1, 2]},
            "metadata": {"m": 1},
        },
    )
    unknown = run([ev("ACTIVITY_DELTA", messageId="zz", activityType="p", patch=[])], patched)
    assert unknown is patched


@pytest.mark.parametrize(
    "event",
    [
        ev("RAW", event={"x": 1}),
        ev("CUSTOM", name="c", value=1),
        ev("RUN_ERROR", message="boom"),
        ev("STEP_STARTED", stepName="s"),
        ev("STEP_FINISHED", stepName="s"),
        ev("REASONING_START", messageId="r"),
        ev("REASONING_END", messageId="r"),
        ev("SUBAGENT_STARTED", subagentRunId="s", name="n"),
        ev("SUBAGENT_FINISHED", subagentRunId="s"),
        ev("SUBAGENT_ERROR", subagentRunId="s", message="m"),
    ],
    ids=lambda e: e["type"],
)
def test_notification_events_change_nothing(event: dict[str, Any]) -> None:
    start = AgentState(messages=[{"id": "u", "role": "user", "content": "x"}], state={"a": 1})
    assert apply_event(start, parse_event(event)) is start


def test_run_started_resets_the_tally_and_appends_new_input_messages() -> None:
    start = run([ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f")])
    result = run(
        [
            ev(
                "RUN_STARTED",
                threadId="t",
                runId="r",
                input={
                    "threadId": "t",
                    "runId": "r",
                    "messages": [
                        {"id": "c1", "role": "assistant", "content": "ignored: id exists"},
                        {"id": "u1", "role": "user", "content": "hi"},
                        {"id": "u1", "role": "user", "content": "dup"},
                    ],
                },
            ),
        ],
        start,
    )
    assert result.messages == (*start.messages, {"id": "u1", "role": "user", "content": "hi"})
    assert result.run == RunSummary()


def test_run_finished_records_outcome_and_pending_calls() -> None:
    started = run(
        [
            ev("RUN_STARTED", threadId="t", runId="r"),
            ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f"),
            ev("TOOL_CALL_START", toolCallId="c2", toolCallName="f"),
            ev("TOOL_CALL_RESULT", messageId="t1", toolCallId="c1", content="ok"),
        ]
    )
    done = run([ev("RUN_FINISHED", threadId="t", runId="r", result={"a": 1})], started)
    assert (done.run.outcome, done.run.result, done.run.pending_tool_call_ids) == (
        "success",
        {"a": 1},
        ("c2",),
    )
    named = run(
        [
            ev(
                "RUN_FINISHED",
                threadId="t",
                runId="r",
                outcome={"type": "success", "pendingToolCallIds": ["x"]},
            )
        ],
        started,
    )
    assert named.run.pending_tool_call_ids == ("x",)
    interrupted = run(
        [
            ev(
                "RUN_FINISHED",
                threadId="t",
                runId="r",
                outcome={"type": "interrupt", "interrupts": [{"id": "i1", "reason": "ask"}]},
            )
        ],
        started,
    )
    assert (interrupted.run.outcome, interrupted.pending_interrupts) == (
        "interrupt",
        ({"id": "i1", "reason": "ask"},),
    )
    cancelled = run(
        [ev("RUN_FINISHED", threadId="t", runId="r", outcome={"type": "cancelled"})], interrupted
    )
    assert (cancelled.run.outcome, cancelled.pending_interrupts) == ("cancelled", ())
    assert cancelled.messages == started.messages


def test_reasoning_message_rows() -> None:
    result = run(
        [
            ev("REASONING_MESSAGE_START", messageId="r1", role="reasoning", subagentRunId="s1"),
            ev("REASONING_MESSAGE_CONTENT", messageId="r1", delta="th"),
            ev("REASONING_MESSAGE_CONTENT", messageId="r1", delta="ink", metadata={"a": 1}),
            ev("REASONING_MESSAGE_END", messageId="r1", metadata={"b": 2}),
        ]
    )
    assert result.messages == (
        {
            "id": "r1",
            "role": "reasoning",
            "content": "think",
            "subagentRunId": "s1",
            "metadata": {"a": 1, "b": 2},
        },
    )


def test_reasoning_encrypted_value_on_messages_and_tool_calls() -> None:
    start = AgentState(
        messages=[
            {
                "id": "m1",
                "role": "assistant",
                "content": "x",
                "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}
                ],
            },
            {"id": "a1", "role": "activity", "activityType": "p", "content": {}},
        ]
    )
    result = run(
        [
            ev(
                "REASONING_ENCRYPTED_VALUE", subtype="tool-call", entityId="c1", encryptedValue="E1"
            ),
            ev("REASONING_ENCRYPTED_VALUE", subtype="message", entityId="m1", encryptedValue="E2"),
            ev(
                "REASONING_ENCRYPTED_VALUE",
                subtype="message",
                entityId="a1",
                encryptedValue="ignored",
            ),
        ],
        start,
    )
    assert result.messages == (
        {
            "id": "m1",
            "role": "assistant",
            "content": "x",
            "encryptedValue": "E2",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                    "encryptedValue": "E1",
                }
            ],
        },
        {"id": "a1", "role": "activity", "activityType": "p", "content": {}},
    )


def test_encrypted_value_type_is_stored_with_the_value_and_dropped_with_it() -> None:
    start = AgentState(
        messages=[
            {
                "id": "m1",
                "role": "assistant",
                "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}
                ],
            },
            {"id": "r1", "role": "reasoning", "content": ""},
        ]
    )
    typed = run(
        [
            ev(
                "REASONING_ENCRYPTED_VALUE",
                subtype="tool-call",
                entityId="c1",
                encryptedValue="E1",
                encryptedValueType="vendor.call",
            ),
            ev(
                "REASONING_ENCRYPTED_VALUE",
                subtype="message",
                entityId="r1",
                encryptedValue="E2",
                encryptedValueType="vendor.thinking",
            ),
        ],
        start,
    )
    assert typed.messages == (
        {
            "id": "m1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                    "encryptedValue": "E1",
                    "encryptedValueType": "vendor.call",
                }
            ],
        },
        {
            "id": "r1",
            "role": "reasoning",
            "content": "",
            "encryptedValue": "E2",
            "encryptedValueType": "vendor.thinking",
        },
    )
    # A new value without a type replaces the value and removes the stale type.
    untyped = run(
        [
            ev("REASONING_ENCRYPTED_VALUE", subtype="tool-call", entityId="c1", encryptedValue="1"),
            ev("REASONING_ENCRYPTED_VALUE", subtype="message", entityId="r1", encryptedValue="2"),
        ],
        typed,
    )
    assert untyped.messages == (
        {
            "id": "m1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                    "encryptedValue": "1",
                }
            ],
        },
        {"id": "r1", "role": "reasoning", "content": "", "encryptedValue": "2"},
    )


@pytest.mark.parametrize(
    "event",
    [
        ev("TEXT_MESSAGE_CHUNK", messageId="m", delta="x"),
        ev("TOOL_CALL_CHUNK", toolCallId="c", toolCallName="f"),
        ev("REASONING_MESSAGE_CHUNK", messageId="r", delta="x"),
    ],
    ids=lambda e: e["type"],
)
def test_unexpanded_chunks_are_refused(event: dict[str, Any]) -> None:
    with pytest.raises(ChunkExpansionError) as caught:
        apply_event(AgentState(), parse_event(event))
    assert (caught.value.rule, caught.value.event_type) == ("X0", event["type"])


def test_earlier_states_are_never_changed() -> None:
    states = [AgentState()]
    for event in [
        ev("TEXT_MESSAGE_START", messageId="m1"),
        ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="a"),
        ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f", parentMessageId="m1"),
        ev("TOOL_CALL_ARGS", toolCallId="c1", delta="{}"),
        ev("STATE_SNAPSHOT", snapshot={"l": [1]}),
        ev("STATE_DELTA", delta=[{"op": "add", "path": "/l/-", "value": 2}]),
    ]:
        states.append(apply_event(states[-1], parse_event(event)))
    snapshots = [copy.deepcopy((s.messages, s.state)) for s in states]
    states.append(
        apply_event(states[-1], parse_event(ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="b")))
    )
    assert [(s.messages, s.state) for s in states[:-1]] == snapshots
    assert states[2].messages == ({"id": "m1", "role": "assistant", "content": "a"},)


def test_agent_state_is_immutable_and_accepts_models() -> None:
    from ag_ui.core import UserMessage

    state = AgentState(messages=[UserMessage(id="u", content="x")])
    assert state.messages == ({"id": "u", "role": "user", "content": "x"},)
    assert state.typed_messages() == [UserMessage(id="u", content="x")]
    with pytest.raises(AttributeError):
        state.state = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        AgentState(messages=[{"role": "user"}])
    assert pickle.loads(pickle.dumps(state)) == state
    assert copy.deepcopy(state) == state


def test_tool_call_lookup_survives_a_message_replaced_by_an_activity() -> None:
    state = run(
        [
            ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f", parentMessageId="m1"),
            ev("ACTIVITY_SNAPSHOT", messageId="m1", activityType="p", content={}),
        ]
    )
    with pytest.warns(ReducerWarning, match="no tool call found"):
        assert run([ev("TOOL_CALL_ARGS", toolCallId="c1", delta="x")], state) is state
    again = run([ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f")], state)
    assert again.messages == (
        {"id": "m1", "role": "activity", "activityType": "p", "content": {}},
        {
            "id": "c1",
            "role": "assistant",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}
            ],
        },
    )
