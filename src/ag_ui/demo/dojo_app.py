"""The dojo feature server: every feature's agent at ``POST /<feature>`` in one Starlette app.

The paths are the ones the dojo's ``server-starter-all-features`` integration calls
(``${url}/agentic_chat`` ...); ``GET /`` lists them, ``GET /<feature>/capabilities`` describes
each agent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Optional

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from ag_ui.core import (
    AgentCapabilities,
    HumanInTheLoopCapabilities,
    IdentityCapabilities,
    StateCapabilities,
    ToolsCapabilities,
    TransportCapabilities,
)
from ag_ui.demo.dojo import DOJO_FEATURES, DojoAgent, scripted_dojo_agents
from ag_ui.server import AgentEndpoint

__all__ = ["create_dojo_app", "dojo_capabilities"]


def dojo_capabilities(feature: str, *, mode: str) -> AgentCapabilities:
    """What one feature's agent declares at ``GET /<feature>/capabilities``."""
    return AgentCapabilities(
        identity=IdentityCapabilities(
            name=feature, type=f"dojo-{mode}", description=f"The dojo's {feature} feature"
        ),
        transport=TransportCapabilities(streaming=True),
        tools=ToolsCapabilities(supported=True, client_provided=True),
        state=StateCapabilities(snapshots=True, deltas=True),
        human_in_the_loop=HumanInTheLoopCapabilities(supported=True, approvals=True),
    )


def create_dojo_app(
    *,
    delay: float = 0.0,
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    **options: Any,
) -> Starlette:
    """The feature server: scripted agents (``delay`` seconds between streamed pieces), or with
    ``model`` (``"openai:gpt-4o-mini"``; ``base_url`` for any OpenAI-compatible server) one
    ``ModelAgent`` per feature. ``options`` go to every feature's ``AgentEndpoint``."""
    agents: dict[str, DojoAgent]
    if model is None:
        agents = scripted_dojo_agents(delay=delay)
        mode = "scripted"
    else:
        from ag_ui.demo.dojo_model import model_dojo_agents  # needs ag_ui.providers, only here

        agents = model_dojo_agents(model, base_url=base_url, api_key=api_key)
        mode = "model"
    endpoints = {
        feature: AgentEndpoint(
            agents[feature], capabilities=dojo_capabilities(feature, mode=mode), **options
        )
        for feature in DOJO_FEATURES
    }
    routes: list[BaseRoute] = []
    for feature, endpoint in endpoints.items():
        routes.extend(endpoint.routes(f"/{feature}"))

    async def index(request: Request) -> JSONResponse:
        return JSONResponse({"mode": mode, "features": [f"/{name}" for name in DOJO_FEATURES]})

    routes.append(Route("/", index))

    @asynccontextmanager
    async def lifespan(app: object) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for endpoint in endpoints.values():
                await stack.enter_async_context(endpoint.lifespan(app))
            # A model agent's HTTP client lives on this server's event loop: closed on it.
            for agent in agents.values():
                aclose = getattr(agent, "aclose", None)
                if aclose is not None:
                    stack.push_async_callback(aclose)
            yield

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.endpoints = endpoints
    return app
