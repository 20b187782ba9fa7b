"""Two uvicorn worker processes sharing a real Redis: a run started through worker A is resumed
through worker B (which tails what A produces) with nothing lost and nothing repeated."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx
import pytest

from ag_ui.client import HttpAgent
from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore
from tests.conftest import REPO
from tests.redis_helpers import RedisServer, free_port
from tests.support.servers import FD, serve_process

from .resume_helpers import FAST, CuttingTransport, in_process_agent, lifespan, story_agent, wire


@contextmanager
def worker(redis: RedisServer, prefix: str, *, delay: float = 0.02) -> Iterator[str]:
    """One uvicorn process serving tests/resume/worker_app.py (``delay`` seconds between the
    story's pieces); yields its base URL."""
    env = {
        **os.environ,
        "AGUI_TEST_REDIS_URL": redis.url,
        "AGUI_TEST_PREFIX": prefix,
        "AGUI_TEST_DELAY": str(delay),
    }
    command = [sys.executable, "-m", "uvicorn", "tests.resume.worker_app:app"]
    with serve_process([*command, "--fd", FD, "--log-level", "warning"], cwd=REPO, env=env) as url:
        yield url


class ToWorkerB(httpx.AsyncBaseTransport):
    """Sends reconnects (``/connect``) to worker B, everything else where it was addressed."""

    def __init__(self, inner: httpx.AsyncBaseTransport, worker_b: str) -> None:
        self._inner = inner
        self._b = httpx.URL(worker_b)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/connect"):
            request.url = request.url.copy_with(host=self._b.host, port=self._b.port)
        return await self._inner.handle_async_request(request)


async def reference() -> tuple[Any, Any, Any]:
    app = create_app(story_agent, store=InMemoryRunStore())
    async with lifespan(app):
        agent = in_process_agent(app, [])[0]
        events: list[Any] = []
        agent.subscribe(on_event=lambda params: events.append(wire([params.event])[0]))
        await agent.run_agent(run_id="r1")
        return events, wire(agent.messages), agent.state


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "protobuf"])
def test_a_run_started_on_worker_a_resumes_on_worker_b(
    redis_server: RedisServer, proto: bool
) -> None:
    expected = anyio.run(reference)
    prefix = f"workers{free_port()}:"
    with worker(redis_server, prefix) as url_a, worker(redis_server, prefix) as url_b:
        cutting = CuttingTransport(ToWorkerB(httpx.AsyncHTTPTransport(), url_b), [700])

        async def main() -> tuple[Any, Any, Any, int]:
            async with httpx.AsyncClient(transport=cutting, timeout=10) as client:
                agent = HttpAgent(
                    f"{url_a}/agent",
                    http_client=client,
                    thread_id="t1",
                    proto=proto,
                    reconnect=FAST,
                )
                events: list[Any] = []
                agent.subscribe(on_event=lambda params: events.append(wire([params.event])[0]))
                with anyio.fail_after(20):
                    result = await agent.run_agent(run_id="r1")
                return events, wire(agent.messages), agent.state, result.reconnects

        events, messages, state, reconnects = anyio.run(main)
    assert (events, messages, state) == expected
    assert reconnects == 1
    hosts = [(r.method, r.url.port, r.url.path) for r in cutting.requests]
    port_a, port_b = httpx.URL(url_a).port, httpx.URL(url_b).port
    assert hosts == [("POST", port_a, "/agent"), ("GET", port_b, "/agent/connect")]
    # Worker B took over while the run was still going on worker A (it is slow on purpose):
    # the cut came after at most 700 bytes, long before the run's last event.
    assert len(events) == 38
