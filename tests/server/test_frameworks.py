"""Mounting in Starlette and FastAPI, the capabilities endpoint, the public surface."""

from __future__ import annotations

import inspect
from typing import Any, get_type_hints

import httpx
import pytest
from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.routing import Route

import ag_ui.core.errors
import ag_ui.server
import ag_ui.store
from ag_ui.core import AgentCapabilities, IdentityCapabilities, StateCapabilities
from ag_ui.server import AgentEndpoint, RunContext, create_app
from ag_ui.server.endpoint import EndpointOptions
from tests.support.sse import sse_events

from .conftest import run_body

pytestmark = pytest.mark.anyio

CAPS = AgentCapabilities(
    identity=IdentityCapabilities(name="demo"), state=StateCapabilities(deltas=True)
)


async def hello(run_input: Any, ctx: RunContext) -> None:
    await ctx.say("hi")


def client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost")


async def assert_serves(app: Any, path: str) -> None:
    async with client(app) as http:
        response = await http.post(path, json=run_body())
        assert [e["type"] for e in sse_events(response.text)] == [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED",
        ]
        capabilities = await http.get(f"{path}/capabilities")
        assert capabilities.status_code == 200
        assert capabilities.json() == {"identity": {"name": "demo"}, "state": {"deltas": True}}


async def test_starlette_routes() -> None:
    endpoint = AgentEndpoint(hello, capabilities=CAPS)
    await assert_serves(Starlette(routes=endpoint.routes("/chat")), "/chat")


async def test_starlette_route_by_hand() -> None:
    endpoint = AgentEndpoint(hello)
    app = Starlette(routes=[Route("/chat", endpoint)])
    async with client(app) as http:
        response = await http.post("/chat", json=run_body())
        assert sse_events(response.text)[-1]["type"] == "RUN_FINISHED"


async def test_fastapi_routes_and_add_route() -> None:
    endpoint = AgentEndpoint(hello, capabilities=CAPS)
    app = FastAPI()
    app.router.routes.extend(endpoint.routes("/agent"))
    await assert_serves(app, "/agent")

    other = FastAPI()
    other.add_route("/run", AgentEndpoint(hello))
    async with client(other) as http:
        response = await http.post("/run", json=run_body())
        assert sse_events(response.text)[-1]["type"] == "RUN_FINISHED"


async def test_create_app_standalone() -> None:
    await assert_serves(create_app(hello, capabilities=CAPS), "/agent")


async def test_capabilities_from_an_async_function_and_errors() -> None:
    async def live() -> AgentCapabilities:
        return CAPS

    async with client(create_app(hello, capabilities=live)) as http:
        assert (await http.get("/agent/capabilities")).json()["identity"] == {"name": "demo"}
        head = await http.head("/agent/capabilities")
        assert head.status_code == 200
        wrong = await http.post("/agent/capabilities", json={})
        assert wrong.status_code == 405
        assert wrong.json()["error"]["code"] == "method_not_allowed"
    async with client(create_app(hello)) as http:
        assert (await http.get("/agent/capabilities")).status_code == 404


async def test_capabilities_endpoint_without_capabilities_is_a_json_404() -> None:
    endpoint = AgentEndpoint(hello)
    app = Starlette(routes=[Route("/caps", endpoint.capabilities_endpoint)])
    async with client(app) as http:
        response = await http.get("/caps")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


async def test_capabilities_use_the_authorize_hook() -> None:
    async with client(create_app(hello, capabilities=CAPS, authorize=lambda r: False)) as http:
        assert (await http.get("/agent/capabilities")).status_code == 403


def test_public_surface() -> None:
    assert ag_ui.server.__all__ == sorted(ag_ui.server.__all__)
    assert ag_ui.server.__all__ == [
        "AGENT_ERROR_CODE",
        "Activity",
        "Agent",
        "AgentEndpoint",
        "Authorize",
        "CapabilitiesSource",
        "DEFAULT_KEEPALIVE",
        "DEFAULT_MAX_BODY_SIZE",
        "DetachedRuns",
        "HISTORY_TRIMMED_CODE",
        "HistoryTrimmedError",
        "PROTOCOL_VIOLATION_CODE",
        "Principal",
        "RESUME_AFTER_HEADER",
        "RESUME_KEY_HEADER",
        "RUN_ABANDONED_CODE",
        "RUN_EXPIRED_CODE",
        "ReasoningMessageStream",
        "ReasoningSpan",
        "RequestRejectedError",
        "RunContext",
        "RunEndedError",
        "RunError",
        "RunGuard",
        "RunNotFoundError",
        "SERVER_SHUTDOWN_CODE",
        "STORE_UNAVAILABLE_CODE",
        "SequenceViolation",
        "SequenceViolationError",
        "SharedState",
        "Sink",
        "Step",
        "StoreFullError",
        "StoreUnavailableError",
        "Tap",
        "TextMessageStream",
        "ToolCallStream",
        "create_app",
        "default_principal",
        "json_patch_diff",
        "run_agent",
    ]
    for name in ag_ui.server.__all__:
        assert getattr(ag_ui.server, name) is not None


def test_create_app_options_are_exactly_the_endpoints() -> None:
    # create_app(**options: Unpack[EndpointOptions]) types what it passes to AgentEndpoint.
    parameters = inspect.signature(AgentEndpoint).parameters
    keywords = {name for name in parameters if name not in ("agent", "capabilities")}
    assert set(get_type_hints(EndpointOptions)) == keywords


def test_every_error_a_server_user_raises_or_catches_is_importable_from_ag_ui_server() -> None:
    # One class each, from the one tree in ag_ui.core.errors (ag_ui.store re-exports its own).
    names = [
        "HistoryTrimmedError",
        "RequestRejectedError",
        "RunEndedError",
        "RunError",
        "RunNotFoundError",
        "SequenceViolation",
        "StoreFullError",
        "StoreUnavailableError",
    ]
    for name in names:
        error = getattr(ag_ui.server, name)
        assert error is getattr(ag_ui.core.errors, name)
        assert issubclass(error, ag_ui.core.errors.AGUIError)
        if name in ag_ui.store.__all__:
            assert getattr(ag_ui.store, name) is error


def test_missing_server_extra_names_it() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['starlette'] = None\n"
        "try:\n    import ag_ui.server\nexcept ImportError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "pip install 'ag-ui-sdk[server]'" in done.stdout


def test_core_does_not_load_the_server_stack() -> None:
    import subprocess
    import sys

    code = "import ag_ui.core, ag_ui.encoder, sys; print('starlette' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False"


def test_documented_defaults() -> None:
    endpoint = AgentEndpoint(hello)
    assert ag_ui.server.DEFAULT_MAX_BODY_SIZE == 10 * 1024 * 1024
    assert ag_ui.server.DEFAULT_KEEPALIVE == 15.0
    assert (endpoint.keepalive, endpoint.max_body_size) == (15.0, 10 * 1024 * 1024)
    assert (endpoint.verify, endpoint.debug, endpoint.authorize) == (True, False, None)
