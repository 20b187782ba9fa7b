"""``GET <path>/health`` (liveness) and ``/health/ready`` (readiness: stores, draining), served
by a real uvicorn, every way the endpoint is reached; the graceful shutdown (``shutdown_grace``)
lets the detached runs still going end on their own."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from ag_ui.core.events import EventType
from ag_ui.server import AgentEndpoint, RunContext, create_app
from ag_ui.store import InMemoryRunStore, RedisRunStore, open_thread_store
from tests.redis_helpers import RedisServer, free_port
from tests.support.servers import serve


async def slow(run_input: Any, ctx: RunContext) -> None:
    for piece in ("one ", "two ", "three"):
        await anyio.sleep(0.2)
        await ctx.say(piece)


def test_liveness_and_readiness_with_no_store() -> None:
    with serve(create_app(slow)) as url:
        live = httpx.get(f"{url}/agent/health")
        assert live.status_code == 200
        assert live.json() == {"status": "ok", "draining": False}
        assert live.headers["cache-control"] == "no-cache"
        for path in ("/agent/health/ready", "/agent/health?ready"):
            ready = httpx.get(url + path)
            assert ready.status_code == 200, path
            assert ready.json() == {"status": "ready", "draining": False}
        assert httpx.head(f"{url}/agent/health/ready").status_code == 200
        refused = httpx.post(f"{url}/agent/health", content=b"{}")
        assert refused.status_code == 405


def test_readiness_names_the_store_that_does_not_answer(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    threads = open_thread_store(f"sqlite:///{tmp_path / 'threads.db'}")
    store = RedisRunStore(redis_server.url, prefix=f"health{free_port()}:")
    with serve(create_app(slow, store=store, threads=threads, ready_timeout=0.3)) as url:
        ready = httpx.get(f"{url}/agent/health/ready")
        assert ready.status_code == 200
        assert ready.json() == {
            "status": "ready",
            "draining": False,
            "runStore": "ok",
            "threadStore": "ok",
        }
        with redis_server.paused():
            stalled = httpx.get(f"{url}/agent/health/ready", timeout=5)
            live = httpx.get(f"{url}/agent/health", timeout=5)
        assert stalled.status_code == 503
        body = stalled.json()
        assert body["status"] == "not_ready"
        assert body["failed"] == ["runStore"]
        assert body["runStore"] == "no answer within 0.3 s"
        assert body["threadStore"] == "ok"
        # Liveness never asks the stores: a Redis outage must not get the workers restarted.
        assert live.status_code == 200
        assert httpx.get(f"{url}/agent/health/ready").status_code == 200


def test_readiness_when_the_store_refuses_connections() -> None:
    # A port nothing listens on: the ping fails at once, with the client's reason.
    store = RedisRunStore(f"redis://127.0.0.1:{free_port()}/0")
    with serve(create_app(slow, store=store)) as url:
        answer = httpx.get(f"{url}/agent/health?ready")
    assert answer.status_code == 503
    assert answer.json()["failed"] == ["runStore"]
    assert answer.json()["runStore"].startswith("unavailable: Redis unreachable")


def test_a_mounted_endpoint_serves_health_below_its_mount_point() -> None:
    endpoint = AgentEndpoint(slow, store=InMemoryRunStore())
    app = Starlette(routes=[Mount("/api/agent", endpoint)], lifespan=endpoint.lifespan)
    with serve(app) as url:
        assert httpx.get(f"{url}/api/agent/health").json()["status"] == "ok"
        assert httpx.get(f"{url}/api/agent/health/ready/").json()["status"] == "ready"
        unknown = httpx.get(f"{url}/api/agent/health/deep")
        assert unknown.status_code == 404
        assert "/health/ready" in unknown.json()["error"]["message"]


@pytest.mark.anyio
async def test_draining_fails_readiness_and_refuses_new_runs() -> None:
    endpoint = AgentEndpoint(slow, store=InMemoryRunStore())
    app = Starlette(routes=endpoint.routes("/agent"), lifespan=endpoint.lifespan)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        async with endpoint.lifespan():
            assert not endpoint.draining
        assert endpoint.draining
        ready = await client.get("/agent/health/ready")
        assert ready.status_code == 503
        assert ready.json() == {"status": "not_ready", "draining": True, "failed": ["draining"]}
        assert (await client.get("/agent/health")).json() == {"status": "ok", "draining": True}
        run = await client.post(
            "/agent",
            json={"threadId": "t", "runId": "r", "messages": [], "tools": [], "context": []},
        )
        assert run.status_code == 503
        assert run.json()["error"]["code"] == "runs_not_started"


async def slower(run_input: Any, ctx: RunContext) -> None:
    for piece in ("one ", "two ", "three ", "four ", "five"):
        await anyio.sleep(0.5)
        await ctx.say(piece)


@pytest.mark.parametrize(("grace", "code"), [(10.0, None), (0.0, "server_shutdown")])
def test_shutdown_grace_lets_detached_runs_end(grace: float, code: str | None) -> None:
    """uvicorn cuts the open stream after its own graceful timeout (1 s here); then, with a
    grace, the run still going ends on its own (all of it stored, for a reader on another
    worker); without one it is stopped with ``server_shutdown`` at once."""
    store = InMemoryRunStore()
    with serve(create_app(slower, store=store, shutdown_grace=grace)) as url:
        client = httpx.Client(timeout=10)
        body = {"threadId": "t", "runId": "r", "messages": [], "tools": [], "context": []}
        response = client.send(client.build_request("POST", f"{url}/agent", json=body), stream=True)
        key = response.headers["ag-ui-resume-key"]
        next(response.iter_bytes())  # the run is going
        began = time.monotonic()
    took = time.monotonic() - began
    response.close()
    client.close()

    async def stored() -> list[Any]:
        return [item.event async for item in store.read(key)]

    events = anyio.run(stored)
    if code is None:
        assert events[-1].type == EventType.RUN_FINISHED
        text = "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)
        assert text == "one two three four five"
        assert 1.5 < took < 5.0
    else:
        assert events[-1].type == EventType.RUN_ERROR
        assert events[-1].code == code
        assert took < 3.0


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="shutdown_grace must be 0 or more seconds, got -1"):
        AgentEndpoint(slow, shutdown_grace=-1)
    with pytest.raises(ValueError, match="ready_timeout must be more than 0 seconds, got 0"):
        AgentEndpoint(slow, ready_timeout=0)
