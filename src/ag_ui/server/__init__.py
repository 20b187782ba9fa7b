"""Serve an agent over HTTP (Starlette/FastAPI/any ASGI server) with AG-UI's guarantees.

An agent is ``async def agent(run_input, ctx)``: an async generator yielding events, or a
coroutine using the ``RunContext`` helpers. ``AgentEndpoint`` turns it into an ASGI endpoint;
``create_app`` into a standalone app. Needs the ``server`` extra
(``pip install 'ag-ui-sdk[server]'``).

>>> from ag_ui.server import create_app
>>> async def agent(run_input, ctx):
...     await ctx.say(["Hello", ", world"])
>>> app = create_app(agent)  # POST /agent streams RUN_STARTED, the text, RUN_FINISHED
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

try:
    import starlette  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.server needs Starlette: install the server extra (pip install 'ag-ui-sdk[server]')"
    ) from exc

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.core.errors import (
    HistoryTrimmedError,
    RequestRejectedError,
    RunEndedError,
    RunError,
    RunNotFoundError,
    SequenceViolation,
    SequenceViolationError,
    StoreFullError,
    StoreUnavailableError,
)
from ag_ui.server._failures import (
    AGENT_ERROR_CODE,
    HISTORY_TRIMMED_CODE,
    RUN_ABANDONED_CODE,
    RUN_EXPIRED_CODE,
    SERVER_SHUTDOWN_CODE,
    STORE_UNAVAILABLE_CODE,
)
from ag_ui.server._request import DEFAULT_MAX_BODY_SIZE

if TYPE_CHECKING:
    from ag_ui.server._access import Authorize, Principal, default_principal
    from ag_ui.server._detached import DetachedRuns
    from ag_ui.server._diff import json_patch_diff
    from ag_ui.server._guard import PROTOCOL_VIOLATION_CODE, RunGuard
    from ag_ui.server._replay import RESUME_AFTER_HEADER, RESUME_KEY_HEADER
    from ag_ui.server._runner import Agent, Sink, run_agent
    from ag_ui.server._state import Activity, SharedState
    from ag_ui.server._streams import (
        ReasoningMessageStream,
        ReasoningSpan,
        Step,
        TextMessageStream,
        ToolCallStream,
    )
    from ag_ui.server._tap import Tap
    from ag_ui.server.context import RunContext
    from ag_ui.server.endpoint import (
        DEFAULT_KEEPALIVE,
        AgentEndpoint,
        CapabilitiesSource,
        create_app,
    )

# The rest is imported on first use (PEP 562): Starlette's request, routing and application
# modules, anyio's streams, asyncio, the verifier and the run stores are most of what
# ``import ag_ui.server`` used to cost (benchmarks/bench_import.py), and a process that only
# names an error or a code (a client, the CLI's other commands, a test kit) needs none of it.
_LAZY = {
    "Authorize": "_access",
    "Principal": "_access",
    "default_principal": "_access",
    "DetachedRuns": "_detached",
    "json_patch_diff": "_diff",
    "PROTOCOL_VIOLATION_CODE": "_guard",
    "RunGuard": "_guard",
    "RESUME_AFTER_HEADER": "_replay",
    "RESUME_KEY_HEADER": "_replay",
    "Agent": "_runner",
    "Sink": "_runner",
    "run_agent": "_runner",
    "Activity": "_state",
    "SharedState": "_state",
    "ReasoningMessageStream": "_streams",
    "ReasoningSpan": "_streams",
    "Step": "_streams",
    "TextMessageStream": "_streams",
    "ToolCallStream": "_streams",
    "Tap": "_tap",
    "RunContext": "context",
    "DEFAULT_KEEPALIVE": "endpoint",
    "AgentEndpoint": "endpoint",
    "CapabilitiesSource": "endpoint",
    "create_app": "endpoint",
}


if not TYPE_CHECKING:  # hidden from type checkers, so that a misspelt name is still an error

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'ag_ui.server' has no attribute {name!r}")
        value = getattr(importlib.import_module(f"ag_ui.server.{module}"), name)
        globals()[name] = value  # once: later lookups find it without calling this again
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})


__all__ = [
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
