"""The WHATWG SSE decoder: line endings, chunk boundaries, fields, BOM, size bound."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ag_ui.core.errors import FrameTooLargeError
from ag_ui.encoder import SSEDecoder, SSEMessage

STREAM_LF = (
    b": hello\n"
    b"data: one\n"
    b"\n"
    b"event: custom\n"
    b"id: 42\n"
    b"retry: 1500\n"
    b"data: two-a\n"
    b"data:two-b\n"
    b"data:  three spaces keep one\n"
    b"\n"
    b"data\n"
    b"\n"
    b"id\n"
    b"data: after-empty-id\n"
    b"\n"
    b"data: caf\xc3\xa9 \xe2\x9c\x93\n"
    b"\n"
)

EXPECTED = [
    SSEMessage("one"),
    SSEMessage("two-a\ntwo-b\n three spaces keep one", "custom", "42", 1500),
    SSEMessage("", "message", "42"),
    SSEMessage("after-empty-id", "message", ""),
    SSEMessage("caf\u00e9 \u2713", "message", ""),
]


def decode_all(chunks: list[bytes], decoder: SSEDecoder | None = None) -> list[SSEMessage]:
    decoder = decoder or SSEDecoder()
    out: list[SSEMessage] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out


@pytest.mark.parametrize("ending", [b"\n", b"\r", b"\r\n"], ids=["LF", "CR", "CRLF"])
def test_each_line_ending_gives_the_same_messages(ending: bytes) -> None:
    assert decode_all([STREAM_LF.replace(b"\n", ending)]) == EXPECTED


@pytest.mark.parametrize("ending", [b"\n", b"\r", b"\r\n"], ids=["LF", "CR", "CRLF"])
def test_split_at_every_byte_boundary(ending: bytes) -> None:
    stream = STREAM_LF.replace(b"\n", ending)
    for cut in range(len(stream) + 1):
        assert decode_all([stream[:cut], stream[cut:]]) == EXPECTED, cut


@pytest.mark.parametrize("ending", [b"\n", b"\r", b"\r\n"], ids=["LF", "CR", "CRLF"])
def test_one_byte_at_a_time(ending: bytes) -> None:
    stream = STREAM_LF.replace(b"\n", ending)
    assert decode_all([stream[i : i + 1] for i in range(len(stream))]) == EXPECTED


def test_mixed_line_endings_in_one_stream() -> None:
    assert decode_all([b"data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r"]) == [
        SSEMessage("a\nb\nc"),
        SSEMessage("d"),
    ]


def test_crlf_split_across_feeds_counts_as_one_line_break() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    # If the LF were a second line break the message would be dispatched here.
    assert decoder.feed(b"\ndata: b\r") == []
    assert decoder.feed(b"\n\r\n") == [SSEMessage("a\nb")]


def test_comments_are_ignored_and_counted() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b": keepalive\n\n:\n\n: x\ndata: y\n\n") == [SSEMessage("y")]
    assert decoder.comments_seen == 3


def test_leading_bom_is_skipped_once_even_when_split() -> None:
    bom = b"\xef\xbb\xbf"
    assert decode_all([bom[:1], bom[1:2], bom[2:] + b"data: x\n\n"]) == [SSEMessage("x")]
    # A second BOM is not at the start of the stream, so it is part of the field name.
    assert decode_all([bom + bom + b"data: x\n\n"]) == []


def test_id_with_nul_is_ignored_and_invalid_retry_is_ignored() -> None:
    decoder = SSEDecoder()
    messages = decode_all([b"id: 1\n\nid: 2\x003\nretry: 12a\ndata: x\n\n"], decoder)
    assert messages == [SSEMessage("x", "message", "1", None)]
    assert decoder.last_event_id == "1"
    assert decoder.reconnection_time is None


def test_unknown_fields_are_ignored_and_empty_event_name_means_message() -> None:
    assert decode_all([b"foo: bar\nevent:\ndata: x\n\n"]) == [SSEMessage("x")]


def test_message_without_blank_line_is_dispatched_at_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b'data: {"a":1}') == []
    assert decoder.close() == [SSEMessage('{"a":1}')]
    assert decoder.close() == []


def test_invalid_utf8_becomes_replacement_character() -> None:
    assert decode_all([b"data: \xff\n\n"]) == [SSEMessage("\ufffd")]


def test_huge_event_within_the_limit_in_small_chunks() -> None:
    payload = b"x" * 3_000_000
    stream = b"data: " + payload + b"\n\n"
    chunks = [stream[i : i + 4096] for i in range(0, len(stream), 4096)]
    decoder = SSEDecoder(max_event_size=4_000_000)
    assert decode_all(chunks, decoder) == [SSEMessage(payload.decode())]
    assert decoder.buffered_bytes == 0


def test_event_over_the_limit_raises_with_its_index_before_buffering_it_all() -> None:
    decoder = SSEDecoder(max_event_size=1000)
    assert decoder.feed(b"data: small\n\n") == [SSEMessage("small")]
    decoder.feed(b"data: " + b"y" * 500)
    with pytest.raises(FrameTooLargeError) as info:
        decoder.feed(b"y" * 600)
    assert (info.value.frame_index, info.value.limit) == (1, 1000)
    assert info.value.size > 1000


def test_many_data_lines_over_the_limit_raise() -> None:
    decoder = SSEDecoder(max_event_size=100)
    with pytest.raises(FrameTooLargeError) as info:
        decoder.feed(b"data: 0123456789\n" * 20)
    assert info.value.frame_index == 0


_text = st.text(
    alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]), max_size=30
)


@given(
    messages=st.lists(st.lists(_text, min_size=1, max_size=3), max_size=6),
    ending=st.sampled_from(["\n", "\r", "\r\n"]),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=8),
)
def test_property_any_messages_any_ending_any_chunking(
    messages: list[list[str]], ending: str, cuts: list[int]
) -> None:
    text = "".join(
        "".join(f"data: {line}{ending}" for line in lines) + ending for lines in messages
    )
    stream = text.encode()
    points = sorted({min(c, len(stream)) for c in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    assert decode_all(chunks) == [SSEMessage("\n".join(lines)) for lines in messages]


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM_LF)), max_size=8))
def test_payloads_are_the_messages_data_and_ids_undecoded(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    bounds = zip([0, *points], [*points, len(STREAM_LF)], strict=True)
    pieces = [STREAM_LF[a:b] for a, b in bounds]
    decoder = SSEDecoder()
    payloads = [p for piece in pieces for p in decoder.feed_payloads(piece)]
    payloads += decoder.close_payloads()
    assert payloads == [(m.data.encode(), m.id) for m in EXPECTED]
