"""``agui demo --otel`` and ``agui serve --otel`` export OTLP/HTTP protobuf to the endpoint
``OTEL_*`` names, received by a real local HTTP receiver (``otlp_receiver``: no collector
installs here)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.providers.fake_provider import CHAT, FakeProvider, Reply
from tests.telemetry.otlp_receiver import OtlpReceiver

AGUI = [sys.executable, "-m", "ag_ui"]


def _wait_for_url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        found = re.search(r"on (http://127\.0\.0\.1:\d+/agent)", line)
        if found:
            return found.group(1)
        if not line and process.poll() is not None:
            break
    raise AssertionError("agui demo did not print its URL")


def test_agui_demo_otel_exports_spans_and_metrics_over_otlp_http(tmp_path: Path) -> None:
    with OtlpReceiver() as receiver:
        env = {
            **os.environ,
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
            "OTEL_SERVICE_NAME": "demo-under-test",
            "AGUI_DATA_DIR": str(tmp_path),
        }
        process = subprocess.Popen(
            [*AGUI, "demo", "--no-chat", "--no-threads", "--port", "0", "--delay", "0", "--otel"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        try:
            url = _wait_for_url(process)
            body = {
                "threadId": "thread-otlp",
                "runId": "run-otlp",
                "messages": [{"id": "u1", "role": "user", "content": "hello"}],
                "tools": [],
                "context": [],
            }
            response = httpx.post(url, json=body, timeout=30)
            trace_id = response.headers["x-ag-ui-trace-id"]
        finally:
            process.send_signal(signal.SIGINT)  # shutting down flushes the exporters
            process.wait(timeout=30)
    assert process.returncode == 130  # Ctrl-C, as agui reports it
    assert set(receiver.content_types) == {"application/x-protobuf"}
    [run] = [span for span in receiver.spans() if span.name == "invoke_agent agent"]
    assert run.trace_id.hex() == trace_id
    attributes = {item.key: item.value for item in run.attributes}
    assert attributes["gen_ai.conversation.id"].string_value == "thread-otlp"
    assert attributes["ag_ui.outcome"].string_value == "success"
    [resource] = receiver.traces[0].resource_spans
    service = {item.key: item.value.string_value for item in resource.resource.attributes}
    assert service["service.name"] == "demo-under-test"
    assert {"ag_ui.run.duration", "ag_ui.runs.active"} <= receiver.metric_names()


def test_agui_demo_once_and_dojo_export_too(tmp_path: Path) -> None:
    """``--otel`` holds for every way of running the demo: the one-shot transcript
    (``--once``) and the dojo's feature server (``--dojo``)."""
    with OtlpReceiver() as receiver:
        env = {
            **os.environ,
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
            "AGUI_DATA_DIR": str(tmp_path),
        }
        once = subprocess.run(
            [*AGUI, "demo", "--once", "--delay", "0", "--otel", "-m", "weather in Paris"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert once.returncode == 0, once.stderr
        assert [span.name for span in receiver.spans()].count("invoke_agent agent") == 1
        process = subprocess.Popen(
            [*AGUI, "demo", "--dojo", "--port", "0", "--delay", "0", "--otel"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        try:
            assert process.stdout is not None
            found = re.search(r"on (http://127\.0\.0\.1:\d+)/<feature>", process.stdout.readline())
            assert found, "agui demo --dojo did not print its URL"
            body = {
                "threadId": "thread-dojo",
                "runId": "run-dojo",
                "messages": [{"id": "u1", "role": "user", "content": "Hey there"}],
            }
            response = httpx.post(found.group(1) + "/agentic_chat", json=body, timeout=30)
            assert response.status_code == 200
        finally:
            process.send_signal(signal.SIGINT)  # shutting down flushes the exporters
            process.wait(timeout=30)
    conversations = {
        item.value.string_value
        for span in receiver.spans()
        for item in span.attributes
        if item.key == "gen_ai.conversation.id"
    }
    assert "thread-dojo" in conversations


def test_agui_serve_otel_exports_the_model_call_with_its_content_when_asked(
    tmp_path: Path,
) -> None:
    with FakeProvider() as fake, OtlpReceiver() as receiver:
        fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
        env = {
            **os.environ,
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
            "AGUI_DATA_DIR": str(tmp_path),
        }
        command = ["serve", "--model", "openai:llama3.2", "--base-url", fake.openai_url]
        command.append("--no-threads")
        process = subprocess.Popen(
            [*AGUI, *command, "--port", "0", "--otel", "--otel-content"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        try:
            url = _wait_for_url(process)
            body = {
                "threadId": "thread-serve",
                "runId": "run-serve",
                "messages": [{"id": "u1", "role": "user", "content": "hi"}],
                "tools": [],
                "context": [],
            }
            httpx.post(url, json=body, timeout=30).raise_for_status()
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)
    names = sorted(span.name for span in receiver.spans())
    assert names == ["chat llama3.2", "invoke_agent ModelAgent"]
    [chat] = [span for span in receiver.spans() if span.name == "chat llama3.2"]
    attributes = {item.key: item.value for item in chat.attributes}
    assert attributes["gen_ai.provider.name"].string_value == "openai"
    assert attributes["gen_ai.input.messages"].string_value == (
        '[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]'
    )
    assert "Hello from the model." in attributes["gen_ai.output.messages"].string_value
