"""Helpers for the server tests: run an ASGI app in-process, or on a real uvicorn."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def run_body(**extra: Any) -> dict[str, Any]:
    """A minimal valid RunAgentInput body (thread "t1", run "r1")."""
    body: dict[str, Any] = {"threadId": "t1", "runId": "r1", "messages": []}
    body.update(extra)
    return body


def user_body(text: str, **extra: Any) -> dict[str, Any]:
    """A RunAgentInput body with one user message."""
    return run_body(messages=[{"id": "u1", "role": "user", "content": text}], **extra)


def sse_events(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body, as wire dicts (comments and blank frames skipped)."""
    events = []
    for frame in text.split("\n\n"):
        data = [line[6:] for line in frame.split("\n") if line.startswith("data: ")]
        if data:
            events.append(json.loads("\n".join(data)))
    return events


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve ``app`` on a real uvicorn at 127.0.0.1 on a free port; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    # uvicorn installs signal handlers only on the main thread; here it runs in its own thread.
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    started = threading.Event()
    for _ in range(500):
        if server.started:
            started.set()
            break
        started.wait(0.01)
    if not started.is_set():
        server.should_exit = True
        raise RuntimeError("uvicorn did not start within 5 s")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
