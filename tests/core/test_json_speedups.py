"""The compiled SSE/JSON paths of the flat events (``ag_ui.core._json_plans``) against pydantic.

pydantic-core is the reference: whatever the compiled writer writes must be the bytes of
``to_json(by_alias=True)``, and whatever the compiled reader builds must be the model pydantic's
``validate_json`` builds (same ``__dict__`` values and types, fields set, extras); where either
returns ``None`` the caller takes pydantic's path, so ``None`` is always allowed, but must be
rare on the plain shapes (else the speed-up is gone, silently).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ag_ui.core import (
    EventType,
    MessagesSnapshotEvent,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallResultEvent,
    parse_event,
)
from ag_ui.core import _json_plans as plans
from ag_ui.core.decoding import EVENT_ADAPTER
from ag_ui.core.events import Event
from ag_ui.encoder import EventEncoder, event_to_json
from tests.strategies import _for_field, json_values

# MESSAGES_SNAPSHOT's messages are models, which only pydantic writes and reads (the last test).
EVENT_CLASSES = sorted(
    (c for c in typing.get_args(typing.get_args(Event)[0]) if c is not MessagesSnapshotEvent),
    key=lambda c: c.__name__,
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _nested_models(cls: type, name: str) -> bool:
    """A field whose values are models (RUN_STARTED's input, RUN_FINISHED's outcome...)."""
    text = repr(cls.model_fields[name].annotation)
    return "ag_ui.core." in text and name not in ("delta", "patch")


def _instances(cls: Any) -> st.SearchStrategy[Any]:
    """Instances of ``cls`` whose nested-model fields are left unset: the compiled paths leave
    them to pydantic (test_what_the_compiled_paths_leave_to_pydantic), and their strategies
    draw invalid deprecated content now and then. TOOL_CALL_RESULT's content is a string."""
    fields = {
        name: st.text(max_size=12)
        if (cls, name) == (ToolCallResultEvent, "content")
        else (st.none() if _nested_models(cls, name) else _for_field(cls, name, info))
        for name, info in cls.model_fields.items()
    }
    return st.fixed_dictionaries(fields).map(lambda values: cls(**values))


def _reference_json(event: Any) -> bytes:
    return bytes(type(event).__pydantic_serializer__.to_json(event, by_alias=True))


def _same(left: Any, right: Any) -> bool:
    """Equal values of the same types all the way down (``==`` says True == 1 and 1 == 1.0)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, float):
        return repr(left) == repr(right)
    return bool(left == right)


def _same_model(left: Any, right: Any) -> bool:
    return (
        type(left) is type(right)
        and _same(left.__dict__, right.__dict__)
        and left.model_fields_set == right.model_fields_set
        and _same(left.__pydantic_extra__, right.__pydantic_extra__)
        and left.__pydantic_private__ == right.__pydantic_private__
    )


def _pydantic_event(data: bytes) -> Any:
    """pydantic's model for ``data``, or the exception it raises."""
    try:
        return EVENT_ADAPTER.validator.validate_json(data)
    except ValueError as exc:
        return exc


def test_the_compiled_module_is_built() -> None:
    # scripts/test installs with AG_UI_REQUIRE_SPEEDUPS=1; this catches a silent fallback.
    if os.environ.get("AG_UI_PURE_PYTHON") == "1":
        pytest.fail("AG_UI_PURE_PYTHON=1 is set: these tests are about the compiled paths")
    assert plans.IMPLEMENTATION == "c"
    assert plans.write_json(TextMessageContentEvent(message_id="m", delta="hi")) is not None


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.__name__)
@SETTINGS
@given(data=st.data())
def test_written_json_is_pydantics(cls: type, data: Any) -> None:
    event = data.draw(_instances(cls))
    extras = data.draw(
        st.dictionaries(
            st.sampled_from(
                ["x", "ü", 'q"'],
            ),
            json_values,
            max_size=2,
        )
    )
    for key, value in extras.items():
        setattr(event, key, value)
    written = plans.write_json(event)
    if written is not None:
        assert written == _reference_json(event)
        assert plans.write_sse_bytes(event) == b"data: " + written + b"\n\n"
        assert plans.write_sse_text(event) == "data: " + written.decode() + "\n\n"


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.__name__)
@SETTINGS
@given(data=st.data(), ascii_only=st.booleans())
def test_read_event_is_pydantics(cls: type, data: Any, ascii_only: bool) -> None:
    event = data.draw(_instances(cls))
    wire = json.loads(_reference_json(event))
    text = json.dumps(wire, separators=(",", ":"), ensure_ascii=ascii_only)
    for payload in (text, text.encode()):
        read = plans.read(payload)
        if read is not None:
            assert _same_model(read, EVENT_ADAPTER.validator.validate_json(payload))


# Edits of a valid wire event, each a case the reader must either refuse (None) or read as
# pydantic does; the invalid ones must be refused, so that pydantic names the problem.
_BASE = '{"type":"TEXT_MESSAGE_START","messageId":"m1"'
EDITS = [
    _BASE + "}",
    _BASE + ',"role":"user"}',
    _BASE + ',"role":"tool"}',  # not a TextMessageRole
    _BASE + ',"role":null}',
    _BASE + ',"messageId":"m2"}',  # twice
    _BASE + ',"message_id":"m2"}',  # by both names
    _BASE + ',"timestamp":12}',
    _BASE + ',"timestamp":-12}',
    _BASE + ',"timestamp":9007199254740992}',  # beyond the bound
    _BASE + ',"timestamp":1.0}',
    _BASE + ',"timestamp":1e3}',
    _BASE + ',"timestamp":"12"}',
    _BASE + ',"timestamp":true}',
    _BASE + ',"timestamp":012}',
    _BASE + ',"rawEvent":{"a":[1,2.5,-0.0,true,null,"x"],"b":{}}}',
    _BASE + ',"rawEvent":123456789012345678901234567890}',
    _BASE + ',"rawEvent":1.5e300}',
    _BASE + ',"rawEvent":{"a":1,"a":2}}',
    _BASE + ',"metadata":[]}',
    _BASE + ',"metadata":{"k":null}}',
    _BASE + ',"extra":"kept","other":[1,{"x":null}]}',
    _BASE + ',"extra":1,"extra":2}',
    _BASE + ',"d\\u00fcp":1}',  # an escape in a key
    _BASE + ',"name":"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude80"}',
    _BASE + ',"name":"\\ud83d"}',  # a lone surrogate
    _BASE + ',"name":"\\udc00\\ud83d"}',
    _BASE + ',"name":"\\x"}',
    _BASE + ',"name":"raw\ncontrol"}',
    _BASE + ',"name":"caf\xe9"}',
    _BASE + "} ",
    _BASE + "}x",
    _BASE + ",}",
    _BASE,
    '{"type":"TEXT_MESSAGE_START"}',  # the required messageId missing
    '{"type":"TEXT_MESSAGE_START","messageId":null}',
    '{"type":"TEXT_MESSAGE_START","messageId":1}',
    '{"type":"TEXT_MESSAGE_START","type":"TEXT_MESSAGE_END","messageId":"m"}',
    '{"type":"NOT_A_TYPE","messageId":"m"}',
    '{"type":"TEXT_MESSAGE_END","messageId":"m"}',
    '{"type":"STATE_SNAPSHOT","snapshot":null}',
    '{"type":"STATE_SNAPSHOT"}',
    '{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":{},"replace":false}',
    '{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":{},"replace":0}',
    '{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":[]}',
    '{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"x"}',
    '{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[]}',
    '{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}',
    '{"type":"RUN_STARTED","threadId":"t","runId":"r","input":null}',
    '{"type":"STATE_DELTA","delta":[]}',
    '{"type": "TEXT_MESSAGE_START", "messageId": "m1"}',
]


@pytest.mark.parametrize("text", EDITS)
def test_edited_wire_is_read_as_pydantic_reads_it(text: str) -> None:
    for payload in (text, text.encode("utf-8", "surrogatepass")):
        expected = _pydantic_event(payload)
        read = plans.read(payload)
        if isinstance(expected, Exception):
            assert read is None, (payload, expected)
        elif read is not None:
            assert _same_model(read, expected)


def test_the_plain_shapes_take_the_compiled_paths() -> None:
    # Not just allowed to be None: the streaming events and the usual optionals are carried.
    events = [
        TextMessageContentEvent(message_id="m", delta='é"\n\x01🚀', timestamp=5),
        TextMessageStartEvent(message_id="m", role="user", metadata={"k": [1.5, None]}),
        RunStartedEvent(thread_id="t", run_id="r"),
        StateSnapshotEvent(snapshot={"a": [1, 2.25, {"b": None}], "c": "d"}),
    ]
    for event in events:
        written = plans.write_json(event)
        assert written == _reference_json(event)
        read = plans.read(written)
        assert read is not None
        assert _same_model(read, parse_event(written))


def test_what_the_compiled_paths_leave_to_pydantic() -> None:
    # A lone surrogate (escaped by core/_surrogates.py), a float Python writes with an exponent,
    # an int beyond int64, a subclass: None here, and the encoder's bytes are pydantic's.
    class Mine(TextMessageContentEvent):
        pass

    cases = [
        TextMessageContentEvent(message_id="m", delta="\ud83d"),
        StateSnapshotEvent(snapshot=1e20),
        StateSnapshotEvent(snapshot=2**70),
        Mine(message_id="m", delta="x"),
    ]
    for event in cases:
        assert plans.write_json(event) is None
        assert event_to_json(event) == (
            b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\\ud83d"}'
            if event is cases[0]
            else _reference_json(event)
        )
    event = TextMessageContentEvent(message_id="m", delta="x")
    event.type = EventType.TEXT_MESSAGE_END  # assigned without validation
    assert plans.write_json(event) is None
    finished = parse_event(
        '{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}'
    )
    assert plans.write_json(finished) is None
    assert event_to_json(finished) == _reference_json(finished)
    snapshot = MessagesSnapshotEvent(messages=[{"id": "u", "role": "user", "content": "hi"}])
    assert plans.write_json(snapshot) is None
    assert plans.read(_reference_json(snapshot)) is None


def test_the_encoder_writes_the_compiled_bytes() -> None:
    event = TextMessageContentEvent(message_id="m", delta="hi")
    encoder = EventEncoder()
    assert (
        encoder.encode(event)
        == 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}\n\n'
    )
    assert encoder.encode_sse(event) == encoder.encode(event).encode()
    assert encoder.encode(event, event_id="7").startswith("id: 7\ndata: {")


def test_pure_python_gives_the_same_bytes_and_events() -> None:
    program = (
        "from ag_ui.core import _json_plans, parse_event, TextMessageContentEvent\n"
        "from ag_ui.encoder import EventEncoder\n"
        "e = TextMessageContentEvent(message_id='m', delta='hi')\n"
        "assert _json_plans.IMPLEMENTATION == 'python', _json_plans.IMPLEMENTATION\n"
        "assert _json_plans.write_json(e) is None and _json_plans.read(b'{}') is None\n"
        "print(EventEncoder().encode(e), end='')\n"
        "print(parse_event(EventEncoder().encode(e)[6:]) == e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "AG_UI_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out == 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}\n\nTrue\n'
