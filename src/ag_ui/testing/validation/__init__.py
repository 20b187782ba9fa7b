"""The conformance scenarios behind ``agui validate``: drive an endpoint through whole
conversations and grade every stream with the strict verifier.

``await validate(target)`` runs the scenarios (``SCENARIOS``, in order) against a URL, an ASGI
app (in process) or an ``AgentClient``, and returns a ``Report``: each scenario passed, failed
(findings with their rule id, run, event index and fix) or not exercised (with why). Rules are
in ``ag_ui.testing.rules``; docs/validate.md describes every scenario.

>>> import anyio
>>> from ag_ui.demo import create_demo_app
>>> report = anyio.run(validate, create_demo_app())
>>> report.ok, report.scenario("text").status
(True, 'passed')
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Callable, Optional, Union

import anyio

from ag_ui.core.errors import TransportError
from ag_ui.testing.client import AgentClient
from ag_ui.testing.validation._capabilities import capabilities
from ag_ui.testing.validation._conversation import interrupt, multi_turn, state, text, tools
from ag_ui.testing.validation._report import Report, RunSummary, ScenarioResult
from ag_ui.testing.validation._session import Scenario, Session
from ag_ui.testing.validation._transport import cancel, concurrent, malformed, proto, reconnect

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_EVENTS",
    "DEFAULT_MAX_SECONDS",
    "DEFAULT_MESSAGE",
    "SCENARIOS",
    "Report",
    "RunSummary",
    "ScenarioResult",
    "validate",
]

DEFAULT_MESSAGE = "Hello! Please answer with a short greeting."
DEFAULT_MAX_SECONDS = 120.0
"""The longest one response may take, request to end (``wire.endless`` past it)."""
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
"""The most body bytes read from one response (``wire.too-large`` past it)."""
DEFAULT_MAX_EVENTS = 5_000
"""The most events kept from one stream (``wire.too-large`` past it); with the byte bound,
what keeps a session's memory bounded whatever an endpoint sends."""

ScenarioFunction = Callable[[Session], Awaitable[ScenarioResult]]

SCENARIOS: dict[str, ScenarioFunction] = {
    "text": text,
    "multi-turn": multi_turn,
    "state": state,
    "tools": tools,
    "interrupt": interrupt,
    "cancel": cancel,
    "proto": proto,
    "reconnect": reconnect,
    "concurrent": concurrent,
    "malformed": malformed,
    "capabilities": capabilities,
}
"""Every scenario by name, in the order they run (later ones use what earlier ones saw)."""


def _client(target: Any, headers: Optional[Mapping[str, str]], **options: Any) -> AgentClient:
    if isinstance(target, AgentClient):
        return target
    options["headers"] = headers
    if isinstance(target, str):
        return AgentClient(url=target, **options)
    return AgentClient(target, **options)


async def validate(
    target: Union[str, AgentClient, Any],
    *,
    scenarios: Optional[Sequence[str]] = None,
    message: str = DEFAULT_MESSAGE,
    messages: Optional[Mapping[str, str]] = None,
    headers: Optional[Mapping[str, str]] = None,
    idle_timeout: float = 30.0,
    concurrency: int = 4,
    strict_draft: bool = False,
    max_seconds: float = DEFAULT_MAX_SECONDS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_events: int = DEFAULT_MAX_EVENTS,
) -> Report:
    """Run ``scenarios`` (default: all) against ``target``; see the module docstring.

    ``message`` is the first user message of every conversation; ``messages`` gives a scenario
    its own (``{"tools": "frontend call", "interrupt": "book a table"}``): the tools scenario
    otherwise asks for its tool in words, the interrupt scenario otherwise resumes the first
    interrupt another scenario met. ``strict_draft`` grades the draft specification's rules as
    violations (``D1``-``D3``; an ``AgentClient`` given as ``target`` keeps its own setting,
    as it keeps its own bounds). Every request is bounded: ``idle_timeout`` for the response
    headers and each silence, ``max_seconds`` for a whole response, ``max_bytes`` and
    ``max_events`` for what is read of it; a scenario as a whole by six times the longer of
    ``idle_timeout`` and ``max_seconds`` (at least 60 s), a backstop the request bounds reach
    first.
    Raises ``ValueError`` for an unknown scenario name and
    ``TransportError`` when the endpoint cannot be reached at all."""
    names = list(scenarios) if scenarios else list(SCENARIOS)
    unknown = [name for name in [*names, *(messages or {})] if name not in SCENARIOS]
    if unknown:
        raise ValueError(
            f"unknown scenario {unknown[0]!r}; the scenarios are: {', '.join(SCENARIOS)}"
        )
    client = _client(
        target,
        headers,
        idle_timeout=idle_timeout,
        strict_draft=strict_draft,
        max_seconds=max_seconds,
        max_bytes=max_bytes,
        max_events=max_events,
    )
    backstop = max(60.0, 6 * max(idle_timeout, max_seconds))
    report = Report(target=client.url if not isinstance(target, str) else target)
    async with client:
        await client.request("OPTIONS")  # raises TransportError when nothing answers
        session = Session(client, message=message, messages=messages, concurrency=concurrency)
        for name in (n for n in SCENARIOS if n in names):
            try:
                with anyio.fail_after(backstop):
                    result = await SCENARIOS[name](session)
            except TransportError as exc:
                failed = Scenario(name)
                failed.fail("wire.cut", f"a request failed: {exc}")
                result = failed.done("the scenario could not complete")
            except TimeoutError:
                failed = Scenario(name)
                failed.fail("wire.endless", f"the scenario did not complete within {backstop} s")
                result = failed.done("the scenario timed out")
            report.scenarios.append(result)
        await session.remove_threads()  # the test threads leave no trace in the user's store
    return report
