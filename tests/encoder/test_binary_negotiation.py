"""``EventEncoder`` with the protobuf codec installed: Accept negotiation (DESIGN §4) and
``encode_binary`` output."""

from __future__ import annotations

from typing import Optional

import pytest

from ag_ui.core import TextMessageContentEvent
from ag_ui.encoder import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE, EventEncoder
from ag_ui.proto import FrameDecoder, encode_frame

PROTO = AGUI_MEDIA_TYPE
SSE = SSE_MEDIA_TYPE
EVENT = TextMessageContentEvent(message_id="m", delta="hi")


@pytest.mark.parametrize(
    ("accept", "chosen"),
    [
        (None, SSE),
        ("", SSE),
        ("text/event-stream", SSE),
        ("application/json", SSE),
        ("application/vnd.ag-ui.event+proto", PROTO),
        ("APPLICATION/VND.AG-UI.EVENT+PROTO", PROTO),
        # Wildcards never pick the binary format (the TypeScript encoder does; curl breaks).
        ("*/*", SSE),
        ("application/*", SSE),
        # Protobuf only when it has the highest q; a tie goes to SSE.
        ("application/vnd.ag-ui.event+proto, text/event-stream", SSE),
        ("application/vnd.ag-ui.event+proto;q=0.1, text/event-stream", SSE),
        ("text/event-stream, application/vnd.ag-ui.event+proto;q=0", SSE),
        ("application/vnd.ag-ui.event+proto, text/event-stream;q=0.5", PROTO),
        ("application/vnd.ag-ui.event+proto, */*;q=0.1", PROTO),
        ("text/*;q=0.5, application/vnd.ag-ui.event+proto;q=0.9", PROTO),
        ("text/*;q=0.5, application/vnd.ag-ui.event+proto;q=0.4", SSE),
        ("application/vnd.ag-ui.event+proto;q=0", SSE),
    ],
)
def test_negotiation_table(accept: Optional[str], chosen: str) -> None:
    encoder = EventEncoder(accept=accept)
    assert encoder.get_binary_content_type() == chosen
    # encode() is always SSE text, so its Content-Type never follows the negotiation.
    assert encoder.get_content_type() == SSE
    assert encoder.is_protobuf is (chosen == PROTO)


def test_encode_binary_writes_proto_frames_when_negotiated() -> None:
    encoder = EventEncoder(accept=PROTO)
    frame = encoder.encode_binary(EVENT)
    assert frame == encode_frame(EVENT) == bytes.fromhex("0000000d120b0a02080112016d1a026869")
    assert FrameDecoder().feed(frame) == [EVENT]


def test_encode_binary_takes_a_wire_dict_too() -> None:
    encoder = EventEncoder(accept=PROTO)
    frame = encoder.encode_binary({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"})
    assert frame == encode_frame(EVENT)


def test_encode_stays_sse_text_and_keepalives_are_empty_for_protobuf() -> None:
    encoder = EventEncoder(accept=PROTO)
    assert (
        encoder.encode(EVENT)
        == 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}\n\n'
    )
    assert encoder.encode_keepalive() == b""


def test_encode_binary_is_sse_bytes_otherwise() -> None:
    encoder = EventEncoder(accept="text/event-stream")
    assert encoder.encode_binary(EVENT) == (
        b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}\n\n'
    )
