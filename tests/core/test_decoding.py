"""Bad bodies and events give errors in wire terms, never a raw pydantic union dump."""

from __future__ import annotations

import json
from typing import cast

import pytest

from ag_ui.core import (
    EVENT_ADAPTER,
    AGUIValidationError,
    MalformedJSONError,
    RunAgentInput,
    TextMessageContentEvent,
    UnknownEventTypeError,
    parse_any_event,
    parse_event,
    parse_run_agent_input,
)
from ag_ui.core.legacy_events import ThinkingStartEvent

BODY = {"threadId": "t", "runId": "r", "messages": [{"id": "1", "role": "user", "content": "hi"}]}


def _problems(body: object) -> tuple[str, ...]:
    with pytest.raises(AGUIValidationError) as caught:
        parse_run_agent_input(json.dumps(body))
    return caught.value.problems


def test_parse_from_text_bytes_and_dict() -> None:
    expected = RunAgentInput.model_validate(BODY)
    assert parse_run_agent_input(json.dumps(BODY)) == expected
    assert parse_run_agent_input(json.dumps(BODY).encode()) == expected
    assert parse_run_agent_input(BODY) == expected
    text = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"é"}'
    expected_event = TextMessageContentEvent(message_id="m", delta="é")
    assert parse_event(text) == parse_event(text.encode()) == expected_event
    assert EVENT_ADAPTER.validate_json(text) == expected_event


def test_missing_message_id_names_the_message_and_role() -> None:
    body = {**BODY, "messages": [{"role": "user", "content": "hi"}]}
    assert _problems(body) == ('messages[0] (role "user"): missing required field "id"',)


def test_wrong_role_lists_the_roles() -> None:
    body = {**BODY, "messages": [{"id": "1", "role": "bot", "content": "hi"}]}
    (problem,) = _problems(body)
    assert problem.startswith('messages[0]: unknown role "bot"')
    assert "'assistant'" in problem


def test_wrong_types_name_each_field_without_union_noise() -> None:
    body = {**BODY, "runId": 5, "messages": [{"id": "1", "role": "user", "content": 7}]}
    assert _problems(body) == (
        "runId: Input should be a valid string (got 5)",
        'messages[0] (role "user").content: has the wrong type (got 7)',
    )


def test_nested_content_part_errors() -> None:
    content = [{"type": "text"}, {"type": "image", "source": {"type": "url"}}]
    body = {**BODY, "messages": [{"id": "1", "role": "user", "content": content}]}
    assert _problems(body) == (
        'messages[0] (role "user").content[0] (type "text"): missing required field "text"',
        'messages[0] (role "user").content[1] (type "image").source (type "url"): '
        'missing required field "value"',
    )


def test_invalid_json_and_non_objects() -> None:
    with pytest.raises(MalformedJSONError):
        parse_run_agent_input('{"threadId": ')
    with pytest.raises(MalformedJSONError):
        parse_event(b"\xff\xfe")
    assert _problems([1]) == ("expected a JSON object, got [1]",)


def test_unknown_event_type_is_its_own_error() -> None:
    with pytest.raises(UnknownEventTypeError) as caught:
        parse_event('{"type": "FUTURE_EVENT", "x": 1}')
    assert caught.value.event_type == "FUTURE_EVENT"
    assert isinstance(caught.value, AGUIValidationError)


def test_event_without_type() -> None:
    with pytest.raises(AGUIValidationError) as caught:
        parse_event("{}")
    assert caught.value.problems == ('missing required field "type"',)
    assert not isinstance(caught.value, UnknownEventTypeError)


def test_event_field_errors() -> None:
    with pytest.raises(AGUIValidationError) as caught:
        parse_event({"type": "TOOL_CALL_START", "toolCallId": "c"})
    assert caught.value.what == "TOOL_CALL_START event"
    assert caught.value.problems == ('missing required field "toolCallName"',)


def test_legacy_thinking_events_decode_only_when_asked() -> None:
    with pytest.raises(UnknownEventTypeError):
        parse_event({"type": "THINKING_START"})
    assert parse_any_event({"type": "THINKING_START", "title": "t"}) == ThinkingStartEvent(
        title="t"
    )
    with pytest.raises(AGUIValidationError):
        parse_any_event({"type": "THINKING_TEXT_MESSAGE_CONTENT"})


# -- NaN and Infinity: not JSON (RFC 8259), though pydantic-core's parser reads them ---------------

NOT_JSON = ["NaN", "Infinity", "-Infinity"]
# A flat event (the compiled reader's), one with free JSON (pydantic's path), a legacy one.
CARRIERS = [
    '{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","extraField":{c}}}',
    '{{"type":"STATE_SNAPSHOT","snapshot":{{"a":[1,{c}]}}}}',
    '{{"type":"CUSTOM","name":"n","value":{c}}}',
    '{{"type":"THINKING_START","title":"t","x":{c}}}',
]


@pytest.mark.parametrize("carrier", CARRIERS, ids=["flat", "snapshot", "custom", "legacy"])
@pytest.mark.parametrize("constant", NOT_JSON)
@pytest.mark.parametrize("kind", [str, bytes, bytearray, memoryview])
def test_nan_and_infinity_in_an_event_are_malformed_json(
    carrier: str, constant: str, kind: type
) -> None:
    text = carrier.format(c=constant)
    data = text if kind is str else kind(text.encode())
    with pytest.raises(MalformedJSONError) as caught:
        parse_any_event(data)
    assert "NaN, Infinity and -Infinity are not JSON" in str(caught.value)


def test_the_words_inside_strings_are_fine() -> None:
    event = parse_event('{"type":"CUSTOM","name":"NaN","value":"-Infinity"}')
    assert (event.name, event.value) == ("NaN", "-Infinity")  # type: ignore[union-attr]
    snapshot = parse_event(b'{"type":"STATE_SNAPSHOT","snapshot":{"Infinity":1.5e308}}')
    assert snapshot.snapshot == {"Infinity": 1.5e308}  # type: ignore[union-attr]


def test_other_broken_json_near_the_words_keeps_its_own_error() -> None:
    with pytest.raises(MalformedJSONError) as caught:
        parse_event(b'{"type":"CUSTOM","name":"NaN","value":}')
    assert "not JSON" not in str(caught.value)
    assert "expected value" in str(caught.value)


PURE_CHECK = """
import json, sys
from ag_ui.core import MalformedJSONError, _json_plans, parse_event
assert _json_plans._speedups is None, "the compiled reader is loaded"
for text in json.loads(sys.argv[1]):
    try:
        parse_event(text)
    except MalformedJSONError as exc:
        assert "are not JSON" in str(exc), exc
    else:
        raise SystemExit("accepted " + text)
print("ok")
"""


def test_the_pure_python_paths_refuse_them_too() -> None:
    import os
    import subprocess
    import sys

    texts = json.dumps([c.format(c=k) for c in CARRIERS[:3] for k in NOT_JSON])
    env = {**os.environ, "AG_UI_PURE_PYTHON": "1"}
    done = subprocess.run(
        [sys.executable, "-c", PURE_CHECK, texts],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_nan_beside_a_lone_surrogate_escape_is_named_too() -> None:
    # pydantic-core refuses the escape before it sees NaN; the json.loads fallback names NaN.
    with pytest.raises(MalformedJSONError) as caught:
        parse_event('{"type":"STATE_SNAPSHOT","snapshot":{"s":"\\ud83d","t":NaN}}')
    assert "NaN is not a JSON value" in str(caught.value)


@pytest.mark.parametrize("kind", [str, bytes, bytearray, memoryview])
def test_a_run_input_with_infinity_is_malformed_json(kind: type) -> None:
    text = '{"threadId":"t","runId":"r","state":{"x":-Infinity},"messages":[],"tools":[]}'
    data = text if kind is str else kind(text.encode())
    with pytest.raises(MalformedJSONError) as caught:
        parse_run_agent_input(data)
    assert "invalid RunAgentInput" in str(caught.value)
    assert "NaN, Infinity and -Infinity are not JSON" in str(caught.value)


# Every reader of wire JSON, and the encoder given floats JSON has no form for: the compiled
# paths and AG_UI_PURE_PYTHON=1 must give the same answers, so the same script prints them in
# this process (compiled, when built) and in a pure one.
BOTH_MODES = r"""
import json, math, sys
from ag_ui.core import StateSnapshotEvent, TextMessageContentEvent, _json_plans, parse_event
from ag_ui.core.decoding import parse_run_agent_input
from ag_ui.encoder import EventEncoder
from ag_ui.store._message_json import messages_from_json

def outcome(call, data):
    try:
        call(data)
    except Exception as exc:
        return type(exc).__name__ + ": " + str(exc)
    return "accepted"

answers = {"compiled": _json_plans._speedups is not None}
for i, text in enumerate(json.loads(sys.argv[1])):
    answers[f"event {i}"] = outcome(parse_event, text.encode())
answers["run input"] = outcome(parse_run_agent_input, b'{"threadId":"t","runId":"r","state":NaN}')
answers["messages"] = outcome(messages_from_json, b'[{"id":"m","role":"user","e":NaN}]')
encoder = EventEncoder()
answers["snapshot"] = encoder.encode(StateSnapshotEvent(snapshot={"a": math.nan, "s": "\ud83d"}))
answers["flat"] = encoder.encode(
    TextMessageContentEvent(message_id="m", delta="x", raw_event=[math.inf, -math.inf])
)
print(json.dumps(answers))
"""


def _answers(pure: bool) -> dict[str, object]:
    import os
    import subprocess
    import sys

    texts = [c.format(c=k) for c in CARRIERS for k in NOT_JSON]
    texts.append('{"type":"STATE_SNAPSHOT","snapshot":{"s":"\\ud83d","t":NaN}}')
    env = {k: v for k, v in os.environ.items() if k != "AG_UI_PURE_PYTHON"}
    if pure:
        env["AG_UI_PURE_PYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", BOTH_MODES, json.dumps(texts)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return cast(dict[str, object], json.loads(done.stdout))


def test_compiled_and_pure_readers_and_encoder_answer_the_same() -> None:
    compiled, pure = _answers(pure=False), _answers(pure=True)
    assert compiled.pop("compiled") is True  # the C reader is built in the dev install
    assert pure.pop("compiled") is False
    assert compiled == pure
    refusals = [v for k, v in compiled.items() if k not in ("snapshot", "flat")]
    assert len(refusals) == 3 * len(CARRIERS) + 1 + 2
    assert all(
        isinstance(v, str)
        and v.startswith("MalformedJSONError: ")
        and "NaN, Infinity and -Infinity are not JSON" in v
        for v in refusals
    ), refusals
    # Never NaN on the wire: null, as JSON.stringify writes them (and the TypeScript SDK sends).
    assert (
        compiled["snapshot"]
        == 'data: {"type":"STATE_SNAPSHOT","snapshot":{"a":null,"s":"\\ud83d"}}\n\n'
    )
    assert compiled["flat"] == (
        'data: {"type":"TEXT_MESSAGE_CONTENT","rawEvent":[null,null],'
        '"messageId":"m","delta":"x"}\n\n'
    )
