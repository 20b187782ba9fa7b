"""Four uvicorn workers on one Redis behind a real nginx (deploy/nginx/agui.conf): streams go
through unbuffered, a thousand at once arrive whole, and the health endpoint answers through
the proxy."""

from __future__ import annotations

import time

import anyio
import httpx
import pytest

from tests.deploy.counting import ALLOWED_HOST
from tests.deploy.harness import Deployment
from tests.deploy.streams import StreamResult, body, read_stream

pytestmark = pytest.mark.anyio


async def test_a_stream_is_not_buffered_by_the_proxy(deployed: Deployment) -> None:
    """The first event arrives while the run is still going (4 pieces 0.3 s apart: buffered,
    nothing would come before the end, 1.2 s in; the bound leaves room for a busy box). The
    worker sends ``X-Accel-Buffering: no``, which nginx honours and consumes (it never reaches
    the client), and ``Cache-Control: no-cache``, which passes through."""
    async with httpx.AsyncClient(timeout=10) as client:
        result = await read_stream(client, f"{deployed.url}/agent", body("unbuffered", 4, 0.3))
        direct = await read_stream(client, f"{deployed.workers[0].url}/agent", body("d", 1, 0))
    result.check(4)
    assert result.first_event_after is not None
    assert result.first_event_after < 0.9
    assert result.headers["cache-control"] == "no-cache"
    assert result.headers["content-type"].startswith("text/event-stream")
    assert "x-accel-buffering" not in result.headers
    assert direct.headers["x-accel-buffering"] == "no"
    assert direct.headers["cache-control"] == "no-cache"


async def test_health_through_the_proxy(deployed: Deployment) -> None:
    async with httpx.AsyncClient(timeout=5) as client:
        live = await client.get(f"{deployed.url}/agent/health")
        ready = await client.get(f"{deployed.url}/agent/health/ready")
    assert live.json() == {"status": "ok", "draining": False}
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "draining": False, "runStore": "ok"}


async def test_the_allowed_name_passes_the_proxy_and_a_rebinding_name_does_not(
    deployed: Deployment,
) -> None:
    """nginx passes the client's Host on (``proxy_set_header Host $host``): the name in the
    app's ``allowed_hosts`` is served, another name (what a DNS-rebinding page sends) is a 403
    naming the option, and the health probe answers whatever name it uses."""
    port = deployed.url.rsplit(":", 1)[1]
    async with httpx.AsyncClient(timeout=10, headers={"host": ALLOWED_HOST}) as named:
        served = await read_stream(named, f"{deployed.url}/agent", body("named", 1, 0))
    async with httpx.AsyncClient(timeout=10) as client:
        refused = await client.post(
            f"{deployed.url}/agent", json={}, headers={"host": f"evil.example:{port}"}
        )
        probe = await client.get(f"{deployed.url}/agent/health", headers={"host": "10.0.0.7"})
    served.check(1)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "host_not_allowed"
    assert "allowed_hosts" in refused.json()["error"]["message"]
    assert probe.status_code == 200


CONCURRENT = 1000


async def test_a_thousand_concurrent_streams_lose_nothing(deployed: Deployment) -> None:
    """1,000 runs at once (10 deltas 0.1 s apart each) through nginx onto four workers: every
    stream carries positions 1..n in order and exactly its run's text."""
    results: dict[int, StreamResult] = {}
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    began = time.monotonic()
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:

        async def one(n: int) -> None:
            results[n] = await read_stream(client, f"{deployed.url}/agent", body(f"c{n}", 10, 0.1))

        async with anyio.create_task_group() as tasks:
            for n in range(CONCURRENT):
                tasks.start_soon(one, n)
    took = time.monotonic() - began
    assert len(results) == CONCURRENT
    for result in results.values():
        result.check(10)
    # The runs overlapped: one after another they would take 1,000 s (8-17 s measured alone).
    assert took < 90, took
