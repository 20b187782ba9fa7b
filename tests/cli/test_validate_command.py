"""``agui validate URL`` in a subprocess against real uvicorn servers: our demo agent (SSE and
protobuf), a faulty one, the three output formats, exit status, one-line errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import httpx
import pytest

from ag_ui.demo import create_demo_app
from ag_ui.store import InMemoryRunStore
from ag_ui.testing import serve
from ag_ui.testing.faults import Drop, FaultyApp

AGUI = [sys.executable, "-m", "ag_ui"]
_DEMO_READY = re.compile(r"AG-UI demo agent on (?P<url>http://127\.0\.0\.1:\d+/agent)")


def agui(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGUI, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with serve(create_demo_app(delay=0.005, store=InMemoryRunStore())) as server:
        yield server.agent_url()


def test_the_demo_passes_and_exits_0(demo_url: str) -> None:
    done = agui("validate", demo_url, "--message", "book a table")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"agui validate {demo_url}"
    assert lines[-1] == "11 scenarios: 11 passed, 0 failed, 0 not exercised"
    marks = {
        line.split()[1]: line.split()[0]
        for line in lines[1:-1]
        if line.startswith("  ") and line.split()[0] in ("PASS", "FAIL", "SKIP")
    }
    assert set(marks.values()) == {"PASS"}
    assert "PASS  tools" in done.stdout


def test_a_scenario_message(demo_url: str) -> None:
    done = agui(
        "validate",
        demo_url,
        "--scenario",
        "interrupt",
        "--scenario-message",
        "interrupt=book a table",
    )
    assert done.returncode == 0, done.stdout
    assert "PASS  interrupt  resumed the interrupt(s) confirm-" in done.stdout


def test_json_output_over_a_real_socket(demo_url: str) -> None:
    done = agui(
        "validate", demo_url, "--output", "json", "--scenario", "proto", "--scenario", "reconnect"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert [s["name"] for s in report["scenarios"]] == [
        "proto",
        "reconnect",
    ]
    proto = report["scenarios"][0]
    assert [r["contentType"] for r in proto["runs"]] == [
        "text/event-stream",
        "text/event-stream",
        "application/vnd.ag-ui.event+proto",
    ]


def test_a_faulty_server_fails_with_rule_event_and_fix() -> None:
    with serve(FaultyApp(create_demo_app(), Drop(event=2))) as server:
        done = agui("validate", server.agent_url(), "--scenario", "text", "--output", "junit")
    assert done.returncode == 1
    suite = ElementTree.fromstring(done.stdout).find("testsuite")
    assert suite is not None
    assert suite.get("failures") == "1"
    failure = suite.find("testcase/failure")
    assert failure is not None
    assert failure.get("type") == "T2"
    assert "[T2] text run, event 2 TEXT_MESSAGE_CONTENT" in (failure.text or "")
    assert "fix: Send TEXT_MESSAGE_START for the messageId" in (failure.text or "")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["http://127.0.0.1:9/agent"], "agui validate: OPTIONS http://127.0.0.1:9/agent failed"),
        (["127.0.0.1:9"], "URL must start with http:// or https://"),
        (
            ["http://127.0.0.1:9/agent", "--scenario", "nope"],
            "unknown scenario 'nope'; choose from: text, multi-turn",
        ),
        (["http://127.0.0.1:9/agent", "--output", "xml"], "invalid choice: 'xml'"),
        (
            ["http://127.0.0.1:9/agent", "--header", "broken"],
            "--header must look like 'Name: value'",
        ),
        (["http://127.0.0.1:9/agent", "--timeout", "0"], "--timeout must be > 0"),
        (["http://127.0.0.1:9/agent", "--scenario-message", "tools"], "must look like NAME=TEXT"),
        (
            ["http://127.0.0.1:9/agent", "--scenario-message", "tool=x"],
            "--scenario-message: unknown scenario 'tool'",
        ),
    ],
)
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    done = agui("validate", *args, timeout=30)
    assert done.returncode in (1, 2)
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_agui_demo_then_agui_validate_passes_and_leaves_no_threads(tmp_path: Path) -> None:
    """The README's pair, as a user runs it: ``agui demo`` keeps threads by default (here in a
    data directory of the test's own), and ``agui validate`` against it fails nothing, compares
    the protobuf stream with SSE, and deletes the threads it made."""
    log = tmp_path / "agui-demo.log"
    environment = {**os.environ, "AGUI_DATA_DIR": str(tmp_path)}
    with open(log, "w", encoding="utf-8") as output:
        demo = subprocess.Popen(
            [*AGUI, "demo", "--no-chat", "--port", "0"],
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
        )
    try:
        deadline = time.monotonic() + 20
        while (ready := _DEMO_READY.search(log.read_text(encoding="utf-8"))) is None:
            assert demo.poll() is None, log.read_text(encoding="utf-8")
            assert time.monotonic() < deadline, log.read_text(encoding="utf-8")
            time.sleep(0.05)
        url = ready.group("url")
        assert "Conversations are kept in sqlite:" in log.read_text(encoding="utf-8")
        done = agui("validate", url)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        # tools: the demo calls the offered agui_validate_echo and answers with its result;
        # interrupt and reconnect are not exercised (no interrupt message given, no run store).
        assert lines[-1].endswith(" 9 passed, 0 failed, 2 not exercised"), lines[-1]
        assert (
            "PASS  tools         the agent called agui_validate_echo; the run carrying its "
            "result finished (success)" in done.stdout
        ), done.stdout
        assert "PASS  cancel" in done.stdout
        assert "PASS  proto         protobuf stream of" in done.stdout
        assert httpx.get(url + "/threads", timeout=10).json()["threads"] == []
    finally:
        demo.terminate()
        demo.wait(timeout=10)
