"""``agui convert``: JSON Lines, SSE and protobuf frames into each other, with bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ag_ui.cli import main
from ag_ui.core import parse_event
from ag_ui.encoder import event_to_json, sse_frame
from ag_ui.proto import encode_frame
from tests.proto.proto_corpus import corpus

EVENTS = [parse_event(item) for item in corpus()]
JSONL = b"".join(event_to_json(event) + b"\n" for event in EVENTS)
SSE = b"".join(sse_frame(event_to_json(event)) for event in EVENTS)
PROTO = b"".join(encode_frame(event) for event in EVENTS)
WIRE = [event.model_dump(by_alias=True, mode="json") for event in EVENTS]


def _convert(tmp_path: Path, data: bytes, *args: str) -> tuple[int, bytes]:
    source, target = tmp_path / "in", tmp_path / "out"
    source.write_bytes(data)
    code = main(["convert", str(source), *args, "-o", str(target)])
    return code, target.read_bytes() if target.exists() else b""


def _json_lines(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.splitlines()]


@pytest.mark.parametrize("source", [JSONL, SSE, PROTO], ids=["jsonl", "sse", "proto"])
def test_every_format_converts_to_every_format(tmp_path: Path, source: bytes) -> None:
    assert _convert(tmp_path, source, "--to", "proto") == (0, PROTO)
    code, jsonl = _convert(tmp_path, source, "--to", "jsonl")
    # Struct keys may come back from protobuf in another order: compare as JSON.
    assert (code, _json_lines(jsonl)) == (0, WIRE)
    code, sse = _convert(tmp_path, source, "--to", "sse")
    assert code == 0
    assert _json_lines(sse.replace(b"data: ", b"").replace(b"\n\n", b"\n")) == WIRE
    if source is not PROTO:
        assert (jsonl, sse) == (JSONL, SSE)


def test_from_overrides_detection_and_stdin_works(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"  " + JSONL)))
    assert main(["convert", "-", "--from", "jsonl", "--to", "sse"]) == 0
    assert capsysbinary.readouterr().out == SSE


def test_sse_with_comments_crlf_and_multiline_data(tmp_path: Path) -> None:
    recorded = (
        b": keepalive\r\n\r\n"
        b'id: 7\r\ndata: {"type":"STEP_STARTED",\r\ndata: "stepName":"s"}\r\n\r\n'
    )
    assert _convert(tmp_path, recorded, "--to", "jsonl") == (
        0,
        b'{"type":"STEP_STARTED","stepName":"s"}\n',
    )


def test_empty_input_gives_empty_output(tmp_path: Path) -> None:
    assert _convert(tmp_path, b"", "--to", "proto") == (0, b"")


def test_refuses_binary_output_to_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "in").write_bytes(JSONL)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert main(["convert", str(tmp_path / "in"), "--to", "proto"]) == 2
    assert "refusing to write binary protobuf frames to a terminal" in capsys.readouterr().err


def test_binary_output_to_a_pipe(tmp_path: Path) -> None:
    (tmp_path / "in").write_bytes(JSONL)
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "convert", str(tmp_path / "in"), "--to", "proto"],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == PROTO


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (PROTO[:-3], "agui convert: frame 71: the stream ended mid-frame"),
        (b"\x00\x00\x00\x02\xff\xff", "agui convert: frame 0: truncated varint"),
        (JSONL.split(b"\n")[0] + b"\n{not json}\n", "agui convert: frame 1: line 2: invalid event"),
        (b"hello", "agui convert: cannot tell the input format from its first bytes b'hello'"),
        (
            b'data: {"type":"STEP_STARTED"}\n\n',
            "agui convert: frame 0: SSE event 0: invalid STEP_STARTED event",
        ),
    ],
    ids=["truncated-proto", "garbage-proto", "bad-json-line", "undetectable", "invalid-sse-event"],
)
def test_bad_input_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, message: str
) -> None:
    code, _ = _convert(tmp_path, data, "--to", "jsonl")
    assert code == 1
    assert capsys.readouterr().err.startswith(message)


def test_unknown_events_are_skipped_with_a_warning_or_fail_with_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    future = bytes([0x00, 0x00, 0x00, 0x03, 0xC2, 0x02, 0x00])  # envelope arm 40
    first, second = encode_frame(EVENTS[0]), encode_frame(EVENTS[3])
    code, out = _convert(tmp_path, first + future + second, "--to", "jsonl")
    assert (code, _json_lines(out)) == (0, [WIRE[0], WIRE[3]])
    assert "skipped an event: frame 1: the envelope carries only unknown event arm(s) 40" in (
        capsys.readouterr().err
    )
    code, _ = _convert(tmp_path, b'{"type":"FUTURE_EVENT"}\n', "--to", "jsonl", "--strict")
    assert code == 1
    assert 'unknown event type "FUTURE_EVENT"' in capsys.readouterr().err


def test_legacy_thinking_event_converts_to_text_formats_but_not_protobuf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    legacy = b'{"type":"THINKING_START","title":"t"}\n'
    assert _convert(tmp_path, legacy, "--to", "sse") == (0, b"data: " + legacy[:-1] + b"\n\n")
    assert _convert(tmp_path, legacy, "--to", "proto")[0] == 1
    assert "THINKING_START has no protobuf form" in capsys.readouterr().err
