"""HAProxy as the second proxy (deploy/haproxy/agui.cfg): streams unbuffered, 200 at once whole,
a worker restarted mid-stream with its runs resumed through HAProxy on the others, and its
active checks of the SDK's readiness endpoint."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from ag_ui.core.events import EventType
from tests.deploy.haproxy import HAPROXY_CONF, render_haproxy
from tests.deploy.harness import Deployment
from tests.deploy.streams import AgentRun, StreamResult, body, expected_text, read_stream, run_agent
from tests.redis_helpers import RedisServer

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def behind_haproxy(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    deployed = Deployment(redis_server, tmp_path_factory.mktemp("haproxy"), proxy="haproxy")
    try:
        yield deployed
    finally:
        deployed.close()


async def test_streams_through_haproxy(behind_haproxy: Deployment) -> None:
    url = f"{behind_haproxy.url}/agent"
    # A connection per stream: a kept-alive one HAProxy is closing while the burst reuses it
    # fails before any response (seen as ReadError under a loaded machine), which is the
    # client's keep-alive race, not the stream under test.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=30, limits=limits) as client:
        first = await read_stream(client, url, body("hp-unbuffered", 4, 0.3))
        results: list[StreamResult] = []

        async def one(n: int) -> None:
            results.append(await read_stream(client, url, body(f"hp{n}", 10, 0.1)))

        async with anyio.create_task_group() as tasks:
            for n in range(200):
                tasks.start_soon(one, n)
    first.check(4)
    assert first.first_event_after is not None
    assert first.first_event_after < 0.9  # buffered, nothing would come before 1.2 s
    assert len(results) == 200
    for result in results:
        result.check(10)


async def test_a_restart_behind_haproxy_loses_nothing(behind_haproxy: Deployment) -> None:
    """SIGTERM to one worker while 12 runs (2 s each) stream, then it starts again: every run
    ends whole, those cut resumed by ``HttpAgent`` through HAProxy on another worker."""
    url = f"{behind_haproxy.url}/agent"
    runs: list[AgentRun] = []
    async with httpx.AsyncClient(timeout=30) as client:

        async def one(n: int) -> None:
            runs.append(await run_agent(client, url, f"hr{n}", 20, 0.1))

        async with anyio.create_task_group() as tasks:
            for n in range(12):
                tasks.start_soon(one, n)
            await anyio.sleep(0.5)
            victim = behind_haproxy.workers[0]
            await anyio.to_thread.run_sync(victim.terminate)
            await anyio.to_thread.run_sync(victim.start)
    for run in runs:
        assert run.failure is None, run.failure
        assert run.types[-1] == EventType.RUN_FINISHED
        assert run.text == expected_text(20)
    assert any(run.reconnects for run in runs)


def test_the_haproxy_config_checks_readiness(tmp_path: Path) -> None:
    """HAProxy takes a worker out when ``/agent/health/ready`` is not 200; the rendered config
    changes nothing but the ports, and haproxy itself finds it valid."""
    text = HAPROXY_CONF.read_text()
    assert "option httpchk GET /agent/health/ready" in text
    rendered = render_haproxy([9001, 9002, 9003, 9004], 9080)
    assert "bind 127.0.0.1:9080\n" in rendered
    assert rendered.count("\n") == text.count("\n")
    conf = tmp_path / "haproxy.cfg"
    conf.write_text(rendered)
    checked = subprocess.run(["haproxy", "-c", "-f", str(conf)], capture_output=True, timeout=10)
    assert checked.returncode == 0, checked.stderr
