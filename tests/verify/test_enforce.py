"""The enforcement stage: a consumer strips what it does not recognise, ``ag_ui.core`` keeps it.

The 1.1 corpus holds the client and ``agui verify`` to this end to end
(tests/conformance/test_corpus_1_1.py); these pin the stage itself and the other half of the
rule, that the models still round-trip extras for drop-in users.
"""

from __future__ import annotations

import json
import warnings

import pytest

from ag_ui.apply import EventPipeline
from ag_ui.core import AGUIValidationError, UnknownPart, parse_event
from ag_ui.core._surrogates import wire_json
from ag_ui.verify import StreamVerifier, UnrecognisedMaterialWarning
from ag_ui.verify._enforce import enforce, unrecognised_paths

RUN = {"threadId": "t", "runId": "r"}


def wire(event: object) -> dict[str, object]:
    return json.loads(wire_json(event))  # type: ignore[arg-type]


def test_a_conformant_event_is_returned_as_it_is_without_a_warning() -> None:
    event = parse_event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert enforce(event) is event


def test_an_unknown_property_is_stripped_and_named() -> None:
    event = parse_event(
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi", "futureProp": 1}
    )
    with pytest.warns(UnrecognisedMaterialWarning, match="TEXT_MESSAGE_CONTENT: /futureProp"):
        stripped = enforce(event)
    assert wire(stripped) == {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"}
    assert wire(event)["futureProp"] == 1  # the model itself still holds it


def test_nested_extras_unknown_parts_and_outcomes_are_named_by_pointer() -> None:
    snapshot = parse_event(
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {
                    "id": "u",
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "a", "x/y~z": True},
                        {"type": "hologram", "depth": 3},
                        {"type": "text", "text": "b"},
                    ],
                }
            ],
        }
    )
    assert unrecognised_paths(snapshot) == [
        "/messages/0/content/0/x~1y~0z",
        "/messages/0/content/1",
    ]
    with pytest.warns(UnrecognisedMaterialWarning):
        stripped = enforce(snapshot)
    assert wire(stripped)["messages"] == [
        {
            "id": "u",
            "role": "user",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        }
    ]
    finished = parse_event({"type": "RUN_FINISHED", **RUN, "outcome": {"type": "paused"}})
    with pytest.warns(UnrecognisedMaterialWarning, match="RUN_FINISHED: /outcome"):
        assert "outcome" not in wire(enforce(finished))


def test_open_objects_are_never_stripped() -> None:
    events = [
        {
            "type": "TEXT_MESSAGE_START",
            "messageId": "m",
            "role": "assistant",
            "metadata": {"v/k": None},
        },
        {"type": "STATE_SNAPSHOT", "snapshot": {"anything": [1, {"goes": True}]}},
        {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/a", "value": "left over"}]},
        {"type": "CUSTOM", "name": "n", "value": {"free": "form"}},
        {"type": "RAW", "event": {"provider": "x"}},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for raw in events:
            event = parse_event(raw)
            assert enforce(event) is event


def test_the_core_models_round_trip_what_a_consumer_strips() -> None:
    raw = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "u", "role": "user", "content": [{"type": "hologram", "depth": 3}], "extra": 1}
        ],
    }
    event = parse_event(raw)
    part = event.messages[0].content[0]  # type: ignore[union-attr,index]
    assert isinstance(part, UnknownPart)
    assert part.type == "hologram"
    assert wire(event) == raw


@pytest.mark.parametrize("pointer", ["x", "a/b", "/a~2", "/~", "/a/~x"])
def test_a_patch_path_that_is_not_a_json_pointer_is_refused(pointer: str) -> None:
    for raw in (
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": pointer, "value": 1}]},
        {"type": "STATE_DELTA", "delta": [{"op": "move", "from": pointer, "path": "/b"}]},
        {
            "type": "ACTIVITY_DELTA",
            "messageId": "a",
            "activityType": "k",
            "patch": [{"op": "remove", "path": pointer}],
        },
    ):
        event = parse_event(raw)  # the model accepts it, as 1.0.0 does
        with pytest.raises(AGUIValidationError, match="is not a JSON Pointer"):
            enforce(event)


@pytest.mark.parametrize("pointer", ["", "/", "/a", "/a~0b/~1c", "/0/-", "//"])
def test_json_pointers_pass(pointer: str) -> None:
    event = parse_event(
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": pointer, "value": 1}]}
    )
    assert enforce(event) is event


def test_the_stage_runs_in_consumers_and_not_in_a_producers_guard() -> None:
    event = parse_event({"type": "RUN_STARTED", **RUN, "futureProp": 1})
    with pytest.warns(UnrecognisedMaterialWarning):
        (consumed,) = StreamVerifier().feed(event)
    assert "futureProp" not in wire(consumed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (produced,) = StreamVerifier(compatibility=False, null_checks=False).feed(event)
    assert wire(produced)["futureProp"] == 1
    pipeline = EventPipeline()
    with pytest.warns(UnrecognisedMaterialWarning):
        pipeline.feed(event)
