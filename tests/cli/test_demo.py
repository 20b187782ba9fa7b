"""``agui demo``: one-shot mode against our own server, and the long-running server."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys

import httpx

AGUI = [sys.executable, "-m", "ag_ui"]
HAS_CLIENT = importlib.util.find_spec("ag_ui.cli.run") is not None


def agui(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGUI, *args], capture_output=True, text=True, timeout=timeout)


def test_once_prints_the_transcript_and_exits_0() -> None:
    done = agui("demo", "--once", "-m", "What's the weather in Paris?")
    assert done.returncode == 0, done.stderr
    if HAS_CLIENT:  # our client's text transcript
        assert "It is 23°C and windy in Paris." in done.stdout
        return
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "RUN_STARTED"
    assert events[-1]["type"] == "RUN_FINISHED"
    answer = "".join(
        e["delta"]
        for e in events
        if e["type"] == "TEXT_MESSAGE_CONTENT" and "msg-" in e["messageId"]
    )
    assert answer == "It is 23°C and windy in Paris."
    assert sum(e["type"] == "TOOL_CALL_RESULT" for e in events) == 1


def test_once_with_a_failing_run_exits_1() -> None:
    done = agui("demo", "--once", "-m", "crash")
    assert done.returncode == 1
    assert "crashed on purpose" not in done.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_prints_a_ready_line_and_serves_runs_and_capabilities() -> None:
    port = free_port()
    server = subprocess.Popen(
        [*AGUI, "demo", "--port", str(port), "--delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()
        ready = server.stdout.readline()
        url = f"http://127.0.0.1:{port}/agent"
        assert banner.startswith(f"AG-UI demo agent on {url}")
        assert ready == f'Try:  agui run {url} -m "What\'s the weather in Paris?"\n'
        with httpx.Client(timeout=10) as http:
            capabilities = http.get(f"{url}/capabilities").json()
            assert capabilities["identity"]["name"] == "ag-ui-demo"
            body = {
                "threadId": "t",
                "runId": "r",
                "messages": [{"id": "u", "role": "user", "content": "hi"}],
            }
            response = http.post(url, json=body)
        assert response.status_code == 200
        assert response.text.startswith('data: {"type":"RUN_STARTED"')
        assert response.text.endswith(
            'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
        )
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_busy_port_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = agui("demo", "--port", str(port), timeout=20)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr


def test_registered_in_the_cli() -> None:
    done = agui("demo", "--help")
    assert done.returncode == 0
    assert "--once" in done.stdout


def test_dojo_serves_every_feature_at_the_dojo_paths() -> None:
    port = free_port()
    server = subprocess.Popen(
        [*AGUI, "demo", "--dojo", "--port", str(port), "--delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{port}"
        banner = server.stdout.readline()
        assert banner == f"AG-UI dojo features (scripted) on {base}/<feature>. Ctrl-C stops it.\n"
        assert server.stdout.readline().startswith("Features: agentic_chat, backend_tool_rendering")
        assert server.stdout.readline() == f"For the dojo: SERVER_STARTER_ALL_FEATURES_URL={base}\n"
        with httpx.Client(timeout=10) as http:
            assert len(http.get(base + "/").json()["features"]) == 7
            body = {
                "threadId": "t",
                "runId": "r",
                "messages": [{"id": "u", "role": "user", "content": "Hey there"}],
            }
            response = http.post(base + "/agentic_chat", json=body)
        assert response.status_code == 200
        assert '"delta":"counting down: "' in response.text
        assert response.text.endswith(
            'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
        )
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_dojo_options_out_of_place_are_one_line_errors() -> None:
    done = agui("demo", "--model", "openai:gpt-4o-mini")
    assert done.returncode == 1
    assert (
        done.stderr == "agui demo: --model and --base-url go with --dojo (agui demo --dojo ...)\n"
    )
    done = agui("demo", "--dojo", "--once")
    assert done.stderr == "agui demo: --once runs the demo agent; --dojo only serves\n"
    done = agui("demo", "--dojo", "--port", "0", "--model", "gpt-4o")
    assert done.returncode == 1
    assert done.stderr.startswith("agui demo: --model gpt-4o: model spec 'gpt-4o' is not PROVIDER")
