"""The demo agent as a Starlette app, with its declared capabilities."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette

from ag_ui.core import (
    AgentCapabilities,
    HumanInTheLoopCapabilities,
    IdentityCapabilities,
    MultiAgentCapabilities,
    ReasoningCapabilities,
    StateCapabilities,
    SubagentInfo,
    Tool,
    ToolsCapabilities,
    TransportCapabilities,
)
from ag_ui.demo.agent import WEATHER_TOOL, make_demo_agent
from ag_ui.server import create_app

__all__ = ["DEMO_CAPABILITIES", "create_demo_app"]

DEMO_CAPABILITIES = AgentCapabilities(
    identity=IdentityCapabilities(
        name="ag-ui-demo",
        type="demo",
        description="Deterministic offline demo agent of the ag-ui-sdk Python SDK",
    ),
    transport=TransportCapabilities(streaming=True),
    tools=ToolsCapabilities(
        supported=True,
        items=[
            Tool(
                name=WEATHER_TOOL,
                description="Current weather for a city (deterministic demo data)",
                parameters={
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            )
        ],
        client_provided=True,
    ),
    state=StateCapabilities(snapshots=True, deltas=True),
    reasoning=ReasoningCapabilities(supported=True, streaming=True),
    multi_agent=MultiAgentCapabilities(supported=True, subagents=[SubagentInfo(name="researcher")]),
    human_in_the_loop=HumanInTheLoopCapabilities(supported=True, interrupts=True, approvals=True),
)


def create_demo_app(*, path: str = "/agent", delay: float = 0.0, **options: Any) -> Starlette:
    """A Starlette app serving the demo agent at ``POST path`` and ``GET path/capabilities``."""
    return create_app(
        make_demo_agent(delay=delay), path=path, capabilities=DEMO_CAPABILITIES, **options
    )
