"""ag_ui.recording: the four recording formats read alike; timed recordings round-trip."""

from __future__ import annotations

import doctest

import pytest

import ag_ui.recording
from ag_ui.core import RunAgentInput, RunStartedEvent, TextMessageContentEvent
from ag_ui.core.errors import DecodeError
from ag_ui.encoder import EventEncoder
from ag_ui.recording import (
    detect_format,
    encode_event_line,
    encode_header,
    encode_input_line,
    read_events,
    read_recording,
)

EVENTS = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "line\u2028sep\u2029para"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def _jsonl() -> bytes:
    return b"".join(
        encode_event_line(event, at=0)[len(b'{"at":0,"event":') : -2] + b"\n" for event in EVENTS
    )


def _sse() -> bytes:
    return b"".join(EventEncoder().encode_sse(event) for event in EVENTS)


def _proto() -> bytes:
    encoder = EventEncoder(accept="application/vnd.ag-ui.event+proto")
    return b"".join(encoder.encode_binary(event) for event in EVENTS)


def _timed() -> bytes:
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        state=None,
        messages=[],
        tools=[],
        context=[],
        forwarded_props=None,
    )
    return (
        encode_header(source="http://127.0.0.1:8000/agent", transport="sse")
        + encode_input_line(run_input, at=0.0)
        + b"".join(encode_event_line(event, at=0.5 * i) for i, event in enumerate(EVENTS))
    )


@pytest.mark.parametrize(
    ("data", "fmt"),
    [(_jsonl, "jsonl"), (_sse, "sse"), (_proto, "proto"), (_timed, "jsonl")],
    ids=["jsonl", "sse", "proto", "timed-jsonl"],
)
def test_every_format_reads_the_same_events(data: object, fmt: str) -> None:
    raw = data()  # type: ignore[operator]
    assert detect_format(raw) == fmt
    recording = read_recording(raw)
    dumped = [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in recording.events]
    assert dumped == EVENTS
    assert [e.model_dump() for e in read_events(raw, recording.format, skipped=[])] == [
        e.model_dump() for e in recording.events
    ]


def test_timed_recording_keeps_header_input_and_times() -> None:
    recording = read_recording(_timed())
    assert recording.header == {
        "aguiRecording": 1,
        "source": "http://127.0.0.1:8000/agent",
        "transport": "sse",
    }
    assert len(recording.runs) == 1
    run = recording.runs[0]
    assert run.input is not None
    assert run.input.thread_id == "t"
    assert run.at == 0.0
    assert [e.at for e in run.events] == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert recording.timed


def test_each_input_line_starts_a_run() -> None:
    body = {"threadId": "t", "runId": "r1", "messages": []}
    data = (
        encode_input_line(body, at=0)
        + encode_event_line(RunStartedEvent(thread_id="t", run_id="r1"), at=0.1)
        + encode_input_line({**body, "runId": "r2"}, at=1)
        + encode_event_line(TextMessageContentEvent(message_id="m", delta="x"), at=1.1)
    )
    recording = read_recording(data)
    assert [run.input.run_id for run in recording.runs if run.input] == ["r1", "r2"]
    assert [len(run.events) for run in recording.runs] == [1, 1]


def test_plain_lines_are_untimed_and_unknown_types_are_skipped() -> None:
    recording = read_recording(_jsonl() + b'{"type":"FROM_THE_FUTURE"}\n\n')
    assert not recording.timed
    assert len(recording.events) == len(EVENTS)
    assert [exc.event_type for exc in recording.skipped] == ["FROM_THE_FUTURE"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the recording is empty"),
        (b"hello", "cannot tell the input format"),
        (
            b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n{"aguiRecording":1}\n',
            "line 2: a recording header may only be the first line",
        ),
        (b'{"at":NaN,"event":{"type":"RUN_STARTED","threadId":"t","runId":"r"}}\n', "line 1"),
        (
            b'{"at":-1,"event":{"type":"RUN_STARTED","threadId":"t","runId":"r"}}\n',
            "'at' must be a number of seconds >= 0",
        ),
        (b'{"at":1}\n', "neither an event"),
        (
            b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n[1]\n',
            "line 2: expected a JSON object",
        ),
        (b'{"at":0,"input":{"threadId":"t"}}\n', "line 1: the run's input is invalid"),
        (
            b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}\n',
            "line 1: invalid TEXT_MESSAGE_CONTENT event",
        ),
    ],
    ids=[
        "empty",
        "undetectable",
        "late-header",
        "nan",
        "negative-time",
        "no-event",
        "not-object",
        "bad-input",
        "bad-event",
    ],
)
def test_broken_recordings_name_the_line(data: bytes, message: str) -> None:
    with pytest.raises(DecodeError) as caught:
        read_recording(data)
    assert message in str(caught.value)


def test_doctests() -> None:
    result = doctest.testmod(ag_ui.recording)
    assert result.attempted > 0
    assert result.failed == 0


def test_a_lone_surrogate_is_recorded_as_its_escape_and_read_back() -> None:
    # A message cut inside an emoji: json.loads gives "\ud83d", which has no UTF-8 form.
    message = {"id": "a", "role": "assistant", "content": "cut \ud83d"}
    data = encode_input_line({"threadId": "t", "runId": "r", "messages": [message]}, at=0.0)
    data += encode_event_line(
        {"type": "CUSTOM", "name": "cut", "value": "\ud83d", "timestamp": 1}, at=0.5
    )
    assert b'"cut \\ud83d"' in data
    (run,) = read_recording(data).runs
    assert run.input is not None
    assert run.input.messages[0].content == "cut \ud83d"
    assert run.events[0].event.value == "\ud83d"  # type: ignore[union-attr]
