"""Behaviour on a real uvicorn over loopback: a client that hangs up cancels the agent within a
second (its ``finally`` runs), keepalives reach the client, bad requests leave it serving."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx

from ag_ui.core import BaseEvent, CustomEvent
from ag_ui.server import RunContext, create_app
from tests.support.servers import serve

from .conftest import run_body


def test_client_disconnect_cancels_the_agent_within_a_second() -> None:
    started = threading.Event()
    cleaned_up = threading.Event()
    cancelled: list[bool] = []

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        try:
            yield CustomEvent(name="tick", value=0)
            started.set()
            await anyio.sleep_forever()
            yield CustomEvent(name="never", value=1)  # pragma: no cover
        except anyio.get_cancelled_exc_class():
            cancelled.append(True)
            raise
        finally:
            cleaned_up.set()

    with serve(create_app(agent)) as url, httpx.Client(timeout=10) as http:
        with http.stream("POST", f"{url}/agent", json=run_body()) as response:
            lines = response.iter_lines()
            assert next(lines).startswith('data: {"type":"RUN_STARTED"')
            assert started.wait(5)
        hung_up = time.monotonic()  # leaving the block closes the connection
        assert cleaned_up.wait(5)
        assert time.monotonic() - hung_up < 1.0
        assert cancelled == [True]
        # The server is still serving.
        assert http.post(f"{url}/agent", json={"threadId": "t"}).status_code == 422


def test_keepalive_reaches_the_client() -> None:
    release = threading.Event()

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield CustomEvent(name="a", value=None)
        while not release.is_set():
            await anyio.sleep(0.01)
        yield CustomEvent(name="b", value=None)

    with serve(create_app(agent, keepalive=0.05)) as url, httpx.Client(timeout=10) as http:
        with http.stream("POST", f"{url}/agent", json=run_body()) as response:
            seen = []
            for line in response.iter_lines():
                seen.append(line)
                if line == ": keepalive":
                    release.set()
        assert seen[:4] == [
            'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1","protocolVersion":"1.0"}',
            "",
            'data: {"type":"CUSTOM","name":"a","value":null}',
            "",
        ]
        assert ": keepalive" in seen
        assert seen[-2:] == ['data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}', ""]
