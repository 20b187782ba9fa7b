"""``agui inspect``: a browser inspector for any AG-UI agent and any recording.

The page (shipped as package data, no build step, no network beyond its own server) shows a
session: the conversation as a user sees it, the event timeline (categories, filters, search),
each event's JSON decoded and as received, the state at any event and its diff, the verifier's
findings at the event that caused them, and timing (first event, first text, rates, longest
gaps, a waterfall). Sessions come from live conversations (this process is the client, using
``HttpAgent``), from a recording played back with its timing, or from a server's tap
(``AgentEndpoint(tap=True)``). Needs the ``client`` and ``server`` extras.

>>> from ag_ui.inspect import Inspector, create_inspector_app
>>> inspector = Inspector(url="http://127.0.0.1:8000/agent")
>>> app = create_inspector_app(inspector)   # serve it on 127.0.0.1, or use serve(inspector)
"""

from __future__ import annotations

try:
    import httpx  # noqa: F401
    import starlette  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.inspect needs httpx and Starlette: pip install 'ag-ui-sdk[client,server]'"
    ) from exc

from ag_ui.inspect._app import create_inspector_app
from ag_ui.inspect._export import EXPORT_FORMATS, export_session
from ag_ui.inspect._inspector import Inspector, InspectorError
from ag_ui.inspect._live import TurnOptions
from ag_ui.inspect._rows import CATEGORIES, Finding, Row
from ag_ui.inspect._serve import serve
from ag_ui.inspect._session import Session

__all__ = [
    "CATEGORIES",
    "EXPORT_FORMATS",
    "Finding",
    "Inspector",
    "InspectorError",
    "Row",
    "Session",
    "TurnOptions",
    "create_inspector_app",
    "export_session",
    "serve",
]
