"""Exports: read back by ag_ui.recording, agui verify and agui inspect; no headers or tokens."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ag_ui.inspect import Inspector, export_session
from ag_ui.inspect._export import public_source
from ag_ui.recording import read_recording
from tests.inspect.conftest import broken_run, timed_recording, weather_run, write

SECRET = "sk-live-0123456789abcdef"
RUN_INPUT = {
    "threadId": "t1",
    "runId": "r1",
    "state": {},
    "messages": [{"id": "u1", "role": "user", "content": "hi"}],
    "forwardedProps": {"model": "small", "apiKey": SECRET, "nested": {"authToken": SECRET}},
}


def session_of(tmp_path: Path, data: bytes):  # type: ignore[no-untyped-def]
    return Inspector().open(write(tmp_path, "in.jsonl", data))


def agui_verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ag_ui", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_timed_recording_round_trips_events_times_and_requests(tmp_path: Path) -> None:
    session = session_of(tmp_path, timed_recording(weather_run(), run_input=RUN_INPUT))
    exported = export_session(session, "jsonl")
    recording = read_recording(exported)
    assert recording.header["aguiRecording"] == 1
    assert recording.header["exportedBy"] == "agui inspect"
    [run] = recording.runs
    assert run.input is not None
    assert run.input.messages[0].content == "hi"
    assert [json.loads(r.wire_json) for r in session.rows] == [
        e.event.model_dump(by_alias=True, mode="json", exclude_none=True) for e in run.events
    ]
    assert [e.at for e in run.events] == [row.at for row in session.rows]
    # ... and opening the export gives the same session again.
    again = Inspector().open(write(tmp_path, "again.jsonl", exported))
    assert [r.wire_json for r in again.rows] == [r.wire_json for r in session.rows]
    assert again.runs[0].input == session.runs[0].input | {
        "forwardedProps": {
            "model": "small",
            "apiKey": "[redacted]",
            "nested": {"authToken": "[redacted]"},
        }
    }


def test_tokens_never_reach_an_export(tmp_path: Path) -> None:
    session = session_of(tmp_path, timed_recording(weather_run(), run_input=RUN_INPUT))
    session.source = f"http://user:{SECRET}@127.0.0.1:8000/agent?token={SECRET}"
    for fmt in ("jsonl", "events", "sse"):
        assert SECRET.encode() not in export_session(session, fmt)
    header = read_recording(export_session(session, "jsonl")).header
    assert header["source"] == "http://127.0.0.1:8000/agent"


@pytest.mark.parametrize("fmt", ["jsonl", "events", "sse", "proto"])
def test_every_format_reads_back_with_the_same_events(tmp_path: Path, fmt: str) -> None:
    session = session_of(tmp_path, timed_recording(weather_run()))
    recording = read_recording(export_session(session, fmt))
    assert (
        recording.format
        == {"jsonl": "jsonl", "events": "jsonl", "sse": "sse", "proto": "proto"}[fmt]
    )
    assert [e.model_dump_json(by_alias=True) for e in recording.events] == [
        r.wire_json for r in session.rows
    ]


def test_agui_verify_reads_exports_and_finds_the_same_violation(tmp_path: Path) -> None:
    good = session_of(tmp_path, timed_recording(weather_run(), run_input=RUN_INPUT))
    for fmt in ("jsonl", "sse"):
        result = agui_verify(write(tmp_path, f"good.{fmt}", export_session(good, fmt)))
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.startswith("OK: 12 events")
    bad = session_of(tmp_path, timed_recording(broken_run()))
    result = agui_verify(write(tmp_path, "bad.jsonl", export_session(bad, "jsonl")))
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED: event 3 (line 4): [T2]")


def test_public_source_drops_credentials_query_and_fragment() -> None:
    assert public_source("https://a:b@host:9/x/agent?k=v#f") == "https://host:9/x/agent"
    assert public_source("run.jsonl") == "run.jsonl"
    assert public_source(None) is None


def test_an_unknown_format_is_refused(tmp_path: Path) -> None:
    session = session_of(tmp_path, timed_recording(weather_run()))
    with pytest.raises(ValueError, match="unknown export format 'xml'"):
        export_session(session, "xml")


@pytest.mark.parametrize(
    ("name", "data", "verdict"),
    [
        ("good", timed_recording(weather_run(), run_input=RUN_INPUT), "1 passed"),
        ("broken", timed_recording(broken_run()), "1 passed"),
    ],
)
def test_the_pytest_export_is_a_passing_test_that_pins_the_capture(
    tmp_path: Path, name: str, data: bytes, verdict: str
) -> None:
    session = session_of(tmp_path, data)
    module = write(tmp_path, f"{name}_test.py", export_session(session, "pytest"))
    assert SECRET.encode() not in module.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(module), "-q", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert verdict in result.stdout, result.stdout + result.stderr
    if name == "good":
        # The test fails when the capture changes: drop an event of the embedded recording.
        text = module.read_text()
        first_delta = text.index("TEXT_MESSAGE_CONTENT")
        line_start = text.rindex("\n", 0, first_delta)
        line_end = text.index("\n", first_delta)
        tampered = text[:line_start] + text[line_end:]
        write(tmp_path, f"{name}_test.py", tampered.encode())
        failed = subprocess.run(
            [sys.executable, "-m", "pytest", str(module), "-q", "-p", "no:cacheprovider"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert "1 failed" in failed.stdout, failed.stdout
