"""SSE messages to events: indexes in errors, unknown types, legacy events, content types."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ag_ui.client import (
    ProtoEventDecoder,
    SSEEventDecoder,
    UnknownEventWarning,
    decoder_for_content_type,
)
from ag_ui.core import (
    AGUIValidationError,
    ContentTypeError,
    DecodeError,
    FrameTooLargeError,
    MalformedJSONError,
    RunStartedEvent,
    TextMessageContentEvent,
)
from ag_ui.core.legacy_events import ThinkingStartEvent
from tests.client.client_helpers import asgi_agent, frames, static_app

pytestmark = pytest.mark.anyio


def test_events_are_parsed_across_feeds() -> None:
    decoder = SSEEventDecoder()
    stream = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\r\n\r\n'
    stream += b'data: {"type":"TEXT_MESSAGE_CONTENT",\ndata: "messageId":"m","delta":"x"}\n\n'
    events = [e for i in range(len(stream)) for e in decoder.feed(stream[i : i + 1])]
    assert events == [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageContentEvent(message_id="m", delta="x"),
    ]
    assert decoder.events_decoded == 2


def test_an_invalid_event_names_its_index_and_the_field() -> None:
    decoder = SSEEventDecoder()
    decoder.feed(b': hi\n\ndata: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n')
    with pytest.raises(DecodeError) as info:
        decoder.feed(b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":5,"delta":"x"}\n\n')
    assert info.value.frame_index == 1
    cause = info.value.__cause__
    assert isinstance(cause, AGUIValidationError)
    assert not isinstance(cause, MalformedJSONError)
    assert any("messageId" in problem for problem in cause.problems)


def test_unknown_types_are_skipped_and_counted_and_legacy_types_kept() -> None:
    decoder = SSEEventDecoder()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        events = decoder.feed(
            b'data: {"type":"NEW_THING"}\n\ndata: {"type":"THINKING_START","title":"t"}\n\n'
        )
    assert events == [ThinkingStartEvent(title="t")]
    assert decoder.skipped_unknown == 1
    assert [w.category for w in caught] == [UnknownEventWarning]


@pytest.mark.parametrize(
    ("content_type", "decoder_class"),
    [
        ("text/event-stream", SSEEventDecoder),
        ("Text/Event-Stream; charset=utf-8", SSEEventDecoder),
        ("application/vnd.ag-ui.event+proto", ProtoEventDecoder),
    ],
)
def test_decoder_is_chosen_by_media_type(content_type: str, decoder_class: type) -> None:
    assert isinstance(decoder_for_content_type(content_type), decoder_class)


@pytest.mark.parametrize("content_type", [None, "", "application/json", "text/html"])
def test_other_media_types_are_refused(content_type: str | None) -> None:
    with pytest.raises(ContentTypeError) as info:
        decoder_for_content_type(content_type, snippet="<html>")
    assert info.value.content_type == (content_type or "")
    assert info.value.snippet == "<html>"


async def test_max_event_size_bounds_a_single_event_through_the_agent() -> None:
    body = frames(
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "CUSTOM", "name": "big", "value": "x" * 5000},
    )
    with pytest.raises(FrameTooLargeError) as info:
        await asgi_agent(static_app(body), max_event_size=1000).run_agent()
    assert (info.value.frame_index, info.value.limit) == (1, 1000)


_EVENTS = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Grüße 🚀 \\n new line"},
    {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": [1, None]}]},
    {"type": "CUSTOM", "name": "c", "value": {"deep": {"x": "y"}}},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": 1},
]


@given(
    ending=st.sampled_from(["\n", "\r", "\r\n"]),
    comments=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=1000), max_size=12),
)
def test_property_events_survive_any_line_ending_and_chunking(
    ending: str, comments: bool, cuts: list[int]
) -> None:
    import json

    from ag_ui.core import parse_event

    text = ""
    for event in _EVENTS:
        if comments:
            text += f": keepalive{ending}{ending}"
        text += f"data: {json.dumps(event, ensure_ascii=False)}{ending}{ending}"
    stream = text.encode()
    points = sorted({min(c, len(stream)) for c in cuts})
    decoder = SSEEventDecoder()
    decoded = []
    for start, end in zip([0, *points], [*points, len(stream)], strict=True):
        decoded.extend(decoder.feed(stream[start:end]))
    decoded.extend(decoder.close())
    assert decoded == [parse_event(e) for e in _EVENTS]


def test_invalid_utf8_in_an_event_is_replaced_as_sse_says() -> None:
    decoder = SSEEventDecoder()
    wire = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\xffb"}\n\n'
    [event] = decoder.feed(wire)
    assert event.delta == "a\ufffdb"  # type: ignore[union-attr]
    with pytest.raises(DecodeError) as caught:
        decoder.feed(b"data: {\xff\n\n")
    assert "event 1 is not JSON" in str(caught.value)
    assert str(caught.value).endswith("'{\ufffd')")  # the snippet shows the replaced text


def test_events_before_an_invalid_one_in_the_same_chunk_come_out_first() -> None:
    # One chunk, a good event then a bad one: the good one is handed out, the next call raises
    # (the TypeScript client delivers RUN_STARTED before rejecting what follows it).
    decoder = SSEEventDecoder()
    chunk = frames(
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": [1]},
    )
    (event,) = decoder.feed(chunk)
    assert event.type.value == "RUN_STARTED"
    with pytest.raises(DecodeError, match="event 1 is invalid") as caught:
        decoder.close()
    assert caught.value.frame_index == 1
    assert decoder.close() == []  # raised once


async def test_the_client_delivers_the_events_before_an_invalid_one() -> None:
    body = frames(
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": [1]},
    )
    agent = asgi_agent(static_app(body))
    seen: list[str] = []

    async def consume() -> None:
        async with agent.stream() as events:
            async for event in events:
                seen.append(event.type.value)

    with pytest.raises(DecodeError, match="expected object, received array"):
        await consume()
    assert seen == ["RUN_STARTED"]


def test_nan_in_a_streamed_event_stops_the_stream_as_json_parse_does() -> None:
    # The TypeScript client's JSON.parse refuses NaN/Infinity; pydantic-core's parser would
    # read them as floats, so the decoder refuses them itself, naming why.
    decoder = SSEEventDecoder()
    wire = (
        b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
        b'data: {"type":"STATE_SNAPSHOT","snapshot":{"temperature":NaN}}\n\n'
    )
    [started] = decoder.feed(wire)
    assert started.type == "RUN_STARTED"
    with pytest.raises(DecodeError) as caught:
        decoder.close()
    assert "event 1 is not JSON" in str(caught.value)
    assert "NaN, Infinity and -Infinity are not JSON" in str(caught.value)
