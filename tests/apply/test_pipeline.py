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


def test_feed_with_states_pairs_each_expanded_event_with_its_state() -> None:
    pipeline = EventPipeline()
    pipeline.feed(parse_any_event(RS))
    pipeline.feed(parse_any_event({"type": "TEXT_MESSAGE_CHUNK", "messageId": "a", "delta": "1"}))
    steps = pipeline.feed_with_states(
        parse_any_event({"type": "TEXT_MESSAGE_CHUNK", "messageId": "b", "delta": "2"})
    )
    assert [(e.type.value, s.messages) for e, s in steps] == [
        ("TEXT_MESSAGE_END", ({"id": "a", "role": "assistant", "content": "1"},)),
        (
            "TEXT_MESSAGE_START",
            (
                {"id": "a", "role": "assistant", "content": "1"},
                {"id": "b", "role": "assistant", "content": ""},
            ),
        ),
        (
            "TEXT_MESSAGE_CONTENT",
            (
                {"id": "a", "role": "assistant", "content": "1"},
                {"id": "b", "role": "assistant", "content": "2"},
            ),
        ),
    ]
    assert steps[-1][1] is pipeline.agent_state
