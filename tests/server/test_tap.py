"""The inspector tap (``AgentEndpoint(tap=...)``): off by default, loud, who may watch, and
what a watcher sees of other clients' runs (never headers, tokens or resume keys)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from ag_ui.client import HttpAgent
from ag_ui.demo import create_demo_app
from ag_ui.inspect import Inspector
from ag_ui.server import AgentEndpoint, RequestRejectedError, Tap, create_app
from ag_ui.store import InMemoryRunStore
from tests.inspect.conftest import serve
from tests.support.sse import tap_messages

pytestmark = pytest.mark.anyio

SECRET = "Bearer sk-0123456789abcdef0123"
TOKEN = "tap-token-0123456789abcdef"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def watch_one_run(
    base: str, run: Any, headers: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Connect a watcher, then call ``run()``; return the tap's messages up to the run's end."""
    seen: list[dict[str, Any]] = []
    async with httpx.AsyncClient(timeout=10) as client, anyio.create_task_group() as tasks:
        with anyio.fail_after(10):
            messages = tap_messages(client, base + "/agent/tap", headers)
            assert (await messages.__anext__())["kind"] == "comment"  # connected: ": tap"
            tasks.start_soon(run)
            async for message in messages:
                seen.append(message)
                if message["kind"] in ("end", "rejected"):
                    break
            await messages.aclose()
    return seen


def test_the_tap_is_off_by_default() -> None:
    async def agent(run_input: Any, ctx: Any) -> None:
        await ctx.say("hi")

    endpoint = AgentEndpoint(agent)
    assert endpoint.tap is None
    paths = [route.path for route in endpoint.routes("/agent")]  # type: ignore[attr-defined]
    assert paths == ["/agent", "/agent/health", "/agent/health/ready"]  # no /agent/tap
    with serve(create_app(agent), lifespan="off") as base:
        assert httpx.get(base + "/agent/tap").status_code == 404


def test_turning_it_on_is_loud(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="ag_ui.server"):
        create_demo_app(tap=True)
    [record] = [r for r in caplog.records if "tap is ON" in r.getMessage()]
    assert "GET /agent/tap" in record.getMessage()
    assert "loopback" in record.getMessage()
    with caplog.at_level(logging.WARNING, logger="ag_ui.server"):
        create_demo_app(tap=Tap(token=TOKEN))
    assert "holding its token" in caplog.records[-1].getMessage()
    with pytest.raises(ValueError, match="at least 16 characters"):
        Tap(token="short")
    with pytest.raises(TypeError, match="tap must be True, False or a Tap"):
        AgentEndpoint(lambda i, c: None, tap="yes")  # type: ignore[arg-type]


async def test_a_watcher_sees_another_clients_run_without_its_secrets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    received: list[dict[str, Any]] = []
    with serve(create_demo_app(tap=True), lifespan="off") as base:

        async def other_client() -> None:
            agent = HttpAgent(base + "/agent", headers={"authorization": SECRET})
            agent.add_message({"id": "u1", "role": "user", "content": "weather in Oslo"})
            agent.use(record_events(received))
            await agent.run_agent(forwarded_props={"model": "m", "apiKey": SECRET})

        with caplog.at_level(logging.WARNING, logger="ag_ui.server"):
            seen = await watch_one_run(base, other_client)
    assert seen[0]["kind"] == "run"
    assert seen[0]["input"]["messages"][0]["content"] == "weather in Oslo"
    assert seen[0]["input"]["forwardedProps"] == {"model": "m", "apiKey": "[redacted]"}
    events = [json.loads(m["data"]) for m in seen if m["kind"] == "event"]
    assert events == received  # exactly what the client received, in order
    assert seen[-1]["kind"] == "end"
    assert all(isinstance(m["t"], float) for m in seen)
    assert SECRET not in json.dumps(seen)
    assert any("is watching" in r.getMessage() for r in caplog.records)


def record_events(into: list[dict[str, Any]]) -> Any:
    async def middleware(input: Any, next: Any) -> AsyncIterator[Any]:
        async for event in next.run(input):
            into.append(event.model_dump(by_alias=True, mode="json", exclude_none=True))
            yield event

    return middleware


async def test_detached_runs_are_tapped_without_their_resume_keys() -> None:
    app = create_demo_app(tap=True, store=InMemoryRunStore())
    keys: list[str] = []
    with serve(app, lifespan="on") as base:

        async def other_client() -> None:
            body = {
                "threadId": "t9",
                "runId": "r9",
                "messages": [{"id": "u1", "role": "user", "content": "hello"}],
            }
            async with httpx.AsyncClient() as client:
                response = await client.post(base + "/agent", json=body)
                keys.append(response.headers["ag-ui-resume-key"])
                assert "id: " in response.text

        seen = await watch_one_run(base, other_client)
    assert [m["kind"] for m in seen][:2] == ["run", "event"]
    assert keys
    assert keys[0] not in json.dumps(seen)


async def test_only_loopback_clients_may_watch_a_tap_without_a_token() -> None:
    app = create_demo_app(tap=True)
    remote = httpx.ASGITransport(app=app, client=("10.20.30.40", 5555))
    async with httpx.AsyncClient(transport=remote, base_url="http://localhost") as client:
        response = await client.get("/agent/tap")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    assert "loopback" in response.json()["error"]["message"]


async def test_a_tap_with_a_token_wants_it_from_everyone() -> None:
    app = create_demo_app(tap=Tap(token=TOKEN))
    remote = httpx.ASGITransport(app=app, client=("10.20.30.40", 5555))
    async with httpx.AsyncClient(transport=remote, base_url="http://localhost") as client:
        assert (await client.get("/agent/tap")).status_code == 401
        wrong = {"authorization": "Bearer wrong-token-0123456789"}
        assert (await client.get("/agent/tap", headers=wrong)).status_code == 401
        assert (await client.post("/agent/tap")).status_code == 405
    with serve(app, lifespan="off") as base:

        async def nothing() -> None:
            async with httpx.AsyncClient() as client:
                await client.post(
                    base + "/agent",
                    content=b"{not json",
                    headers={"content-type": "application/json"},
                )

        seen = await watch_one_run(base, nothing, {"authorization": f"Bearer {TOKEN}"})
    assert seen == [{"kind": "rejected", "tap": 1, "status": 400, "t": seen[0]["t"]}]


async def test_the_endpoints_authorize_hook_guards_the_tap_too() -> None:
    def authorize(request: Any) -> Any:
        if request.headers.get("x-user") != "ops":
            raise RequestRejectedError(401, "unauthorized", "who are you?")
        return "ops"

    app = create_demo_app(tap=True, authorize=authorize)
    local = httpx.ASGITransport(app=app, client=("127.0.0.1", 5555))
    async with httpx.AsyncClient(transport=local, base_url="http://localhost") as client:
        assert (await client.get("/agent/tap")).status_code == 401


async def test_the_inspector_shows_tapped_runs_as_sessions() -> None:
    with serve(create_demo_app(tap=True), lifespan="off") as base:
        inspector = Inspector(url=base + "/agent", tap=True)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(inspector.run)
            with anyio.fail_after(10):
                while inspector.tap_status != "watching":
                    await anyio.sleep(0.01)
                agent = HttpAgent(base + "/agent", thread_id="someone-else", proto=True)
                agent.add_message({"id": "u1", "role": "user", "content": "research tides"})
                await agent.run_agent()  # protobuf: the tap forwards frames, we decode them
                while not any(
                    s.kind == "tap" and s.rows and s.rows[-1].type == "RUN_FINISHED"
                    for s in inspector.sessions.values()
                ):
                    await anyio.sleep(0.01)
            tasks.cancel_scope.cancel()
    [session] = [s for s in inspector.sessions.values() if s.kind == "tap"]
    assert session.title == "tapped thread someone-else"
    assert session.runs[0].input is not None
    assert session.runs[0].input["threadId"] == "someone-else"
    assert [r.type for r in session.rows][:1] == ["RUN_STARTED"]
    assert "SUBAGENT_STARTED" in {r.type for r in session.rows}
    assert session.findings() == []
    assert session.conversation()["messages"][-1]["content"] == "My researcher looked into tides."
    first = session.rows[0].raw
    assert first is not None
    assert bytes.fromhex(first.replace(" ", ""))[4:]  # the frame as received, length first
