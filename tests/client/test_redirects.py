"""Redirects, against real uvicorn servers: a run's ``POST`` follows 307/308 with its method and
body (as fetch does), stops with a ``RedirectError`` naming the ``Location`` on 301/302/303 and
after 20 hops, drops credentials across origins; ``GET``s (connect, capabilities) follow all.

Every test runs over both of the client's transports: its own ``StreamingTransport`` (what an
``HttpAgent`` opens for ``http://``) and httpx's (a client the caller passes in)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ag_ui.client import HttpAgent, HTTPStatusError, RedirectError
from ag_ui.client._redirects import MAX_REDIRECTS, redirected_headers, same_origin
from ag_ui.core import AgentCapabilities, IdentityCapabilities
from ag_ui.server import AgentEndpoint, RunContext
from ag_ui.store import InMemoryRunStore
from tests.support.servers import serve

pytestmark = pytest.mark.anyio

SECRET = "Bearer s3cret-token"


class Site:
    """A real server with an agent at ``/agent`` (answering with what it received) and
    ``/to/{status}?url=...`` answering ``status`` with ``Location: url``."""

    def __init__(self) -> None:
        self.runs = 0
        self.redirects = 0
        self.url = ""
        endpoint = AgentEndpoint(
            self.agent,
            capabilities=AgentCapabilities(identity=IdentityCapabilities(name="redirected")),
            store=InMemoryRunStore(),
        )
        self.endpoint = endpoint
        self.app = Starlette(
            routes=[
                *endpoint.routes("/agent"),
                Route("/to/{status:int}", self.redirect, methods=["GET", "POST"]),
                Route("/found{rest:path}", self.found, methods=["GET", "POST"]),
                Route("/loop", self.loop, methods=["GET", "POST"]),
            ],
            lifespan=endpoint.lifespan,
        )

    async def agent(self, run_input: Any, ctx: RunContext) -> None:
        self.runs += 1
        assert ctx.request is not None
        said = run_input.messages[-1].content if run_input.messages else None
        await ctx.say(f"auth={ctx.request.headers.get('authorization')} said={said}")

    async def redirect(self, request: Request) -> Response:
        self.redirects += 1
        target = request.query_params.get("url")
        headers = {"location": target} if target is not None else {}
        return Response(status_code=request.path_params["status"], headers=headers)

    async def found(self, request: Request) -> Response:
        """``/found<rest>?<query>``: 302 to ``<url>/agent<rest>?<query>`` (absolute)."""
        self.redirects += 1
        query = f"?{request.url.query}" if request.url.query else ""
        location = f"{self.url}/agent{request.path_params['rest']}{query}"
        return Response(status_code=302, headers={"location": location})

    async def loop(self, request: Request) -> Response:
        self.redirects += 1
        return Response(status_code=307, headers={"location": "/loop"})


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[Site, Site]]:
    """Two origins (127.0.0.1 on two ports)."""
    first, second = Site(), Site()
    with serve(first.app) as first.url, serve(second.app) as second.url:
        yield first, second


@pytest.fixture(params=["streaming", "httpx"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@asynccontextmanager
async def agent_at(url: str, transport: str, **options: Any) -> AsyncIterator[HttpAgent]:
    if transport == "streaming":
        agent = HttpAgent(url, **options)  # its own client: StreamingTransport for http://
        async with agent:
            yield agent
    else:
        async with httpx.AsyncClient() as client:
            yield HttpAgent(url, http_client=client, **options)


def said(agent: HttpAgent) -> str:
    content = agent.messages[-1].content
    assert isinstance(content, str)
    return content


@pytest.mark.parametrize("status", [307, 308])
async def test_a_run_follows_307_and_308_with_its_method_body_and_credentials(
    sites: tuple[Site, Site], transport: str, status: int
) -> None:
    site, _ = sites
    before = site.runs
    url = f"{site.url}/to/{status}?url=/agent"
    async with agent_at(url, transport, headers={"Authorization": SECRET}) as agent:
        agent.add_message({"id": "u1", "role": "user", "content": "hello"})
        result = await agent.run_agent()
    assert result.finished
    assert result.error is None
    assert said(agent) == f"auth={SECRET} said=hello"
    assert site.runs == before + 1


async def test_a_redirect_to_another_origin_drops_the_authorization_header(
    sites: tuple[Site, Site], transport: str
) -> None:
    first, second = sites
    url = f"{first.url}/to/307?url={second.url}/agent"
    async with agent_at(url, transport, headers={"Authorization": SECRET}) as agent:
        agent.add_message({"id": "u1", "role": "user", "content": "hello"})
        await agent.run_agent()
    assert said(agent) == "auth=None said=hello"


async def test_coming_back_to_the_first_origin_does_not_restore_it(
    sites: tuple[Site, Site], transport: str
) -> None:
    first, second = sites
    back = f"{second.url}/to/308?url={first.url}/agent"
    url = f"{first.url}/to/307?url={httpx.URL(back)}"
    async with agent_at(url, transport, headers={"Authorization": SECRET}) as agent:
        await agent.run_agent()
    assert said(agent) == "auth=None said=None"


@pytest.mark.parametrize("status", [301, 302, 303])
async def test_a_run_is_not_turned_into_a_get_by_301_302_303(
    sites: tuple[Site, Site], transport: str, status: int
) -> None:
    site, _ = sites
    before = site.runs
    url = f"{site.url}/to/{status}?url=/agent"
    async with agent_at(url, transport) as agent:
        with pytest.raises(RedirectError) as caught:
            await agent.run_agent()
    error = caught.value
    assert isinstance(error, HTTPStatusError)
    assert (error.status, error.location) == (status, "/agent")
    message = str(error)
    assert f"HTTP {status} from {site.url}/to/{status} redirects to '/agent'" in message
    assert f"point it at {site.url}/agent" in message
    assert "307/308" in message
    assert site.runs == before


async def test_redirects_are_bounded_at_20(sites: tuple[Site, Site], transport: str) -> None:
    site, _ = sites
    before = site.redirects
    async with agent_at(f"{site.url}/loop", transport) as agent:
        with pytest.raises(RedirectError, match="more than 20 redirects in a row"):
            await agent.run_agent()
    assert site.redirects - before == MAX_REDIRECTS + 1 == 21


async def test_a_3xx_without_location_is_an_http_error(
    sites: tuple[Site, Site], transport: str
) -> None:
    site, _ = sites
    async with agent_at(f"{site.url}/to/307", transport) as agent:
        with pytest.raises(HTTPStatusError) as caught:
            await agent.run_agent()
    assert caught.value.status == 307
    assert not isinstance(caught.value, RedirectError)


async def test_a_location_that_is_not_http_is_refused(
    sites: tuple[Site, Site], transport: str
) -> None:
    site, _ = sites
    async with agent_at(f"{site.url}/to/307?url=ftp://example.com/agent", transport) as agent:
        with pytest.raises(RedirectError, match="only http:// and https:// redirects"):
            await agent.run_agent()


async def test_connect_and_capabilities_follow_every_redirect(
    sites: tuple[Site, Site], transport: str
) -> None:
    """At ``/found`` every request gets a 302 to the same under ``/agent``: a run's POST is
    refused, ``GET /found/connect?...`` and ``GET /found/capabilities`` follow it."""
    site, _ = sites
    body = {
        "threadId": "t",
        "runId": "r",
        "messages": [{"id": "u1", "role": "user", "content": "x"}],
    }
    async with httpx.AsyncClient() as http:
        posted = await http.post(f"{site.url}/agent", json=body)
    key = posted.headers["ag-ui-resume-key"]
    async with agent_at(f"{site.url}/found", transport) as agent:
        with pytest.raises(RedirectError):
            await agent.run_agent()
        capabilities = await agent.get_capabilities()
        assert capabilities is not None
        assert capabilities.identity is not None
        assert capabilities.identity.name == "redirected"
        await agent.connect_agent(run_key=key)
    assert said(agent) == "auth=None said=x"


@pytest.mark.parametrize(
    ("source", "target", "same"),
    [
        ("http://a.test/agent", "http://a.test:80/elsewhere", True),
        ("https://a.test/agent", "https://A.TEST:443/agent/", True),
        ("http://a.test/agent", "https://a.test/agent", False),  # the scheme is in the origin
        ("http://a.test/agent", "http://a.test:8080/agent", False),
        ("http://a.test/agent", "http://b.test/agent", False),
    ],
)
def test_origins_and_the_credentials_that_cross_them(source: str, target: str, same: bool) -> None:
    headers = {"Authorization": SECRET, "cookie": "session=1", "X-Trace": "t"}
    kept = redirected_headers(headers, httpx.URL(source), httpx.URL(target))
    assert same_origin(httpx.URL(source), httpx.URL(target)) is same
    assert kept == (headers if same else {"X-Trace": "t"})
