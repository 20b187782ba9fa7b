"""Helpers for the inspector tests: recordings to open, and real servers on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from ag_ui.recording import encode_event_line, encode_header, encode_input_line


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def timed_recording(
    events: list[dict[str, Any]], *, gap: float = 0.1, run_input: dict[str, Any] | None = None
) -> bytes:
    """A timed JSON Lines recording: a header, the run's input (if any), events ``gap`` apart."""
    lines = [encode_header(source="tests")]
    if run_input is not None:
        lines.append(encode_input_line(run_input, at=0.0))
    lines.extend(encode_event_line(e, at=round((i + 1) * gap, 6)) for i, e in enumerate(events))
    return b"".join(lines)


def weather_run(thread: str = "t1", run: str = "r1") -> list[dict[str, Any]]:
    """A small legal run: state, a tool call with its result, a streamed answer."""
    return [
        {"type": "RUN_STARTED", "threadId": thread, "runId": run},
        {"type": "STATE_SNAPSHOT", "snapshot": {"turns": 1}},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_weather"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"city": "Paris"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "23C"},
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/city", "value": "Paris"}]},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "It is "},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "23C."},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": thread, "runId": run},
    ]


def broken_run() -> list[dict[str, Any]]:
    """Content for a message that was never started (rule T2), at event 2."""
    return [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"step": 1}},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "boo"},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/step", "value": 2}]},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@contextmanager
def serve(app: Any, *, lifespan: str = "on") -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 (a free port); yields ``http://127.0.0.1:PORT``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    ready = threading.Event()
    for _ in range(1000):
        if server.started:
            break
        ready.wait(0.01)
    else:
        server.should_exit = True
        raise RuntimeError("uvicorn did not start within 10 s")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
