"""TLS and HTTP/2 on the client side of nginx (deploy/nginx/agui-tls.conf's lines added to
agui.conf, a certificate from a throwaway authority): streams come unbuffered over HTTP/2, many
runs share the client's connection, and a stream cut by a worker's restart is resumed through
nginx over HTTP/2 (``Last-Event-ID`` passes as an HTTP/2 header)."""

from __future__ import annotations

import anyio
import httpx
import pytest

from ag_ui.core.events import EventType
from tests.deploy.harness import Deployment
from tests.deploy.streams import AgentRun, StreamResult, body, expected_text, read_stream, run_agent

pytestmark = pytest.mark.anyio

RUNS = 50


def tls_client(deployed: Deployment) -> httpx.AsyncClient:
    assert deployed.nginx is not None
    return httpx.AsyncClient(http2=True, verify=deployed.nginx.ssl_context(), timeout=30)


async def test_streams_over_tls_and_http2(deployed: Deployment) -> None:
    assert deployed.nginx is not None
    url = f"{deployed.nginx.tls_url}/agent"
    async with tls_client(deployed) as client:
        first = await read_stream(client, url, body("tls-unbuffered", 4, 0.3))
        results: list[StreamResult] = []

        async def one(n: int) -> None:
            results.append(await read_stream(client, url, body(f"tls{n}", 10, 0.05)))

        async with anyio.create_task_group() as tasks:
            for n in range(RUNS):
                tasks.start_soon(one, n)
    assert first.http_version == "HTTP/2"
    first.check(4)
    assert first.first_event_after is not None
    assert first.first_event_after < 0.9  # buffered, nothing would come before 1.2 s
    assert len(results) == RUNS
    for result in results:
        assert result.http_version == "HTTP/2"
        result.check(10)


async def test_a_cut_stream_resumes_over_http2(deployed: Deployment) -> None:
    """SIGTERM to one worker while 8 ``HttpAgent`` runs (2.5 s each) stream over HTTP/2; the
    cut ones resume through nginx on another worker, and every run ends whole."""
    assert deployed.nginx is not None
    url = f"{deployed.nginx.tls_url}/agent"
    runs: list[AgentRun] = []
    async with tls_client(deployed) as client:

        async def one(n: int) -> None:
            runs.append(await run_agent(client, url, f"tlsr{n}", 25, 0.1))

        async with anyio.create_task_group() as tasks:
            for n in range(8):
                tasks.start_soon(one, n)
            await anyio.sleep(0.5)
            victim = deployed.workers[2]
            await anyio.to_thread.run_sync(victim.terminate)
            await anyio.to_thread.run_sync(victim.start)
    for run in runs:
        assert run.failure is None, run.failure
        assert run.types[-1] == EventType.RUN_FINISHED
        assert run.text == expected_text(25)
    assert any(run.reconnects for run in runs), "no stream was cut: the worker had none"
