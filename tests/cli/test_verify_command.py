"""``agui verify FILE [--output json]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ag_ui.cli import main
from ag_ui.cli.verify import verify_text

LEGAL = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hel"},
    {"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"},
    {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]
MESSAGES = [{"id": "m1", "role": "assistant", "content": "Hello"}]


def write_jsonl(path: Path, events: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def write_sse(path: Path, events: list[dict[str, object]]) -> Path:
    frames = [": keepalive\n\n"] + [
        f"id: {i}\ndata: {json.dumps(e)}\n\n" for i, e in enumerate(events)
    ]
    path.write_text("".join(frames), encoding="utf-8")
    return path


def run_json(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, object]:
    code = main(["verify", str(path), "--output", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("writer", [write_jsonl, write_sse])
def test_legal_recording(
    writer: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = writer(tmp_path / "rec", LEGAL)  # type: ignore[operator]
    assert run_json(path, capsys) == (
        0,
        {"ok": True, "error": None, "messages": MESSAGES, "state": {"a": 1}},
    )


def test_violation_names_the_event_and_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [*LEGAL[:2], {"type": "TEXT_MESSAGE_END", "messageId": "zz"}]
    code, report = run_json(write_jsonl(tmp_path / "bad.jsonl", events), capsys)
    assert code == 1
    assert report == {
        "ok": False,
        "error": report["error"],  # type: ignore[index]
        "messages": [{"id": "m1", "role": "assistant", "content": "Hel"}],
        "state": None,
    }
    assert report["error"].startswith("event 3 (line 3): [T3] ")  # type: ignore[index]


def test_truncated_and_malformed_recordings_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run_json(write_jsonl(tmp_path / "cut.jsonl", LEGAL[:3]), capsys)
    assert (code, report["ok"]) == (1, False)  # type: ignore[index]
    assert report["error"].startswith("end of stream: [END] ")  # type: ignore[index]
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n{not json\n')
    code, report = run_json(broken, capsys)
    assert (code, report["ok"], report["messages"]) == (1, False, [])  # type: ignore[index]
    assert report["error"].startswith("event 2 (line 2): ")  # type: ignore[index]


def test_readable_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(write_jsonl(tmp_path / "ok.jsonl", LEGAL))]) == 0
    assert capsys.readouterr().out == (
        "OK: 5 events (7 after chunk expansion)\n"
        "messages (1):\n"
        '  [assistant] m1 "Hello"\n'
        'state: {"a": 1}\n'
    )


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "nope")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_real_command_line_reads_stdin(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "verify", "-", "--output", "json"],
        input="".join(json.dumps(e) + "\n" for e in LEGAL),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "ok": True,
        "error": None,
        "messages": MESSAGES,
        "state": {"a": 1},
    }


def test_unknown_event_types_are_skipped_like_typescript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [LEGAL[0], {"type": "FUTURE_EVENT", "x": 1}, *LEGAL[1:]]
    path = write_jsonl(tmp_path / "future.jsonl", events)
    assert run_json(path, capsys) == (
        0,
        {"ok": True, "error": None, "messages": MESSAGES, "state": {"a": 1}},
    )
    assert main(["verify", str(path)]) == 0
    assert "warning: skipped event 2 (line 2): unknown type 'FUTURE_EVENT'" in (
        capsys.readouterr().out
    )


def test_binary_file_is_refused_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bin"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["verify", str(path)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_a_timed_recording_is_verified_event_by_event() -> None:
    from ag_ui.recording import encode_event_line, encode_header, encode_input_line

    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"},
    ]
    text = (
        encode_header(source="test")
        + encode_input_line({"threadId": "t", "runId": "r", "messages": []}, at=0.0)
        + b"".join(encode_event_line(e, at=0.1) for e in events)
    ).decode()
    report = verify_text(text)
    assert report["error"].startswith("event 2 (line 4): [T2] ")  # type: ignore[union-attr]
    assert report["_events"] == 2
