"""A deterministic, offline demo agent and its app, built on ``ag_ui.server``.

>>> from ag_ui.demo import create_demo_app
>>> app = create_demo_app()  # POST /agent, GET /agent/capabilities
>>> dojo = create_dojo_app()  # the dojo's features: POST /agentic_chat, /shared_state, ...

The dojo's features (``dojo``, ``dojo_app``; ``dojo_model`` puts a model behind each) live here
rather than in ``examples/``: ``agui demo --dojo`` serves them from an installed package.
"""

from __future__ import annotations

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)

try:
    import anyio  # noqa: F401
    import starlette  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a bare-install test
    raise ImportError("ag_ui.demo needs the server extra: pip install 'ag-ui-sdk[server]'") from exc

from ag_ui.demo.agent import (
    BOOKING_TOOL,
    LOCATION_TOOL,
    LOCATION_TOOL_DEFINITION,
    WEATHER_TOOL,
    DemoAgent,
    booking_interrupt_id,
    demo_agent,
    lookup_weather,
    make_demo_agent,
    pending_booking_calls,
)
from ag_ui.demo.app import DEMO_CAPABILITIES, create_demo_app
from ag_ui.demo.dojo import DOJO_FEATURES, scripted_dojo_agents
from ag_ui.demo.dojo_app import create_dojo_app

__all__ = [
    "BOOKING_TOOL",
    "DEMO_CAPABILITIES",
    "DOJO_FEATURES",
    "DemoAgent",
    "LOCATION_TOOL",
    "LOCATION_TOOL_DEFINITION",
    "WEATHER_TOOL",
    "booking_interrupt_id",
    "create_demo_app",
    "create_dojo_app",
    "demo_agent",
    "lookup_weather",
    "make_demo_agent",
    "pending_booking_calls",
    "scripted_dojo_agents",
]
