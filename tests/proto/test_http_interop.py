"""End to end over real HTTP: a uvicorn server negotiating with ``EventEncoder`` and the real
``@ag-ui/client`` 1.0.0 reading the stream (it picks the protobuf parser from Content-Type)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from proto_corpus import corpus
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from ag_ui.core import parse_event
from ag_ui.encoder import AGUI_MEDIA_TYPE, EventEncoder

CLIENT = Path(__file__).resolve().parent.parent / "interop" / "proto_http_client.mjs"
EVENTS = [parse_event(item) for item in corpus()]


async def _run(request: Request) -> StreamingResponse:
    encoder = EventEncoder(accept=request.headers.get("accept"))

    async def body() -> AsyncIterator[bytes]:
        for event in EVENTS:
            yield encoder.encode_binary(event)

    return StreamingResponse(body(), media_type=encoder.get_binary_content_type())


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = Starlette(routes=[Route("/run", _run, methods=["POST"])])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/run"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def _client(url: str, accept: str) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required (run scripts/test once)")
    done = subprocess.run(
        [node, str(CLIENT), url, accept], capture_output=True, timeout=60, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _ts_normalized(event: dict[str, Any]) -> dict[str, Any]:
    run_input = event.get("input")
    if (
        event.get("type") == "RUN_STARTED"
        and run_input is not None
        and run_input.get("resume") == []
    ):
        event = {**event, "input": {k: v for k, v in run_input.items() if k != "resume"}}
    return event


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [(AGUI_MEDIA_TYPE, AGUI_MEDIA_TYPE), ("text/event-stream", "text/event-stream")],
)
def test_typescript_client_reads_the_stream_we_serve(
    server_url: str, accept: str, content_type: str
) -> None:
    result = _client(server_url, accept)
    assert result["contentType"].split(";")[0] == content_type  # starlette adds a charset to text/*
    expected = [event.model_dump(by_alias=True, mode="json") for event in EVENTS]
    assert [_ts_normalized(event) for event in result["events"]] == expected
