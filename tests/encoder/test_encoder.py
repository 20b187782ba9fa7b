"""EventEncoder: SSE frames, dict input, ids, keepalives, and Accept negotiation."""

from __future__ import annotations

import pytest

from ag_ui.core import (
    AGUIValidationError,
    EncodingError,
    RunFinishedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
)
from ag_ui.core.legacy_events import ThinkingTextMessageContentEvent
from ag_ui.encoder import (
    AGUI_MEDIA_TYPE,
    SSE_MEDIA_TYPE,
    EventEncoder,
    negotiate_media_type,
    parse_accept,
    sse_comment,
)


def test_encode_gives_one_sse_frame() -> None:
    frame = EventEncoder().encode(TextMessageContentEvent(message_id="m1", delta="hé\n"))
    assert frame == 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hé\\n"}\n\n'


def test_bytes_output_is_the_utf8_of_the_text() -> None:
    event = TextMessageContentEvent(message_id="m1", delta="✓")
    encoder = EventEncoder()
    assert encoder.encode_sse(event) == encoder.encode(event).encode()
    assert encoder.encode_binary(event) == encoder.encode(event).encode()


def test_encode_accepts_a_plain_dict_validated_into_its_event() -> None:
    frame = EventEncoder().encode({"type": "RUN_FINISHED", "threadId": "t", "run_id": "r"})
    assert frame == EventEncoder().encode(RunFinishedEvent(thread_id="t", run_id="r"))


def test_encode_rejects_bad_dicts_and_other_objects() -> None:
    with pytest.raises(AGUIValidationError):
        EventEncoder().encode({"type": "RUN_FINISHED"})
    for not_an_event in (42, "data: x", ["RUN_STARTED"], object()):
        with pytest.raises(TypeError):
            EventEncoder().encode(not_an_event)  # type: ignore[arg-type]
        with pytest.raises(EncodingError):
            EventEncoder().encode(not_an_event)  # type: ignore[arg-type]


def test_legacy_events_encode_when_asked() -> None:
    frame = EventEncoder().encode(ThinkingTextMessageContentEvent(delta="hm"))
    assert frame == 'data: {"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hm"}\n\n'


def test_optional_id_line() -> None:
    frame = EventEncoder().encode(StateSnapshotEvent(snapshot=None), event_id="run-1:7")
    assert frame == 'id: run-1:7\ndata: {"type":"STATE_SNAPSHOT","snapshot":null}\n\n'


@pytest.mark.parametrize("bad_id", ["a\nb", "a\rb", "a\0b"])
def test_ids_with_line_breaks_are_refused(bad_id: str) -> None:
    with pytest.raises(EncodingError):
        EventEncoder().encode(StateSnapshotEvent(snapshot=1), event_id=bad_id)


def test_keepalive_comment() -> None:
    assert EventEncoder().encode_keepalive() == b": keepalive\n\n"
    assert sse_comment("ping") == b": ping\n\n"
    with pytest.raises(EncodingError):
        sse_comment("two\nlines")


def test_content_type_is_sse_by_default() -> None:
    assert EventEncoder().get_content_type() == SSE_MEDIA_TYPE
    assert EventEncoder(accept="text/event-stream").get_content_type() == SSE_MEDIA_TYPE
    assert EventEncoder(accept="*/*").get_content_type() == SSE_MEDIA_TYPE


NEGOTIATION = [
    (None, SSE_MEDIA_TYPE),
    ("", SSE_MEDIA_TYPE),
    ("text/event-stream", SSE_MEDIA_TYPE),
    ("application/json", SSE_MEDIA_TYPE),
    ("*/*", SSE_MEDIA_TYPE),
    ("application/*", SSE_MEDIA_TYPE),
    (AGUI_MEDIA_TYPE, AGUI_MEDIA_TYPE),
    (AGUI_MEDIA_TYPE.upper(), AGUI_MEDIA_TYPE),
    (f"{AGUI_MEDIA_TYPE}, text/event-stream", SSE_MEDIA_TYPE),  # a tie chooses SSE
    (f"{AGUI_MEDIA_TYPE}, text/event-stream;q=0.9", AGUI_MEDIA_TYPE),
    (f"{AGUI_MEDIA_TYPE};q=0.1, text/event-stream", SSE_MEDIA_TYPE),
    (f"text/event-stream, {AGUI_MEDIA_TYPE};q=0", SSE_MEDIA_TYPE),
    (f"{AGUI_MEDIA_TYPE};q=0.5, */*;q=0.1", AGUI_MEDIA_TYPE),
    (f"{AGUI_MEDIA_TYPE};q=0.5, text/*;q=0.8", SSE_MEDIA_TYPE),
    (f'{AGUI_MEDIA_TYPE};q=0.9;x="a,b", text/event-stream;q=0.2', AGUI_MEDIA_TYPE),
    (f"{AGUI_MEDIA_TYPE};q=oops", SSE_MEDIA_TYPE),
    ("garbage, ;;;", SSE_MEDIA_TYPE),
]


@pytest.mark.parametrize(("accept", "expected"), NEGOTIATION)
def test_negotiation_table(accept: str | None, expected: str) -> None:
    assert negotiate_media_type(accept, protobuf_available=True) == expected


def test_negotiation_never_picks_protobuf_when_unavailable() -> None:
    assert negotiate_media_type(AGUI_MEDIA_TYPE, protobuf_available=False) == SSE_MEDIA_TYPE


def test_parse_accept() -> None:
    assert parse_accept('Text/Event-Stream;q=0.5, a/b;v="1,2";q=2, nonsense') == [
        ("text/event-stream", 0.5),
        ("a/b", 1.0),
    ]
