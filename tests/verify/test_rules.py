"""One legal and one violating stream per rule of PROTOCOL.md §5 (see ``corpus.py``)."""

from __future__ import annotations

import pytest

from ag_ui.core import parse_event
from ag_ui.core.errors import EventSequenceError, UnterminatedRunError
from ag_ui.core.events import (
    RunStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
)
from ag_ui.verify import EventVerifier
from tests.verify.corpus import CASES, Case

LEGAL = [c for c in CASES if c.rule is None]
VIOLATING = [c for c in CASES if c.rule is not None]


def _feed_all(case: Case, verifier: EventVerifier) -> None:
    for event in case.events:
        verifier.feed(parse_event(event))


@pytest.mark.parametrize("case", LEGAL, ids=lambda c: c.name)
def test_legal_stream_passes(case: Case) -> None:
    verifier = EventVerifier(strict_end=not case.truncated)
    _feed_all(case, verifier)
    verifier.finish()


@pytest.mark.parametrize("case", VIOLATING, ids=lambda c: c.name)
def test_violating_stream_raises_the_rule(case: Case) -> None:
    verifier = EventVerifier()
    *prefix, last = case.events
    for event in prefix:
        verifier.feed(parse_event(event))  # every event before the last one is fine
    with pytest.raises(EventSequenceError) as caught:
        verifier.feed(parse_event(last))
    assert (caught.value.rule, caught.value.event_type, caught.value.ids) == (
        case.rule,
        case.event_type,
        case.ids,
    )


def test_every_rule_has_a_violating_case() -> None:
    covered = {case.rule for case in VIOLATING}
    expected = {"R1", "R2", "R3", "R4", "N1", "N2", "N4", "N6", "N7", "T1", "T2", "T3"}
    expected |= {"C1", "C2", "C3", "S1", "S2", "S3", "G1", "G2", "G3", "G4"}
    expected |= {"A2", "A3", "A4", "A6", "O1", "O2", "O3", "F1", "F2", "F3", "F4", "F5", "F6"}
    assert covered == expected  # N3, N5, A1, A5 cannot be parsed: see the tests below


def test_truncated_stream_is_an_error_only_when_strict() -> None:
    case = next(c for c in CASES if c.truncated)
    strict = EventVerifier()
    _feed_all(case, strict)
    with pytest.raises(UnterminatedRunError) as caught:
        strict.finish()
    assert (caught.value.rule, caught.value.event_type, caught.value.ids) == (
        "END",
        None,
        {
            "message_ids": [],
            "tool_call_ids": [],
            "reasoning_message_ids": [],
            "reasoning_span_ids": [],
            "subagent_run_ids": [],
        },
    )
    lenient = EventVerifier(strict_end=False)
    _feed_all(case, lenient)
    lenient.finish()


def test_unterminated_error_lists_what_was_left_open() -> None:
    verifier = EventVerifier()
    for event in [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n"},
    ]:
        verifier.feed(parse_event(event))
    with pytest.raises(UnterminatedRunError) as caught:
        verifier.finish()
    assert caught.value.ids["message_ids"] == ["m1"]
    assert caught.value.ids["tool_call_ids"] == ["c1"]
    assert caught.value.ids["subagent_run_ids"] == ["s1"]


# In-process producers can bypass pydantic validation (model_construct); the verifier still
# rejects what the wire schema would (N3, N5, A1, A5).


def _started(verifier: EventVerifier) -> EventVerifier:
    verifier.feed(RunStartedEvent(thread_id="t", run_id="r"))
    return verifier


def _raises(event: object, rule: str, event_type: str) -> None:
    verifier = _started(EventVerifier())
    verifier.feed(SubagentStartedEvent(subagent_run_id="s1", name="n"))
    with pytest.raises(EventSequenceError) as caught:
        verifier.feed(event)
    assert (caught.value.rule, caught.value.event_type) == (rule, event_type)


def test_n3_unknown_subagent_outcome_type() -> None:
    event = SubagentFinishedEvent.model_construct(subagent_run_id="s1", outcome={"type": "odd"})
    _raises(event, "N3", "SUBAGENT_FINISHED")


def test_n5_non_string_interrupt_id() -> None:
    outcome = {"type": "suspended", "interruptIds": ["i1", 2]}
    event = SubagentFinishedEvent.model_construct(subagent_run_id="s1", outcome=outcome)
    _raises(event, "N5", "SUBAGENT_FINISHED")


def test_a1_subagent_started_without_id_or_name() -> None:
    _raises(SubagentStartedEvent.model_construct(name="n"), "A1", "SUBAGENT_STARTED")
    _raises(SubagentStartedEvent.model_construct(subagent_run_id="s2"), "A1", "SUBAGENT_STARTED")


def test_a5_subagent_close_without_id_or_message() -> None:
    _raises(SubagentFinishedEvent.model_construct(), "A5", "SUBAGENT_FINISHED")
    _raises(SubagentErrorEvent.model_construct(subagent_run_id="s1"), "A5", "SUBAGENT_ERROR")


def test_null_checks_can_be_turned_off_for_python_producers() -> None:
    from ag_ui.core import TextMessageStartEvent

    verifier = _started(EventVerifier(null_checks=False))
    verifier.feed(TextMessageStartEvent(message_id="m1", subagent_run_id=None))
    strict = _started(EventVerifier())
    with pytest.raises(EventSequenceError) as caught:
        strict.feed(TextMessageStartEvent(message_id="m1", subagent_run_id=None))
    assert caught.value.rule == "N1"


def test_a_new_run_resets_run_state() -> None:
    verifier = EventVerifier()
    for event in [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "subagentRunId": "s1"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
        # the id may be reused in a new run, and the old owner is forgotten
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "subagentRunId": "s2"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"},
    ]:
        verifier.feed(parse_event(event))
    verifier.finish()


# G6 (protocol 1.1) is not in the corpus: @ag-ui/client 1.0.0, which the corpus is compared
# with, does not know encryptedValueType and strips it instead.
def _snapshot(messages: list[dict[str, object]]) -> list[dict[str, object]]:
    return [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {"type": "MESSAGES_SNAPSHOT", "messages": messages},
    ]


_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("messages", "ids"),
    [
        (
            [{"id": "r1", "role": "reasoning", "content": "", "encryptedValueType": "x.y"}],
            {"message_id": "r1"},
        ),
        (
            [
                {
                    "id": "a1",
                    "role": "assistant",
                    "toolCalls": [{**_CALL, "encryptedValueType": "t"}],
                }
            ],
            {"message_id": "a1", "tool_call_id": "c1"},
        ),
    ],
    ids=["message", "tool call"],
)
def test_g6_a_type_without_its_value_is_refused(
    messages: list[dict[str, object]], ids: dict[str, object]
) -> None:
    verifier = EventVerifier()
    first, snapshot = _snapshot(messages)
    verifier.feed(parse_event(first))
    with pytest.raises(EventSequenceError) as caught:
        verifier.feed(parse_event(snapshot))
    assert (caught.value.rule, caught.value.event_type, caught.value.ids) == (
        "G6",
        "MESSAGES_SNAPSHOT",
        ids,
    )
    assert "without 'encryptedValue'" in str(caught.value)


def test_g6_a_value_with_or_without_a_type_is_legal() -> None:
    verifier = EventVerifier()
    messages = [
        {"id": "r1", "role": "reasoning", "content": "", "encryptedValue": "E"},
        {
            "id": "a1",
            "role": "assistant",
            "encryptedValue": "M",
            "encryptedValueType": "x.m",
            "toolCalls": [{**_CALL, "encryptedValue": "C", "encryptedValueType": "x.c"}],
        },
    ]
    for event in [
        *_snapshot(messages),
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"},
    ]:
        verifier.feed(parse_event(event))
    verifier.finish()
