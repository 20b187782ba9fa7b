"""A test kit for anything that speaks AG-UI: agents, servers, clients, front ends.

- ``AgentClient``: run an ASGI app in process (no socket, streamed) or a URL; ``run()`` returns
  a ``RunResult`` with the events, the verified messages and state, and the stream's grade.
- ``ScriptedAgent``: an agent that plays back a list of events or a recording, with pacing.
- ``ag_ui.testing.faults``: damage streams on either side (``FaultyApp``, ``FaultyTransport``).
- ``assert_legal_stream``, ``assert_conversation``, ``assert_golden``: failures that say what
  is wrong and how to fix it.
- ``serve(app)``: a real uvicorn on 127.0.0.1 for tests that need a socket.
- ``validate``: the conformance scenarios behind ``agui validate``.
- A pytest plugin (loaded automatically): fixtures ``agui_client``, ``scripted_agent``,
  ``agui_faults``, ``agui_golden``, ``agui_serve`` (docs/testing.md).

Needs the ``testing`` extra (httpx, starlette, uvicorn): ``pip install 'ag-ui-sdk[testing]'``.
Names are imported on first use, so ``import ag_ui.testing`` costs nothing.

>>> from ag_ui.testing import AgentClient, ScriptedAgent
>>> agent = ScriptedAgent([{"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "Hi"}])
>>> AgentClient(agent.app()).run_sync("hello").text
'Hi'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ag_ui.testing._asgi import ASGIStreamTransport
    from ag_ui.testing.assertions import assert_conversation, assert_legal_stream, describe_event
    from ag_ui.testing.client import AgentClient
    from ag_ui.testing.conversation import Conversation
    from ag_ui.testing.golden import assert_golden, normalize_events
    from ag_ui.testing.grading import Finding, StreamGrader, Verification, grade_events
    from ag_ui.testing.inputs import build_input
    from ag_ui.testing.live import LiveServer, serve
    from ag_ui.testing.result import RunResult
    from ag_ui.testing.rules import RULES, Rule
    from ag_ui.testing.scripted import ScriptedAgent
    from ag_ui.testing.validation import Report, ScenarioResult, validate

__all__ = [
    "ASGIStreamTransport",
    "AgentClient",
    "Conversation",
    "Finding",
    "LiveServer",
    "RULES",
    "Report",
    "Rule",
    "RunResult",
    "ScenarioResult",
    "ScriptedAgent",
    "StreamGrader",
    "Verification",
    "assert_conversation",
    "assert_golden",
    "assert_legal_stream",
    "build_input",
    "describe_event",
    "grade_events",
    "normalize_events",
    "serve",
    "validate",
]

_HOMES = {
    "ASGIStreamTransport": "_asgi",
    "AgentClient": "client",
    "Conversation": "conversation",
    "Finding": "grading",
    "LiveServer": "live",
    "RULES": "rules",
    "Report": "validation",
    "Rule": "rules",
    "RunResult": "result",
    "ScenarioResult": "validation",
    "ScriptedAgent": "scripted",
    "StreamGrader": "grading",
    "Verification": "grading",
    "assert_conversation": "assertions",
    "assert_golden": "golden",
    "assert_legal_stream": "assertions",
    "build_input": "inputs",
    "describe_event": "assertions",
    "grade_events": "grading",
    "normalize_events": "golden",
    "serve": "live",
    "validate": "validation",
}

_MISSING_EXTRA = "ag_ui.testing needs the testing extra: pip install 'ag-ui-sdk[testing]'"


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'ag_ui.testing' has no attribute {name!r}")
    try:
        # First, as every SDK-only subpackage does: are the files shared with ag-ui-protocol
        # ours? (Here, not at the top: the pytest plugin imports this package in every run.)
        importlib.import_module("ag_ui._require_sdk")
        module = importlib.import_module(f"ag_ui.testing.{home}")
    except ImportError as exc:
        if exc.name in ("httpx", "starlette", "uvicorn", "anyio"):
            raise ImportError(f"{_MISSING_EXTRA} ({exc})") from exc
        raise
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
