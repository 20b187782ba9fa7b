"""``EventPipeline``: compatibility -> nulls -> chunks -> verify -> apply, as one sans-IO unit."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from ag_ui.apply import EventPipeline, PatchFailedWarning
from ag_ui.core import parse_any_event
from ag_ui.core.errors import (
    AGUIValidationError,
    ChunkExpansionError,
    EventSequenceError,
    PatchError,
    UnterminatedRunError,
)

RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RF = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def feed_all(pipeline: EventPipeline, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for event in events:
            applied = pipeline.feed(parse_any_event(event))
            out += [e.model_dump(by_alias=True, mode="json") for e in applied]
    return out


def test_returns_the_expanded_events_it_applied() -> None:
    pipeline = EventPipeline(messages=[{"id": "u", "role": "user", "content": "q"}], state={})
    applied = feed_all(
        pipeline,
        [
            RS,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "Hi"},
            {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/n", "value": 1}]},
            RF,
        ],
    )
    pipeline.finish()
    assert applied == [
        RS,
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Hi"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/n", "value": 1}]},
        RF,
    ]
    assert pipeline.agent_state.messages == (
        {"id": "u", "role": "user", "content": "q"},
        {"id": "m", "role": "assistant", "content": "Hi"},
    )
    assert pipeline.agent_state.state == {"n": 1}


def test_legacy_thinking_stream_is_translated_verified_and_applied() -> None:
    pipeline = EventPipeline(id_factory=iter(["span", "msg"]).__next__)
    feed_all(
        pipeline,
        [
            RS,
            {"type": "THINKING_START"},
            {"type": "THINKING_TEXT_MESSAGE_START"},
            {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hm"},
            {"type": "THINKING_TEXT_MESSAGE_END"},
            {"type": "THINKING_END"},
            RF,
        ],
    )
    pipeline.finish()
    assert pipeline.agent_state.messages == ({"id": "msg", "role": "reasoning", "content": "hm"},)


def test_a_failed_patch_is_reported_and_the_run_continues() -> None:
    seen: list[PatchError] = []
    pipeline = EventPipeline(state={"a": 1}, on_patch_error=seen.append)
    feed_all(
        pipeline,
        [
            RS,
            {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/x"}]},
            {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/b", "value": 2}]},
            RF,
        ],
    )
    pipeline.finish()
    assert pipeline.agent_state.state == {"a": 1, "b": 2}
    assert [(e.operation_index, e.path) for e in seen] == [(0, "/x")]
    assert pipeline.patch_errors == seen


def test_default_patch_report_is_a_warning() -> None:
    pipeline = EventPipeline(state={})
    with pytest.warns(PatchFailedWarning):
        feed_all(
            pipeline,
            [RS, {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/x", "value": 1}]}],
        )


@pytest.mark.parametrize(
    ("events", "error", "rule"),
    [
        (
            [RS, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}],
            EventSequenceError,
            "T2",
        ),
        ([RS, {"type": "TEXT_MESSAGE_CHUNK", "delta": "x"}], ChunkExpansionError, "X1"),
        (
            [RS, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "subagentRunId": None}],
            EventSequenceError,
            "N1",
        ),
        (
            [RS, {"type": "CUSTOM", "name": "c", "value": 1, "metadata": None}],
            AGUIValidationError,
            None,
        ),
    ],
)
def test_violations_raise_typed_errors(
    events: list[dict[str, Any]], error: type[Exception], rule: str | None
) -> None:
    pipeline = EventPipeline()
    with pytest.raises(error) as caught:
        feed_all(pipeline, events)
    assert getattr(caught.value, "rule", None) == rule


def test_strict_and_lenient_end() -> None:
    strict = EventPipeline()
    feed_all(strict, [RS, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"}])
    with pytest.raises(UnterminatedRunError):
        strict.finish()
    lenient = EventPipeline(strict_end=False)
    feed_all(lenient, [RS, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"}])
    lenient.finish()
    assert lenient.agent_state.messages == ({"id": "m", "role": "assistant", "content": "x"},)


def test_raw_dicts_are_refused_with_a_hint() -> None:
    from ag_ui.apply import AgentState, apply_event
    from ag_ui.verify import EventVerifier

    raw = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    for stage in (
        EventPipeline().feed,
        EventVerifier().feed,
        lambda e: apply_event(AgentState(), e),
    ):
        with pytest.raises(AGUIValidationError) as caught:
            stage(raw)  # type: ignore[arg-type]
        assert caught.value.problems == (
            "expected an AG-UI event model, got dict "
            "(parse wire JSON with ag_ui.core.parse_any_event first)",
        )


def test_the_stream_verifier_checks_each_expanded_event_only_when_asked() -> None:
    from ag_ui.verify import StreamVerifier

    seen: list[tuple[str, str]] = []
    stream = StreamVerifier(observer=lambda stage, e: seen.append((stage, e.type.value)))
    for event in stream.expand(parse_any_event(RS)):
        stream.check(event)
    for event in stream.expand(
        parse_any_event({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a", "delta": "1"})
    ):
        stream.check(event)
    expanded = stream.expand(
        parse_any_event({"type": "TEXT_MESSAGE_CHUNK", "messageId": "b", "delta": "2"})
    )
    assert [e.type.value for e in expanded] == [
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
    ]
    for event in expanded:
        stream.check(event)
    assert seen == [
        ("VERIFY", "RUN_STARTED"),
        ("TRANSFORM", "TEXT_MESSAGE_START"),
        ("VERIFY", "TEXT_MESSAGE_START"),
        ("TRANSFORM", "TEXT_MESSAGE_CONTENT"),
        ("VERIFY", "TEXT_MESSAGE_CONTENT"),
        ("TRANSFORM", "TEXT_MESSAGE_END"),
        ("VERIFY", "TEXT_MESSAGE_END"),
        ("TRANSFORM", "TEXT_MESSAGE_START"),
        ("VERIFY", "TEXT_MESSAGE_START"),
        ("TRANSFORM", "TEXT_MESSAGE_CONTENT"),
        ("VERIFY", "TEXT_MESSAGE_CONTENT"),
    ]
    # Expanding does not verify: content for an unknown message is refused (rule T2) only when
    # checked, after the END that closes the open stream could be used.
    ghost = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "x"}
    closing, content = stream.expand(parse_any_event(ghost))
    stream.check(closing)
    with pytest.raises(EventSequenceError) as caught:
        stream.check(content)
    assert caught.value.rule == "T2"


def test_stages_can_be_switched_off() -> None:
    from ag_ui.verify import StreamVerifier

    lenient = StreamVerifier(verify=False)  # the client's strict=False: expansion only
    assert [e.type.value for e in lenient.feed(parse_any_event(RF))] == ["RUN_FINISHED"]
    nulls = {"type": "TEXT_MESSAGE_START", "messageId": "m", "name": None}
    with pytest.raises(AGUIValidationError):
        StreamVerifier(verify=False).feed(parse_any_event(nulls))
    producer = StreamVerifier(compatibility=False, null_checks=False)  # the server's guard
    producer.feed(parse_any_event(RS))
    assert producer.feed(parse_any_event(nulls))[0].name is None


def test_the_reducer_keeps_the_state_and_records_a_failed_patch() -> None:
    from ag_ui.apply import AgentState, Reducer

    errors: list[PatchError] = []
    reducer = Reducer(on_patch_error=errors.append)
    state = AgentState(state={"a": 1})
    delta = parse_any_event({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/x"}]})
    after = reducer.reduce(state, delta)  # type: ignore[arg-type]
    assert after.state == {"a": 1}
    assert reducer.patch_errors == errors
    assert [e.path for e in errors] == ["/x"]
    with pytest.warns(PatchFailedWarning, match="STATE_DELTA could not be applied"):
        Reducer().reduce(state, delta)  # type: ignore[arg-type]
