"""``agui record`` against a real server, and ``agui replay`` serving the recording again:
both in subprocesses, over real sockets, with timing, protobuf and one-line errors."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest

from ag_ui.demo import create_demo_app
from ag_ui.recording import read_recording
from ag_ui.testing import AgentClient, grade_events, serve

AGUI = [sys.executable, "-m", "ag_ui"]


def agui(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGUI, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with serve(create_demo_app(delay=0.01)) as server:
        yield server.agent_url()


def test_record_writes_a_timed_multi_turn_recording(demo_url: str, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    done = agui(
        "record",
        demo_url + "?token=secret",
        "-m",
        "weather in Oslo",
        "-m",
        "book a table",
        "-o",
        str(out),
        "--header",
        "Authorization: Bearer hunter2",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"run 1: \d+ events in \d+\.\d\d s, legal \(success\)", lines[0])
    assert re.fullmatch(r"run 2: \d+ events in \d+\.\d\d s, legal \(interrupt\)", lines[1])
    assert lines[2] == f"recorded 2 runs to {out}"
    data = out.read_bytes()
    assert b"hunter2" not in data
    assert b"secret" not in data
    recording = read_recording(data)
    assert recording.header["source"] == demo_url
    assert recording.header["transport"] == "sse"
    assert recording.header["capabilities"]["identity"]["name"] == "ag-ui-demo"
    assert recording.timed
    assert len(recording.runs) == 2
    first, second = recording.runs
    assert first.input is not None
    assert second.input is not None
    assert second.input.thread_id == first.input.thread_id  # one conversation
    assert [m.role for m in second.input.messages][-1] == "user"
    assert first.at == 0.0
    assert second.at is not None
    assert second.at > first.events[-1].at
    ats = [e.at for run in recording.runs for e in run.events]
    assert ats == sorted(ats)
    for run in recording.runs:
        assert run.input is not None
        graded = grade_events(
            [e.event for e in run.events], messages=run.input.messages, state=run.input.state
        )
        assert graded.ok, graded


def test_record_over_protobuf_to_stdout(demo_url: str) -> None:
    done = subprocess.run(
        [*AGUI, "record", demo_url, "-m", "hello", "-o", "-", "--proto"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().startswith("run 1: ")
    recording = read_recording(done.stdout)
    assert recording.header["transport"] == "proto"
    assert recording.events[-1].type.value == "RUN_FINISHED"


def test_record_exits_1_when_the_run_fails(demo_url: str, tmp_path: Path) -> None:
    out = tmp_path / "crash.jsonl"
    done = agui("record", demo_url, "-m", "crash", "-o", str(out))
    assert done.returncode == 1
    assert "legal (error)" in done.stdout
    assert read_recording(out.read_bytes()).events[-1].type.value == "RUN_ERROR"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["http://127.0.0.1:9/agent", "-m", "x", "-o", "{out}"],
            "agui record: GET http://127.0.0.1:9/agent/capabilities failed",
        ),
        (
            ["127.0.0.1:9/agent", "-m", "x", "-o", "{out}"],
            "URL must start with http:// or https://",
        ),
        (
            ["http://127.0.0.1:9/agent", "-m", "x", "-o", "{out}", "--state", "{"],
            "--state is not valid JSON",
        ),
        (
            ["http://127.0.0.1:9/agent", "-m", "x", "-o", "{out}", "--header", "nocolon"],
            "--header must look like",
        ),
        (
            ["http://127.0.0.1:9/agent", "-o", "{out}"],
            "the following arguments are required: -m/--message",
        ),
    ],
)
def test_record_bad_input_is_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    done = agui("record", *[a.replace("{out}", str(tmp_path / "x.jsonl")) for a in args])
    assert done.returncode in (1, 2)
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_record_to_an_unwritable_file(demo_url: str, tmp_path: Path) -> None:
    done = agui("record", demo_url, "-m", "hi", "-o", str(tmp_path / "missing" / "x.jsonl"))
    assert done.returncode == 2
    assert "agui record: cannot write" in done.stderr
    assert "No such file or directory" in done.stderr


@contextmanager
def replaying(*args: str) -> Iterator[tuple[str, str]]:
    """``agui replay ... --port 0`` in a subprocess; yields (agent URL, first output line)."""
    process = subprocess.Popen(
        [*AGUI, "replay", *args, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        second = process.stdout.readline()
        found = re.search(r"AG-UI agent on (http://127\.0\.0\.1:\d+/\S+?)[ .]", second)
        assert found, (first, second, process.stderr.read() if process.poll() is not None else "")
        yield found.group(1), first.strip()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_replay_serves_the_recording_with_its_timing(demo_url: str, tmp_path: Path) -> None:
    out = tmp_path / "weather.jsonl"
    assert agui("record", demo_url, "-m", "weather in Oslo", "-o", str(out)).returncode == 0
    recorded = read_recording(out.read_bytes()).runs[0]
    span = recorded.events[-1].at - recorded.events[0].at  # type: ignore[operator]
    with replaying(str(out), "--speed", "2") as (url, banner):
        assert re.fullmatch(
            r"Replaying .*weather\.jsonl \(1 run, \d+ events, recorded timing x2\)", banner
        )
        client = AgentClient(url=url)
        sse = client.run_sync("anything")
        binary = client.run_sync("anything", proto=True)
        capabilities = anyio.run(client.capabilities)
    assert capabilities is not None
    assert capabilities.identity is not None
    assert capabilities.identity.name == "ag-ui-demo"  # from the recording's header
    assert sse.ok
    assert sse.text.endswith("in Oslo.")
    assert binary.ok
    assert binary.proto
    assert [e.type for e in sse.events] == [e.event.type for e in recorded.events]
    replay_span = sse.times[-1] - sse.times[0]
    assert replay_span >= span / 2 * 0.8  # paced, never faster than asked (sleeps end late)


def test_replay_instant_and_match(tmp_path: Path) -> None:
    lines = [{"aguiRecording": 1}]
    for text, answer in (("hi", "hello"), ("bye", "ciao")):
        body = {
            "threadId": "t",
            "runId": "r",
            "messages": [{"id": "u", "role": "user", "content": text}],
        }
        lines.append({"at": 0.0, "input": body})
        for event in (
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": answer},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
        ):
            lines.append({"at": 5.0, "event": event})
    out = tmp_path / "two.jsonl"
    out.write_text("\n".join(json.dumps(line) for line in lines))
    with replaying(str(out), "--instant", "--match") as (url, banner):
        assert banner.endswith("(2 runs, 6 events, no delays (--instant))")
        client = AgentClient(url=url)
        assert client.run_sync("bye").text == "ciao"
        assert client.run_sync("hi").text == "hello"


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (None, [], "agui replay: cannot read"),
        (b"<html>", [], "agui replay: cannot tell the input format"),
        (b"", [], "agui replay: the recording is empty"),
        (b'{"aguiRecording": 1}\n', [], "holds no events"),
        (
            b'{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n',
            ["--speed", "0"],
            "--speed must be > 0",
        ),
    ],
)
def test_replay_bad_input_is_one_line(
    content: bytes | None, args: list[str], message: str, tmp_path: Path
) -> None:
    path = tmp_path / "recording.jsonl"
    if content is not None:
        path.write_bytes(content)
    done = agui("replay", str(path), *args, "--port", "0", timeout=30)
    assert done.returncode in (1, 2)
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_replay_on_a_busy_port(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}))
    with serve(create_demo_app()) as server:
        done = agui("replay", str(path), "--port", str(server.port), timeout=30)
    assert done.returncode == 1
    assert f"agui replay: cannot listen on 127.0.0.1:{server.port}" in done.stderr


def test_a_replayed_recording_validates(demo_url: str, tmp_path: Path) -> None:
    out = tmp_path / "hello.jsonl"
    assert agui("record", demo_url, "-m", "hello", "-o", str(out)).returncode == 0
    with replaying(str(out), "--instant") as (url, _):
        done = agui(
            "validate", url, "--scenario", "text", "--scenario", "proto", "--scenario", "malformed"
        )
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "3 scenarios: 3 passed, 0 failed, 0 not exercised"
