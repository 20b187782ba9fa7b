"""Compatibility translation (PROTOCOL.md §6.2): THINKING_*, legacy nulls, binary parts."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import pytest

from ag_ui.core import parse_any_event
from ag_ui.core.errors import AGUIValidationError
from ag_ui.verify import CompatibilityTranslator, CompatibilityWarning, reject_optional_nulls


def translate(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    counter = itertools.count(1)
    translator = CompatibilityTranslator(id_factory=lambda: f"id{next(counter)}")
    out: list[dict[str, Any]] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for event in events:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                parsed = parse_any_event(event)
            for translated in translator.feed(parsed):
                reject_optional_nulls(translated)
                out.append(translated.model_dump(by_alias=True, mode="json"))
    messages = [str(w.message) for w in caught if issubclass(w.category, CompatibilityWarning)]
    return out, messages


def test_thinking_events_become_reasoning_events() -> None:
    out, warned = translate(
        [
            {"type": "THINKING_START", "title": "plan", "timestamp": 5},
            {"type": "THINKING_TEXT_MESSAGE_START"},
            {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "a", "metadata": {"m": 1}},
            {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "b"},
            {"type": "THINKING_TEXT_MESSAGE_END"},
            {"type": "THINKING_END"},
        ]
    )
    assert out == [
        {"type": "REASONING_START", "timestamp": 5, "messageId": "id1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "id2", "role": "reasoning"},
        {
            "type": "REASONING_MESSAGE_CONTENT",
            "metadata": {"m": 1},
            "messageId": "id2",
            "delta": "a",
        },
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "id2", "delta": "b"},
        {"type": "REASONING_MESSAGE_END", "messageId": "id2"},
        {"type": "REASONING_END", "messageId": "id1"},
    ]
    # one warning per kind of conversion (the second CONTENT does not warn again) + the title
    assert len(warned) == 6
    assert any("title" in w for w in warned)


def test_a_continuation_without_opener_gets_a_minted_id() -> None:
    out, warned = translate([{"type": "THINKING_TEXT_MESSAGE_END"}])
    assert out == [{"type": "REASONING_MESSAGE_END", "messageId": "id1"}]
    assert any("Minting" in w for w in warned)


def test_legacy_nulls_become_absent_and_warn_once() -> None:
    out, warned = translate(
        [
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "rawEvent": None},
            {
                "type": "TOOL_CALL_START",
                "toolCallId": "c",
                "toolCallName": "f",
                "parentMessageId": None,
                "rawEvent": None,
            },
            {
                "type": "RUN_FINISHED",
                "threadId": "t",
                "runId": "r",
                "result": None,
                "outcome": None,
            },
        ]
    )
    assert out == [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    assert sorted(warned) == sorted(
        [
            "[ag-ui][compat] Converting deprecated RUN_STARTED.rawEvent: null to an absent field.",
            "[ag-ui][compat] Converting deprecated TOOL_CALL_START.parentMessageId: null to an "
            "absent field.",
            "[ag-ui][compat] Converting deprecated TOOL_CALL_START.rawEvent: null to an absent "
            "field.",
            "[ag-ui][compat] Converting deprecated RUN_FINISHED.result: null to an absent field.",
            "[ag-ui][compat] Converting deprecated RUN_FINISHED.outcome: null to an absent field.",
        ]
    )


def test_nested_legacy_nulls_in_run_input_are_reported() -> None:
    _, warned = translate(
        [
            {
                "type": "RUN_STARTED",
                "threadId": "t",
                "runId": "r",
                "input": {
                    "threadId": "t",
                    "runId": "r",
                    "forwardedProps": None,
                    "tools": [{"name": "f", "description": "d", "parameters": None}],
                    "resume": [{"interruptId": "i", "status": "resolved", "payload": None}],
                    "messages": [
                        {
                            "id": "u",
                            "role": "user",
                            "content": [
                                {
                                    "type": "image",
                                    "source": {"type": "url", "value": "u"},
                                    "metadata": None,
                                }
                            ],
                        }
                    ],
                },
            },
        ]
    )
    assert len(warned) == 4


def test_binary_parts_become_media_parts() -> None:
    out, warned = translate(
        [
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {
                        "id": "u1",
                        "role": "user",
                        "content": [
                            {
                                "type": "binary",
                                "mimeType": "image/png",
                                "data": "AAA",
                                "filename": "a.png",
                            },
                            {"type": "binary", "mimeType": "audio/mp3", "url": "https://a"},
                            {"type": "binary", "mimeType": "text/csv", "url": "https://c"},
                            {"type": "binary", "mimeType": "video/mp4", "data": "V"},
                            {
                                "type": "video",
                                "source": {"type": "data", "value": "V", "mimeType": "video/mp4"},
                            },
                        ],
                    }
                ],
            },
        ]
    )
    assert out == [
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {
                    "id": "u1",
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "data", "value": "AAA", "mimeType": "image/png"},
                            "metadata": {"filename": "a.png"},
                        },
                        {
                            "type": "audio",
                            "source": {
                                "type": "url",
                                "value": "https://a",
                                "mimeType": "audio/mp3",
                            },
                        },
                        {
                            "type": "document",
                            "source": {"type": "url", "value": "https://c", "mimeType": "text/csv"},
                        },
                        {
                            "type": "video",
                            "source": {"type": "data", "value": "V", "mimeType": "video/mp4"},
                        },
                    ],
                }
            ],
        },
    ]
    assert warned == [
        "[ag-ui][compat] Converting deprecated binary input content to the modern media "
        "content parts."
    ]


def test_modern_events_pass_through_untouched() -> None:
    event = parse_any_event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"})
    assert CompatibilityTranslator().feed(event) == [event]
    assert CompatibilityTranslator().feed(event)[0] is event


def test_suppression_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPPRESS_TRANSFORMATION_WARNINGS", "1")
    _, warned = translate([{"type": "THINKING_START"}])
    assert warned == []


@pytest.mark.parametrize(
    "event",
    [
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "metadata": None},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "name": None},
        {"type": "RUN_ERROR", "message": "x", "code": None},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": None},
    ],
)
def test_other_optional_nulls_are_rejected(event: dict[str, Any]) -> None:
    with pytest.raises(AGUIValidationError) as caught:
        reject_optional_nulls(parse_any_event(event))
    assert caught.value.what == f"{event['type']} event"


def test_nulls_left_to_the_verifier_and_meaningful_nulls_pass() -> None:
    for event in [
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": None},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n", "description": None},
        {"type": "STATE_SNAPSHOT", "snapshot": None},
        {"type": "CUSTOM", "name": "c", "value": None},
        {"type": "CUSTOM", "name": "c", "value": 1, "unknownExtra": None},
    ]:
        reject_optional_nulls(parse_any_event(event))
