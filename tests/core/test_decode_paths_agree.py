"""Property: one wire event decodes to the same model on every path a peer's bytes can take.

The paths: JSON text, UTF-8 bytes, the dict ``json.loads`` gives, the client's SSE decoder, a
JSON Lines recording, and, after this SDK writes the event again, its own JSON and protobuf.
Strings carry lone UTF-16 surrogates (``"\\ud83d"``, what ``JSON.stringify`` writes for a
string cut inside an emoji): a fuzzer once found 19 events the text and dict paths disagreed
on, because the text path refused them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ag_ui.client import SSEEventDecoder
from ag_ui.core import TextMessageContentEvent, parse_event
from ag_ui.core.events import Event
from ag_ui.encoder import EventEncoder, event_to_json
from ag_ui.proto import decode_event, encode_event
from ag_ui.recording import read_recording
from tests.proto.proto_strategies import EVENTS, fields
from tests.strategies import as_json_text, same_json, with_lone_surrogates


def _wire(event: Event) -> Any:
    return event.model_dump(by_alias=True, mode="json")


def _replaced(value: Any) -> Any:
    """What protobuf (UTF-8 strings) keeps of a value: each surrogate becomes U+FFFD."""
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, list):
        return [_replaced(v) for v in value]
    if isinstance(value, dict):
        return {_replaced(k): _replaced(v) for k, v in value.items()}
    return value


def _sse(data: bytes) -> Event:
    decoder = SSEEventDecoder()
    (event,) = decoder.feed(b"data: " + data + b"\n\n")
    return event  # type: ignore[return-value]


@pytest.mark.parametrize("event_type", sorted(EVENTS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), ascii_only=st.booleans())
def test_every_decode_path_gives_the_same_event(
    event_type: str, data: Any, ascii_only: bool
) -> None:
    required, optional = EVENTS[event_type]
    wire = data.draw(fields({"type": st.just(event_type), **required}, optional))
    wire = data.draw(with_lone_surrogates(wire))
    text = as_json_text(wire, ascii_only=ascii_only)
    from_text = parse_event(text)
    expected = _wire(from_text)
    paths = {
        "bytes": parse_event(text.encode()),
        "dict": parse_event(json.loads(text)),
        "sse": _sse(text.encode()),
        "json lines": read_recording((text + "\n").encode()).runs[0].events[0].event,
        "our json": parse_event(event_to_json(from_text)),
        "our sse": _sse(EventEncoder().encode_sse(from_text)[len(b"data: ") : -2]),
    }
    for name, event in paths.items():
        assert type(event) is type(from_text), name
        assert same_json(_wire(event), expected), name
    from_proto = decode_event(encode_event(from_text))
    assert type(from_proto) is type(from_text)
    assert same_json(_wire(from_proto), _replaced(expected))


def test_a_lone_surrogate_is_kept_on_the_json_paths_and_replaced_in_protobuf() -> None:
    text = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"cut \\ud83d"}'
    for data in (text, text.encode(), json.loads(text)):
        assert parse_event(data).delta == "cut \ud83d"
    assert _sse(text.encode()) == TextMessageContentEvent(message_id="m", delta="cut \ud83d")
    event = parse_event(text)
    assert event_to_json(event) == text.encode()
    assert EventEncoder().encode(event) == f"data: {text}\n\n"
    assert decode_event(encode_event(event)).delta == "cut \ufffd"


def test_not_json_stays_refused_on_the_fallback() -> None:
    # json.loads would take NaN; the fallback that reads lone surrogates must not.
    from ag_ui.core import MalformedJSONError

    bad = '{"type":"CUSTOM","name":"n","value":NaN,"x":"\\ud83d"}'
    for data in (bad, bad.encode()):
        with pytest.raises(MalformedJSONError):
            parse_event(data)
