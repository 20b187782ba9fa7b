"""Subscribers: callback set, parameters, mutation and stop_propagation semantics (§6.5)."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest

from ag_ui.client import AgentStateMutation, AgentSubscriber, SubscriberError, SubscriberParams
from ag_ui.core import (
    AssistantMessage,
    IncompleteStreamError,
    RunError,
    UserMessage,
)
from ag_ui.core.errors import InterruptError
from tests.client.client_helpers import (
    Recorder,
    asgi_agent,
    frames,
    run_frames,
    sequence_app,
    static_app,
)

pytestmark = pytest.mark.anyio

TEXT = [
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "lo"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
]
TOOL = [
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"q": "ca'},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": 'ts"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
]


class Log(AgentSubscriber):
    """Records (callback, detail) pairs; mixes sync and async callbacks on purpose."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []

    def on_run_initialized(self, params: SubscriberParams) -> None:
        self.calls.append(("on_run_initialized", len(params.messages)))

    async def on_event(self, params: SubscriberParams) -> None:
        await anyio.lowlevel.checkpoint()
        self.calls.append(("on_event", params.event.type.value))

    def on_text_message_content_event(self, params: SubscriberParams) -> None:
        self.calls.append(("content", (params.text_message_buffer, params.event.delta)))

    def on_text_message_end_event(self, params: SubscriberParams) -> None:
        self.calls.append(("text_end", params.text_message_buffer))

    async def on_tool_call_args_event(self, params: SubscriberParams) -> None:
        detail = (params.tool_call_name, params.tool_call_buffer, params.partial_tool_call_args)
        self.calls.append(("args", detail))

    def on_tool_call_end_event(self, params: SubscriberParams) -> None:
        self.calls.append(("tool_end", (params.tool_call_name, params.tool_call_args)))

    def on_new_message(self, params: SubscriberParams) -> None:
        assert params.message is not None
        self.calls.append(("new_message", params.message.id))

    def on_new_tool_call(self, params: SubscriberParams) -> None:
        assert params.tool_call is not None
        self.calls.append(("new_tool_call", params.tool_call.function.arguments))

    def on_run_finished_event(self, params: SubscriberParams) -> None:
        detail = (params.outcome, params.result, params.pending_tool_call_ids)
        self.calls.append(("finished", detail))

    def on_run_finalized(self, params: SubscriberParams) -> None:
        self.calls.append(("on_run_finalized", len(params.messages)))


async def test_callbacks_fire_in_order_with_their_parameters() -> None:
    body = frames(
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        *TEXT,
        *TOOL,
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "result": 42},
    )
    log = Log()
    agent = asgi_agent(static_app(body))
    agent.subscribe(log)
    await agent.run_agent()
    assert [c for c in log.calls if c[0] != "on_event"] == [
        ("on_run_initialized", 0),
        ("content", ("", "Hel")),
        ("content", ("Hel", "lo")),
        ("text_end", "Hello"),
        ("new_message", "m1"),
        ("args", ("search", "", {})),
        ("args", ("search", '{"q": "ca', {"q": "ca"})),
        ("tool_end", ("search", {"q": "cats"})),
        ("new_tool_call", '{"q": "cats"}'),
        ("finished", ("success", 42, ["c1"])),
        ("on_run_finalized", 2),
    ]
    assert [c[1] for c in log.calls if c[0] == "on_event"] == [
        "RUN_STARTED",
        *[e["type"] for e in TEXT],
        *[e["type"] for e in TOOL],
        "RUN_FINISHED",
    ]


async def test_stop_propagation_skips_later_subscribers_and_the_default_handling() -> None:
    body = run_frames(*TEXT)
    later: list[str] = []

    def censor(params: SubscriberParams) -> AgentStateMutation | None:
        if getattr(params.event, "delta", None) == "lo":
            return AgentStateMutation(stop_propagation=True)
        return None

    agent = asgi_agent(static_app(body))
    agent.subscribe(on_event=censor)
    agent.subscribe(on_text_message_content_event=lambda p: later.append(p.event.delta))
    await agent.run_agent()
    assert later == ["Hel"]
    assert agent.messages == [AssistantMessage(id="m1", content="Hel")]


async def test_mutations_replace_state_and_messages_and_the_next_subscriber_sees_them() -> None:
    body = run_frames({"type": "STATE_SNAPSHOT", "snapshot": {"from": "agent"}})
    seen_by_second: list[Any] = []

    def override(params: SubscriberParams) -> AgentStateMutation:
        return AgentStateMutation(
            state={"from": "subscriber"},
            messages=[UserMessage(id="u9", content="injected")],
            stop_propagation=False,
        )

    agent = asgi_agent(static_app(body))
    agent.subscribe(on_state_snapshot_event=override)
    agent.subscribe(
        on_state_snapshot_event=lambda p: seen_by_second.append((p.state, len(p.messages)))
    )
    await agent.run_agent()
    assert seen_by_second == [({"from": "subscriber"}, 1)]
    # Not stopped, so the default handling (the snapshot) still applies afterwards.
    assert agent.state == {"from": "agent"}
    assert agent.messages == [UserMessage(id="u9", content="injected")]


async def test_stopping_a_snapshot_keeps_the_subscriber_state() -> None:
    body = run_frames({"type": "STATE_SNAPSHOT", "snapshot": {"from": "agent"}})
    agent = asgi_agent(static_app(body))
    agent.subscribe(
        on_state_snapshot_event=lambda p: {"state": {"kept": True}, "stop_propagation": True}
    )
    await agent.run_agent()
    assert agent.state == {"kept": True}


async def test_a_failing_subscriber_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    def broken(params: SubscriberParams) -> None:
        raise ValueError("bug in UI code")

    seen: list[str] = []
    agent = asgi_agent(static_app(run_frames(*TEXT)))
    agent.subscribe(on_text_message_end_event=broken)
    agent.subscribe(on_text_message_end_event=lambda p: seen.append(p.event.message_id))
    with caplog.at_level(logging.ERROR, logger="ag_ui.client"):
        result = await agent.run_agent()
    assert seen == ["m1"]
    assert [r.exc_info[0] for r in caplog.records if r.exc_info] == [ValueError]
    assert [r.levelno for r in caplog.records] == [logging.ERROR]
    assert "AgentSubscriber.on_text_message_end_event raised ValueError" in caplog.text
    assert [type(e.__cause__) for e in result.subscriber_errors] == [ValueError]


async def test_failing_subscribers_are_listed_on_the_result() -> None:
    class Printer:
        def on_state_snapshot_event(self, params: SubscriberParams) -> None:
            # The bug from docs/client.md (issue 12): a name used without its import.
            return AgentStateMutation(state=params.state)

        def on_run_finalized(self, params: SubscriberParams) -> None:
            raise RuntimeError("finalizer broke")

    body = run_frames({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}})
    agent = asgi_agent(static_app(body))
    agent.subscribe(Printer())

    async def on_event(params: SubscriberParams) -> None:
        if params.event.type.value == "RUN_STARTED":  # the docs bug of issue 12: no import
            raise NameError("name 'AgentStateMutation' is not defined")

    result = await agent.run_agent(subscriber={"on_event": on_event})
    assert result.outcome_type == "success"  # the run itself went on
    assert [(e.callback, type(e.__cause__)) for e in result.subscriber_errors] == [
        ("on_event", NameError),
        ("on_run_finalized", RuntimeError),
    ]
    failure = result.subscriber_errors[0]
    assert isinstance(failure, SubscriberError)
    assert str(failure) == (
        "subscriber AgentSubscriber.on_event raised NameError: "
        "name 'AgentStateMutation' is not defined"
    )
    with pytest.raises(SubscriberError):  # how to fail on one
        raise failure
    clean = await asgi_agent(static_app(body)).run_agent()
    assert clean.subscriber_errors == []


async def test_on_run_initialized_mutation_changes_what_is_sent() -> None:
    recorder = Recorder()
    agent = asgi_agent(static_app(run_frames(), recorder=recorder), initial_state={"a": 1})
    agent.subscribe(
        on_run_initialized=lambda p: AgentStateMutation(
            state={"a": 2}, messages=[UserMessage(id="u1", content="added")]
        )
    )
    await agent.run_agent()
    assert recorder.bodies[0]["state"] == {"a": 2}
    assert recorder.bodies[0]["messages"] == [{"id": "u1", "role": "user", "content": "added"}]
    assert agent.state == {"a": 2}
    assert agent.messages == [UserMessage(id="u1", content="added")]


async def test_unsubscribe_removes_the_subscriber() -> None:
    seen: list[str] = []
    agent = asgi_agent(static_app(run_frames()))
    subscription = agent.subscribe(on_event=lambda p: seen.append(p.event.type.value))
    await agent.run_agent()
    subscription.unsubscribe()
    await agent.run_agent()
    assert seen == ["RUN_STARTED", "RUN_FINISHED"]


async def test_on_run_failed_sees_the_error_and_can_swallow_it() -> None:
    body = run_frames()[: -len(b"\n\n")].rsplit(b"data: ", 1)[0]  # RUN_FINISHED cut off
    errors: list[type[BaseException]] = []
    agent = asgi_agent(static_app(body))
    agent.subscribe(on_run_failed=lambda p: errors.append(type(p.error)))
    with pytest.raises(IncompleteStreamError):
        await agent.run_agent()
    assert errors == [IncompleteStreamError]

    agent.subscribe(on_run_failed=lambda p: AgentStateMutation(stop_propagation=True))
    result = await agent.run_agent()
    assert type(result.error).__name__ == "IncompleteStreamError"
    assert result.outcome_type == "error"


async def test_run_error_reaches_subscribers_then_raises_and_finalizes() -> None:
    body = frames(
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "RUN_ERROR", "message": "boom", "code": "x"},
    )
    log: list[str] = []
    agent = asgi_agent(static_app(body))
    agent.subscribe(
        on_run_error_event=lambda p: log.append("error_event"),
        on_run_failed=lambda p: log.append(f"failed:{type(p.error).__name__}"),
        on_run_finalized=lambda p: log.append("finalized"),
    )
    with pytest.raises(RunError):
        await agent.run_agent()
    assert log == ["error_event", "failed:RunError", "finalized"]


INTERRUPT = {
    "type": "RUN_FINISHED",
    "threadId": "t1",
    "runId": "r1",
    "outcome": {
        "type": "interrupt",
        "interrupts": [{"id": "i1", "reason": "confirmation", "message": "Delete it?"}],
    },
}


async def test_interrupt_then_resume_across_two_runs() -> None:
    recorder = Recorder()
    first = frames({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}, INTERRUPT)
    second = run_frames(run="r2")
    agent = asgi_agent(sequence_app(first, second, recorder=recorder), thread_id="t1")
    outcomes: list[Any] = []
    agent.subscribe(on_run_finished_event=lambda p: outcomes.append((p.outcome, p.interrupts)))
    result = await agent.run_agent(run_id="r1")
    assert result.outcome_type == "interrupt"
    assert [i.id for i in agent.pending_interrupts] == ["i1"]
    assert outcomes[0][0] == "interrupt"

    with pytest.raises(InterruptError) as info:
        await agent.run_agent(run_id="r2")  # refused before any request
    assert info.value.interrupt_ids == ("i1",)
    assert len(recorder.bodies) == 1

    resume = [{"interrupt_id": "i1", "status": "resolved", "payload": {"approved": True}}]
    result = await agent.run_agent(run_id="r2", resume=resume)
    assert result.outcome_type == "success"
    assert agent.pending_interrupts == []
    assert recorder.bodies[1]["resume"] == [
        {"interruptId": "i1", "status": "resolved", "payload": {"approved": True}}
    ]


async def test_run_subscribers_goes_on_after_a_returned_value_and_sees_list_changes() -> None:
    # The first pass calls plainly and only the rest after a returned value is awaited: each
    # subscriber still runs once, in order, and one removed by an earlier callback is skipped.
    from ag_ui.client._subscribers import run_subscribers

    class Target:
        def __init__(self) -> None:
            self.messages: list[Any] = []
            self.state: Any = None

    order: list[str] = []
    conversation = Target()

    class Named:
        def __init__(self, name: str, returns: Any = None) -> None:
            self.name, self.returns = name, returns

        def on_event(self, params: SubscriberParams) -> Any:
            order.append(self.name)
            if self.name == "a":
                subscribers.remove(c)
            return self.returns

    async def later(params: SubscriberParams) -> AgentStateMutation:
        order.append("async")
        return AgentStateMutation(state={"n": 1})

    b = Named("b", {"stop_propagation": False})
    c = Named("c")
    async_one = AgentSubscriber(on_event=later)
    subscribers: list[object] = [Named("a"), b, c, async_one, Named("d")]
    outcome = await run_subscribers(
        subscribers,
        "on_event",
        SubscriberParams(None),
        target=conversation,
        errors=[],  # type: ignore[arg-type]
    )
    assert order == ["a", "b", "async", "d"]
    assert outcome.state_changed
    assert not outcome.stopped
    assert conversation.state == {"n": 1}

    order.clear()
    untouched = await run_subscribers(
        (s for s in [Named("x"), Named("y")]),  # any iterable, as documented
        "on_event",
        SubscriberParams(None),  # type: ignore[arg-type]
        target=conversation,
        errors=[],
    )
    assert order == ["x", "y"]
    assert not untouched.state_changed
