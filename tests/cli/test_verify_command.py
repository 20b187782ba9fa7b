"""``agui verify FILE [--output json]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ag_ui.cli import main

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
        {"ok": True, "error": None, "warnings": [], "messages": MESSAGES, "state": {"a": 1}},
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
        "warnings": [],
        "messages": [{"id": "m1", "role": "assistant", "content": "Hel"}],
        "state": {},
    }
    assert report["error"].startswith("event 3 (line 3): [T3] ")  # type: ignore[index]


def test_truncated_and_malformed_recordings_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run_json(write_jsonl(tmp_path / "cut.jsonl", LEGAL[:3]), capsys)
    assert (code, report["ok"]) == (1, False)  # type: ignore[index]
    assert report["error"].startswith("end of stream: [END] ")  # type: ignore[index]
    assert report["error"].endswith(  # type: ignore[index]
        "; pass --no-strict-end to accept a recording cut before its terminal event"
    )
    assert "strict_end=False" not in report["error"]  # type: ignore[index]
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n{not json\n')
    code, report = run_json(broken, capsys)
    assert (code, report["ok"], report["messages"]) == (1, False, [])  # type: ignore[index]
    assert report["error"].startswith("line 2: ")  # type: ignore[index]


def test_readable_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(write_jsonl(tmp_path / "ok.jsonl", LEGAL))]) == 0
    assert capsys.readouterr().out == (
        "OK: 5 events (7 after chunk expansion)\n"
        "messages (1):\n"
        '  [assistant] m1 "Hello"\n'
        'state: {"a": 1}\n'
    )


def test_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["verify", str(tmp_path / "nope")])
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        f"agui verify: argument file: {tmp_path / 'nope'} does not exist "
        "(see 'agui verify --help')\n"
    )


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
        "warnings": [],
        "messages": MESSAGES,
        "state": {"a": 1},
    }


def test_unknown_event_types_are_skipped_like_typescript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [LEGAL[0], {"type": "FUTURE_EVENT", "x": 1}, *LEGAL[1:]]
    path = write_jsonl(tmp_path / "future.jsonl", events)
    warning = "skipped an event of unknown type 'FUTURE_EVENT'"
    assert run_json(path, capsys) == (
        0,
        {
            "ok": True,
            "error": None,
            "warnings": [warning],
            "messages": MESSAGES,
            "state": {"a": 1},
        },
    )
    assert main(["verify", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.count(warning) == 1
    assert captured.err == ""


def test_a_file_of_no_known_format_is_refused_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bin"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["verify", str(path)]) == 1
    assert capsys.readouterr().out.startswith(
        "FAILED: cannot tell the input format from its first bytes"
    )


def test_a_recording_starting_with_a_state_delta_applies_from_the_empty_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # HttpAgent and the TypeScript client start from {}: the delta adds to it.
    events = [
        LEGAL[0],
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/turns", "value": 1}]},
        LEGAL[-1],
    ]
    path = write_jsonl(tmp_path / "delta.jsonl", events)
    code, report = run_json(path, capsys)
    assert (code, report["state"], report["warnings"]) == (0, {"turns": 1}, [])  # type: ignore[index]


def test_initial_state_from_json_or_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [
        LEGAL[0],
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]},
        LEGAL[-1],
    ]
    path = write_jsonl(tmp_path / "delta.jsonl", events)
    state_file = tmp_path / "state.json"
    state_file.write_text('{"n": 1, "keep": true}')
    for state in ('{"n": 1, "keep": true}', f"@{state_file}"):
        assert main(["verify", str(path), "--state", state, "--output", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["state"] == {"n": 2, "keep": True}


def test_json_lines_split_on_newlines_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # U+2028 and U+2029 are legal inside JSON strings; str.splitlines() would break there.
    text = "line\u2028separator\u2029paragraph"
    events = [LEGAL[0], {"type": "STATE_SNAPSHOT", "snapshot": {"text": text}}, LEGAL[-1]]
    path = tmp_path / "separators.jsonl"
    path.write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8"
    )
    code, report = run_json(path, capsys)
    assert (code, report["state"]) == (0, {"text": text})  # type: ignore[index]


def test_protobuf_recordings_are_verified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ag_ui.core import parse_event
    from ag_ui.proto import encode_frame

    path = tmp_path / "run.bin"
    path.write_bytes(b"".join(encode_frame(parse_event(e)) for e in LEGAL))
    assert run_json(path, capsys) == (
        0,
        {"ok": True, "error": None, "warnings": [], "messages": MESSAGES, "state": {"a": 1}},
    )


def test_a_cut_recording_passes_with_no_strict_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "cut.jsonl", LEGAL[:3])
    assert main(["verify", str(path)]) == 1
    assert "pass --no-strict-end" in capsys.readouterr().out
    assert main(["verify", str(path), "--no-strict-end", "--output", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["messages"] == MESSAGES


def test_each_warning_is_printed_once_and_empty_messages_are_not_listed(
    tmp_path: Path,
) -> None:
    # A patch that fails (a warning), and the empty text message pydantic-ai and Microsoft Agent
    # Framework open around a tool call.
    events = [
        LEGAL[0],
        {"type": "TEXT_MESSAGE_START", "messageId": "empty", "role": "assistant"},
        {"type": "TEXT_MESSAGE_END", "messageId": "empty"},
        {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]},
        *LEGAL[1:],
    ]
    path = write_jsonl(tmp_path / "warn.jsonl", events)
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert done.stderr == ""  # not a second time as a Python warning
    assert done.stdout == (
        "OK: 8 events (10 after chunk expansion)\n"
        "warning: event 4 (line 4): Failed to apply state patch (skipped): operation 0: "
        "member 'missing' does not exist (path '/missing')\n"
        "messages (2, 1 empty not shown):\n"
        '  [assistant] m1 "Hello"\n'
        'state: {"a": 1}\n'
    )
