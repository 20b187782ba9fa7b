"""Every way users put an ``AgentEndpoint`` into a FastAPI or Starlette app, each served by a
real uvicorn and used by this SDK's client: the run (``POST``, with and without a trailing
slash), ``GET /capabilities``, ``GET /connect`` (resume) and the inspector's tap, where the way
reaches them; a store-backed endpoint mounted without its lifespan says how to fix it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import pytest
from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from ag_ui.client import HttpAgent, HTTPStatusError
from ag_ui.core import AgentCapabilities, IdentityCapabilities
from ag_ui.server import AgentEndpoint, RunContext
from ag_ui.server._routing import sub_resource
from ag_ui.store import InMemoryRunStore
from tests.support.servers import serve
from tests.support.sse import tap_messages

pytestmark = pytest.mark.anyio

CAPS = AgentCapabilities(identity=IdentityCapabilities(name="mounted"))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def echo(run_input: Any, ctx: RunContext) -> None:
    said = run_input.messages[-1].content if run_input.messages else "nothing"
    await ctx.say(f"you said {said}")


def new_endpoint() -> AgentEndpoint:
    return AgentEndpoint(echo, capabilities=CAPS, store=InMemoryRunStore(), tap=True)


async def health(request: Any) -> PlainTextResponse:
    return PlainTextResponse("ok")


def fastapi_mount(endpoint: AgentEndpoint) -> Any:
    app = FastAPI(lifespan=endpoint.lifespan)
    app.mount("/agent", endpoint)
    return app


def starlette_mount(endpoint: AgentEndpoint) -> Any:
    return Starlette(
        routes=[Mount("/agent", endpoint), Route("/health", health)], lifespan=endpoint.lifespan
    )


def fastapi_routes(endpoint: AgentEndpoint) -> Any:
    app = FastAPI(lifespan=endpoint.lifespan)
    app.router.routes.extend(endpoint.routes("/agent"))
    return app


def starlette_routes(endpoint: AgentEndpoint) -> Any:
    return Starlette(
        routes=[*endpoint.routes("/agent"), Route("/health", health)], lifespan=endpoint.lifespan
    )


def fastapi_add_route(endpoint: AgentEndpoint) -> Any:
    app = FastAPI(lifespan=endpoint.lifespan)
    app.add_route("/agent", endpoint, methods=["POST"])
    return app


def starlette_add_route(endpoint: AgentEndpoint) -> Any:
    app = Starlette(lifespan=endpoint.lifespan)
    app.add_route("/agent", endpoint, methods=["POST"])
    return app


def whole_app(endpoint: AgentEndpoint) -> Any:
    return endpoint  # uvicorn.run(endpoint): the endpoint runs its own lifespan


@dataclass(frozen=True)
class Way:
    build: Callable[[AgentEndpoint], Any]
    path: str  # where the agent is
    everything: bool  # capabilities, connect and tap are reachable too
    root_path: str = ""


WAYS = {
    "fastapi app.mount": Way(fastapi_mount, "/agent", everything=True),
    "starlette Mount": Way(starlette_mount, "/agent", everything=True),
    "fastapi routes.extend(routes())": Way(fastapi_routes, "/agent", everything=True),
    "starlette routes=routes()": Way(starlette_routes, "/agent", everything=True),
    "fastapi add_route": Way(fastapi_add_route, "/agent", everything=False),
    "starlette add_route": Way(starlette_add_route, "/agent", everything=False),
    "the whole app": Way(whole_app, "", everything=True),
    # uvicorn --root-path /api, behind a proxy that strips /api: uvicorn puts it back in the
    # path. The slash: Starlette's redirect of /agent names /api/agent/, the proxy's address.
    "fastapi app.mount behind a proxy (--root-path)": Way(
        fastapi_mount, "/agent/", everything=True, root_path="/api"
    ),
}


@dataclass(frozen=True)
class Served:
    way: Way
    url: str  # the agent's URL

    @property
    def base(self) -> str:
        return self.url.removesuffix(self.way.path) if self.way.path else self.url


@pytest.fixture(scope="module", params=sorted(WAYS))
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    way = WAYS[request.param]
    options: dict[str, Any] = {"root_path": way.root_path} if way.root_path else {}
    with serve(way.build(new_endpoint()), **options) as base:
        yield Served(way, base + way.path)


async def run_text(url: str, text: str = "hello") -> str:
    async with HttpAgent(url) as agent:
        agent.add_message({"id": "u1", "role": "user", "content": text})
        result = await agent.run_agent()
        assert result.error is None
        content = agent.messages[-1].content
    assert isinstance(content, str)
    return content


async def test_a_run(served: Served) -> None:
    assert await run_text(served.url) == "you said hello"


async def test_a_run_with_a_trailing_slash(served: Served) -> None:
    assert await run_text(served.url + "/", "again") == "you said again"


async def test_capabilities(served: Served) -> None:
    async with HttpAgent(served.url) as agent:
        capabilities = await agent.get_capabilities()
    if not served.way.everything:
        assert capabilities is None  # only the run has a route
        return
    assert capabilities == CAPS


async def test_connect_resumes_a_stored_run(served: Served) -> None:
    body = {
        "threadId": "t",
        "runId": "r",
        "messages": [{"id": "u", "role": "user", "content": "x"}],
    }
    async with httpx.AsyncClient(follow_redirects=True) as http:
        posted = await http.post(served.url, json=body)
    assert posted.status_code == 200
    key = posted.headers["ag-ui-resume-key"]
    async with HttpAgent(served.url) as agent:
        if not served.way.everything:
            with pytest.raises(HTTPStatusError) as caught:
                await agent.connect_agent(run_key=key)
            assert caught.value.status in (404, 405)
            return
        await agent.connect_agent(run_key=key)
        assert agent.messages[-1].content == "you said x"


async def test_the_tap_sees_a_run(served: Served) -> None:
    if not served.way.everything:
        async with httpx.AsyncClient() as http:
            assert (await http.get(served.url.rstrip("/") + "/tap")).status_code in (404, 405)
        return
    kinds: list[str] = []
    async with httpx.AsyncClient(timeout=10) as http, anyio.create_task_group() as tasks:
        with anyio.fail_after(10):
            messages = tap_messages(http, served.url.rstrip("/") + "/tap")
            assert (await messages.__anext__())["kind"] == "comment"  # ": tap", connected

            async def run() -> None:
                await run_text(served.url, "tapped")

            tasks.start_soon(run)
            async for message in messages:
                kinds.append(message["kind"])
                if message["kind"] == "end":
                    break
            await messages.aclose()
    assert kinds[0] == "run"
    assert "event" in kinds


async def test_unknown_paths_below_a_mount_are_the_run_and_say_so() -> None:
    """Below a mount, a path that is none of the sub-resources is the run endpoint: a GET of
    it gets the JSON 405 naming POST (not a plain 404 from the framework)."""
    endpoint = new_endpoint()
    with serve(fastapi_mount(endpoint)) as base:
        async with httpx.AsyncClient() as http:
            response = await http.get(base + "/agent/")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


async def test_a_mounted_endpoint_without_a_store_answers_connect_with_a_json_404() -> None:
    app = FastAPI()
    app.mount("/agent", AgentEndpoint(echo))
    with serve(app) as base:
        async with httpx.AsyncClient() as http:
            connect = await http.get(base + "/agent/connect?runKey=k")
            capabilities = await http.get(base + "/agent/capabilities")
            tap = await http.get(base + "/agent/tap")
        assert await run_text(base + "/agent") == "you said hello"
    assert connect.status_code == 404
    assert "no store" in connect.json()["error"]["message"]
    assert capabilities.status_code == 404
    assert "declares no capabilities" in capabilities.json()["error"]["message"]
    assert tap.status_code == 404
    assert "tap=True" in tap.json()["error"]["message"]


@pytest.mark.parametrize("framework", ["fastapi", "starlette"])
async def test_a_store_mounted_without_its_lifespan_names_the_fix(framework: str) -> None:
    endpoint = AgentEndpoint(echo, store=InMemoryRunStore())
    app: Any = FastAPI() if framework == "fastapi" else Starlette()
    app.mount("/agent", endpoint)  # the sub-app's lifespan never runs
    with serve(app) as base, pytest.raises(HTTPStatusError) as caught:
        await run_text(base + "/agent")
    assert caught.value.status == 500
    message = str(caught.value)
    assert "the run store was not started" in message
    assert "lifespan=endpoint.lifespan" in message
    assert "create_app" in message
    assert "retry later" not in message


async def test_the_whole_app_fails_to_start_when_its_lifespan_fails() -> None:
    class Broken(InMemoryRunStore):
        async def ping(self) -> None:
            raise RuntimeError("no")

    broken = AgentEndpoint(echo, store=Broken())
    with pytest.raises(RuntimeError, match="uvicorn stopped during startup"), serve(broken):
        pass


def test_add_api_route_says_to_use_add_route_or_mount() -> None:
    """FastAPI's path operations parse the request into the function's parameters; given an
    ASGI app they would answer every run with a 422 about query parameters. The endpoint
    refuses when the route is made, naming the ways that work."""
    endpoint = AgentEndpoint(echo)
    app = FastAPI()
    with pytest.raises(TypeError, match="not a FastAPI path operation") as caught:
        app.add_api_route("/agent", endpoint, methods=["POST"])
    assert "app.mount(path, endpoint)" in str(caught.value)
    assert "app.add_route(path, endpoint, methods=['POST'])" in str(caught.value)
    with pytest.raises(TypeError, match="not a FastAPI path operation"):
        app.post("/agent")(endpoint)


@pytest.mark.parametrize(
    ("path", "root_path", "expected"),
    [
        ("/agent", "", None),  # a route of its own (add_route, routes()): the run
        ("/agent/", "/agent", None),  # mounted: the mount point itself
        ("/agent", "/agent", None),
        ("/agent/capabilities", "/agent", "capabilities"),
        ("/agent/connect/", "/agent", "connect"),  # a trailing slash is the same resource
        ("/api/agent/tap", "/api/agent", "tap"),  # under --root-path /api
        ("/capabilities", "/agent", "capabilities"),  # servers that cut root_path off the path
        ("/agents/capabilities", "/agent", None),  # /agent is not a prefix of /agents
        ("/", "", None),  # the whole app
        ("/connect", "", "connect"),
        ("/agent/elsewhere", "/agent", None),  # any other path below a mount: the run
        ("/agent/health", "/agent", "health"),
        ("/agent/health/ready", "/agent", "health"),
    ],
)
def test_where_a_request_landed(path: str, root_path: str, expected: str | None) -> None:
    assert sub_resource({"type": "http", "path": path, "root_path": root_path}) == expected
