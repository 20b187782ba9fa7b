"""The loopback guard (``server/_local_guard.py``): which ``Host`` names and which page origins
reach an agent, through every way the endpoint is served (its routes, mounted), and what the
tap refuses beyond that. In process, over httpx's own ASGI transport (whose Host is checked);
the real processes and the real browser are in ``tests/security``."""

from __future__ import annotations

from typing import Any, Optional

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from ag_ui.server import AgentEndpoint, create_app
from ag_ui.server._local_guard import LocalGuard
from ag_ui.store import open_thread_store
from ag_ui.testing import AgentClient

pytestmark = pytest.mark.anyio

RUN = {"threadId": "t", "runId": "r", "messages": [], "tools": [], "context": [], "state": {}}


async def agent(run_input: Any, ctx: Any) -> None:
    await ctx.say("hi")


async def status(
    app: Any, path: str, *, host: str, method: str = "GET", **headers: str
) -> tuple[int, Optional[str]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        response = await client.request(
            method, path, json=RUN if method == "POST" else None, headers={"host": host, **headers}
        )
    code = response.json()["error"]["code"] if response.status_code >= 400 else None
    return response.status_code, code


@pytest.mark.parametrize(
    "host",
    ["localhost", "localhost:8000", "LOCALHOST:1", "127.0.0.1:8000", "127.9.8.7", "[::1]:8000"],
)
async def test_loopback_names_are_served(host: str) -> None:
    assert await status(create_app(agent), "/agent", host=host, method="POST") == (200, None)


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "localhost.evil.example", "10.0.0.7", "[::2]"]
)
async def test_other_names_get_403_on_every_route_but_health(host: str) -> None:
    app = create_app(agent, tap=True, threads=open_thread_store("memory:"), capabilities=None)
    for method, path in [
        ("POST", "/agent"),
        ("GET", "/agent"),
        ("GET", "/agent/connect?threadId=t"),
        ("GET", "/agent/threads"),
        ("DELETE", "/agent/threads/t"),
        ("GET", "/agent/tap"),
    ]:
        assert await status(app, path, host=host, method=method) == (403, "host_not_allowed")
    assert (await status(app, "/agent/health", host=host))[0] == 200
    assert (await status(app, "/agent/health/ready", host=host))[0] == 200


async def test_a_mounted_endpoint_and_the_whole_app_are_guarded_too() -> None:
    endpoint = AgentEndpoint(agent, tap=True)
    mounted = Starlette(routes=[Mount("/agent", endpoint)])
    for app, base in [(mounted, "/agent"), (endpoint, "")]:
        evil = await status(app, base + "/", host="evil.example", method="POST")
        assert evil == (403, "host_not_allowed")
        assert (await status(app, base + "/tap", host="evil.example"))[1] == "host_not_allowed"
        assert (await status(app, base + "/health", host="evil.example"))[0] == 200
        assert (await status(app, base + "/", host="localhost", method="POST"))[0] == 200


@pytest.mark.parametrize(
    ("allowed", "host", "served"),
    [
        (["agent.example.com"], "agent.example.com", True),
        (["agent.example.com"], "AGENT.example.com:443", True),
        (["agent.example.com"], "other.example.com", False),
        (["*.example.com"], "a.b.example.com", True),
        (["*.example.com"], "example.com.evil", False),
        (["agent.example.com:8443"], "agent.example.com:8443", True),
        (["agent.example.com:8443"], "agent.example.com", False),
        (["*"], "anything.at.all", True),
        (["https://app.example.com"], "app.example.com", False),  # an origin is not a name
    ],
)
async def test_allowed_hosts(allowed: list[str], host: str, served: bool) -> None:
    app = create_app(agent, allowed_hosts=allowed)
    expected = (200, None) if served else (403, "host_not_allowed")
    assert await status(app, "/agent", host=host, method="POST") == expected


@pytest.mark.parametrize(
    ("allowed", "host", "origin", "served"),
    [
        ([], "127.0.0.1:8000", "http://127.0.0.1:8000", True),  # its own page
        ([], "127.0.0.1:8000", "http://localhost:5173", True),  # a front end on this machine
        ([], "localhost:8000", "http://[::1]:3000", True),
        ([], "127.0.0.1:8000", "https://evil.example", False),
        ([], "127.0.0.1:8000", "null", False),
        ([], "127.0.0.1:8000", "not an origin", False),
        # Behind a TLS proxy: the page is https, the app sees http and the bare name.
        (["agent.example.com"], "agent.example.com", "https://agent.example.com", True),
        (["agent.example.com"], "agent.example.com", "https://agent.example.com:8443", False),
        # A loopback page may not call a server reached by a public name.
        (["agent.example.com"], "agent.example.com", "http://localhost:3000", False),
        (["https://app.example.com"], "127.0.0.1:8000", "https://app.example.com", True),
        (["https://app.example.com"], "127.0.0.1:8000", "http://app.example.com", False),
        (["*"], "127.0.0.1:8000", "https://anyone.example", True),
    ],
)
async def test_origins(allowed: list[str], host: str, origin: str, served: bool) -> None:
    app = create_app(agent, allowed_hosts=allowed)
    got = await status(app, "/agent", host=host, method="POST", origin=origin)
    assert got == ((200, None) if served else (403, "cross_origin_request"))


@pytest.mark.parametrize(
    ("site", "served"),
    [("none", True), ("same-origin", True), ("same-site", True), ("cross-site", False)],
)
async def test_sec_fetch_site_without_origin(site: str, served: bool) -> None:
    headers = {"sec-fetch-site": site}
    got = await status(create_app(agent), "/agent", host="localhost", method="POST", **headers)
    assert got == ((200, None) if served else (403, "cross_origin_request"))


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://localhost:3000"},
        {"origin": "https://app.example.com"},
        {"origin": "https://anyone.example"},
        {"sec-fetch-site": "same-site"},
        {"sec-fetch-site": "cross-site"},
    ],
)
async def test_the_tap_answers_no_other_origin_whatever_is_allowed(headers: dict[str, str]) -> None:
    app = create_app(agent, tap=True, allowed_hosts=["*", "https://app.example.com"])
    refused = await status(app, "/agent/tap", host="localhost:8000", **headers)
    assert refused == (403, "cross_origin_request")


async def test_refusals_name_the_option_and_the_entry_to_add() -> None:
    transport = httpx.ASGITransport(app=create_app(agent))
    async with httpx.AsyncClient(transport=transport, base_url="http://evil.example:9") as client:
        host = (await client.post("/agent", json=RUN)).json()["error"]
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        origin = (
            await client.post("/agent", json=RUN, headers={"origin": "https://x.example"})
        ).json()["error"]
    assert "add 'evil.example' to allowed_hosts" in host["message"]
    assert host["details"] == ["host: evil.example:9"]
    assert "add 'https://x.example' to allowed_hosts" in origin["message"]


def test_bad_entries_are_refused_when_the_endpoint_is_made() -> None:
    with pytest.raises(TypeError, match=r"write \['agent.example.com'\]"):
        AgentEndpoint(agent, allowed_hosts="agent.example.com")
    with pytest.raises(ValueError, match="is not an origin"):
        LocalGuard(["https://app.example.com/path"])
    with pytest.raises(ValueError, match="is not a host name"):
        LocalGuard(["agent.example.com/agent"])


async def test_in_process_clients_are_not_browsers() -> None:
    """ag_ui.testing's transport and Starlette's TestClient: Host unchecked, Origin checked."""
    async with AgentClient(create_app(agent)) as client:
        result = await client.run("hi")
    assert result.status == 200
    with TestClient(create_app(agent)) as test_client:  # Host: testserver
        assert test_client.post("/agent", json=RUN).status_code == 200
        foreign = test_client.post("/agent", json=RUN, headers={"origin": "https://evil.example"})
        assert foreign.status_code == 403
