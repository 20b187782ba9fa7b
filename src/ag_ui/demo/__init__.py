"""A deterministic, offline demo agent and its app, built on ``ag_ui.server``.

>>> from ag_ui.demo import create_demo_app
>>> app = create_demo_app()  # POST /agent, GET /agent/capabilities
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

__all__ = [
    "BOOKING_TOOL",
    "DEMO_CAPABILITIES",
    "DemoAgent",
    "LOCATION_TOOL",
    "LOCATION_TOOL_DEFINITION",
    "WEATHER_TOOL",
    "booking_interrupt_id",
    "create_demo_app",
    "demo_agent",
    "lookup_weather",
    "make_demo_agent",
    "pending_booking_calls",
]
