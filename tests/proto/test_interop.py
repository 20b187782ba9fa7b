"""Interop with the real peer: ``@ag-ui/proto@1.0.0`` from npm, driven by a Node script.

Both directions over one corpus covering every event type and field: Node decodes the frame
stream this package encoded, and encodes the events for this package to decode; each side's
result is compared, as wire JSON, with the events we started from.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ag_ui.core import parse_event
from ag_ui.core.events import EventType
from ag_ui.proto import FrameDecoder, MalformedFrameError, UnknownEventArmError, encode_frame
from tests.proto.proto_corpus import corpus
from tests.proto.proto_strategies import EVENTS, fields

INTEROP = Path(__file__).resolve().parent.parent / "interop"


def _run_peer(request: dict[str, Any]) -> tuple[dict[str, Any], str]:
    node = shutil.which("node")
    if node is None or not (INTEROP / "node_modules" / "@ag-ui" / "proto").is_dir():
        pytest.fail("node and tests/interop/node_modules are required (run scripts/test once)")
    done = subprocess.run(
        [node, str(INTEROP / "proto_peer.mjs")],
        input=json.dumps(request).encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout), done.stderr.decode()


def _ts_normalized(event: dict[str, Any]) -> dict[str, Any]:
    """The TypeScript decoder always materializes ``input.resume`` (``[]`` when none came)."""
    run_input = event.get("input")
    if (
        event.get("type") == "RUN_STARTED"
        and run_input is not None
        and run_input.get("resume") == []
    ):
        event = {**event, "input": {k: v for k, v in run_input.items() if k != "resume"}}
    return event


@pytest.fixture(scope="module")
def exchange() -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    events = [parse_event(item) for item in corpus()]
    wire = [event.model_dump(by_alias=True, mode="json") for event in events]
    stream = b"".join(encode_frame(event) for event in events)
    reply, stderr = _run_peer({"stream": base64.b64encode(stream).decode(), "events": wire})
    return wire, reply, stderr


def test_corpus_covers_every_event_type() -> None:
    assert {item["type"] for item in corpus()} == {member.value for member in EventType}


def test_typescript_decodes_our_frames(exchange: Any) -> None:
    wire, reply, _ = exchange
    assert [_ts_normalized(event) for event in reply["decoded"]] == wire


def test_we_decode_typescript_frames(exchange: Any) -> None:
    wire, reply, stderr = exchange
    assert reply["encodeErrors"] == []
    # TS validates each event before encoding and warns on a schema failure: none expected.
    assert "[ag-ui]" not in stderr
    decoder = FrameDecoder()
    events = decoder.feed(base64.b64decode(reply["encoded"]))
    assert decoder.close() == []
    assert [event.model_dump(by_alias=True, mode="json") for event in events] == wire


def test_unknown_arms_and_garbage_are_told_apart_like_typescript_does() -> None:
    future = bytes([0xC2, 0x02, 0x02, 0x08, 0x01])  # only envelope field 40: a newer event
    garbage = bytes([0x0A, 0x05, 0xFF, 0xFF])  # arm 1 declaring 5 bytes, 2 present
    stream = b"".join(len(m).to_bytes(4, "big") + m for m in (future, garbage))
    reply, _ = _run_peer({"stream": base64.b64encode(stream).decode(), "events": []})
    assert [item["__error__"] for item in reply["decoded"]] == [
        "AGUIUnknownEventTypeError",
        "Error",
    ]
    decoder = FrameDecoder()
    with pytest.raises(UnknownEventArmError) as unknown:
        decoder.feed(stream)
    assert (unknown.value.frame_index, unknown.value.field_numbers) == (0, (40,))
    with pytest.raises(MalformedFrameError) as malformed:
        decoder.feed(b"")
    assert (malformed.value.frame_index, malformed.value.field_path) == (1, "text_message_start")


def _as_doubles(value: Any) -> Any:
    """JSON with every number as a double: JavaScript prints large doubles in shortest form
    (6.8e16 as 68146781359702270), which Python reads back as an int of another value."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return [_as_doubles(item) for item in value]
    return {key: _as_doubles(item) for key, item in value.items()}


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a node call per shrink step: no
)
@given(data=st.data())
def test_random_events_interoperate_both_ways(data: Any) -> None:
    event_types = data.draw(st.lists(st.sampled_from(sorted(EVENTS)), min_size=40, max_size=40))
    wire = []
    for event_type in event_types:
        required, optional = EVENTS[event_type]
        item = data.draw(fields({"type": st.just(event_type), **required}, optional))
        if '"__proto__"' in json.dumps(item):
            continue  # JavaScript objects cannot hold that key (a TypeScript-side limitation)
        wire.append(parse_event(item).model_dump(by_alias=True, mode="json"))
    events = [parse_event(item) for item in wire]
    stream = b"".join(encode_frame(event) for event in events)
    reply, _ = _run_peer({"stream": base64.b64encode(stream).decode(), "events": wire})
    decoded = [_ts_normalized(event) for event in reply["decoded"]]
    assert _as_doubles(decoded) == _as_doubles(wire)
    assert reply["encodeErrors"] == []
    decoder = FrameDecoder()
    ours = decoder.feed(base64.b64decode(reply["encoded"])) + decoder.close()
    ours_wire = [event.model_dump(by_alias=True, mode="json") for event in ours]
    assert _as_doubles(ours_wire) == _as_doubles(wire)


def test_a_1_0_peer_decodes_our_1_1_frames_without_the_new_field() -> None:
    # @ag-ui/proto 1.0.0 has no encryptedValueType slots: it skips them as unknown fields and
    # decodes the rest of the event as it would a 1.0 one.
    typed = {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "tool-call",
        "entityId": "c1",
        "encryptedValue": "blob",
        "encryptedValueType": "openai.encrypted_content",
    }
    stream = encode_frame(parse_event(typed))
    reply, _ = _run_peer({"stream": base64.b64encode(stream).decode(), "events": []})
    assert reply["decoded"] == [{k: v for k, v in typed.items() if k != "encryptedValueType"}]
