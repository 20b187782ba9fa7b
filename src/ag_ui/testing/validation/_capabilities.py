"""The capabilities scenario: ``GET <url>/capabilities``, if served, is valid ``AgentCapabilities``
and agrees with what every run of the session did. A capability left out means "unknown", so
only an explicit ``false`` (or ``true``) can be contradicted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from pydantic import ValidationError

from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.testing._decoding import media_type
from ag_ui.testing.validation._conversation import ECHO_TOOL
from ag_ui.testing.validation._report import ScenarioResult
from ag_ui.testing.validation._session import Scenario, Session, event_types, tool_calls

__all__ = ["capabilities"]

_ENDPOINT = "GET <url>/capabilities"


def _get(capabilities: AgentCapabilities, path: str) -> Optional[bool]:
    value: Any = capabilities
    for part in path.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value if isinstance(value, bool) else None


def _saw(session: Session, *types: str) -> Optional[str]:
    """The label of the first run that sent one of ``types``."""
    wanted = set(types)
    for label, result in session.observed:
        if event_types(result) & wanted:
            return label
    return None


def _interrupted(session: Session) -> Optional[str]:
    runs = session.interrupted_runs()
    return runs[0][0] if runs else None


def _sse_ids(session: Session) -> Optional[str]:
    for label, result in session.observed:
        if not result.proto and result.last_event_id is not None:
            return label
    return None


def _checks(session: Session) -> list[tuple[str, bool, Callable[[], Optional[str]], str]]:
    """(capability path, the value it contradicts, what was observed, what it means)."""
    return [
        ("state.snapshots", False, lambda: _saw(session, "STATE_SNAPSHOT"), "sent STATE_SNAPSHOT"),
        ("state.deltas", False, lambda: _saw(session, "STATE_DELTA"), "sent STATE_DELTA"),
        (
            "reasoning.supported",
            False,
            lambda: _saw(
                session, "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CHUNK"
            ),
            "streamed reasoning",
        ),
        (
            "multi_agent.supported",
            False,
            lambda: _saw(session, "SUBAGENT_STARTED"),
            "ran a subagent (SUBAGENT_STARTED)",
        ),
        (
            "human_in_the_loop.interrupts",
            False,
            lambda: _interrupted(session),
            "ended with an interrupt",
        ),
        (
            "human_in_the_loop.supported",
            False,
            lambda: _interrupted(session),
            "ended with an interrupt",
        ),
        ("transport.resumable", False, lambda: _sse_ids(session), "sent SSE ids for resuming"),
        (
            "tools.client_provided",
            False,
            lambda: "tool call" if session.offered_tool_called else None,
            f"called the client's tool {ECHO_TOOL['name']}",
        ),
    ]


async def capabilities(session: Session) -> ScenarioResult:
    scenario = Scenario("capabilities")
    response = await session.client.request("GET", "/capabilities")
    if response.status_code in (404, 405):
        return scenario.not_exercised(
            f"the server has no capabilities endpoint (GET <url>/capabilities answered "
            f"{response.status_code})"
        )
    kind = media_type(response.headers.get("content-type"))
    if response.status_code == 200 and "json" not in kind:
        return scenario.not_exercised(
            f"GET <url>/capabilities answered {kind or 'no Content-Type'}, not a JSON document"
        )
    if response.status_code != 200:
        scenario.fail(
            "capabilities.invalid",
            f"GET <url>/capabilities answered HTTP {response.status_code}: {response.text[:200]}",
            run=_ENDPOINT,
        )
        return scenario.done("the capabilities endpoint failed")
    try:
        declared = AgentCapabilities.model_validate_json(response.content)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3]
        )
        scenario.fail(
            "capabilities.invalid", f"not AgentCapabilities JSON: {problems}", run=_ENDPOINT
        )
        return scenario.done("the capabilities document is invalid")
    checked = 0
    for path, contradicted_by, observe, meaning in _checks(session):
        if _get(declared, path) is not contradicted_by:
            continue
        checked += 1
        run = observe()
        if run is not None:
            scenario.fail(
                "capabilities.contradicted",
                f"{_wire_path(path)} is {str(contradicted_by).lower()}, but the {run} {meaning}",
                run=run,
            )
    binary = _get(declared, "transport.http_binary")
    if binary is not None and session.proto_answered is not None:
        checked += 1
        if binary != session.proto_answered:
            answered = "answered protobuf" if session.proto_answered else "answered SSE"
            scenario.fail(
                "capabilities.contradicted",
                f"transport.httpBinary is {str(binary).lower()}, but the protobuf run {answered}",
                run="protobuf run",
            )
    if (
        _get(declared, "transport.resumable") is True
        and session.observed
        and _sse_ids(session) is None
    ):
        checked += 1
        scenario.fail(
            "capabilities.contradicted",
            "transport.resumable is true, but no run sent SSE ids to resume from",
            run="all runs",
        )
    items = declared.tools.items if declared.tools is not None else None
    if items:
        known = {tool.name for tool in items} | {ECHO_TOOL["name"]}
        for label, result in session.observed:
            unknown = sorted({name for _, name, _ in tool_calls(result)} - known)
            if unknown:
                scenario.fail(
                    "capabilities.contradicted",
                    f"tools.items does not list {', '.join(unknown)}, which the {label} called",
                    run=label,
                    severity="warning",
                )
                break
    name = declared.identity.name if declared.identity and declared.identity.name else "unnamed"
    runs = len(session.observed)
    return scenario.done(
        f"capabilities of {name!r} valid; {checked} declared value(s) that runs could "
        f"contradict, checked against {runs} runs"
    )


def _wire_path(path: str) -> str:
    head, _, tail = path.partition(".")
    camel = "".join(p if i == 0 else p.title() for i, p in enumerate(head.split("_")))
    field = "".join(p if i == 0 else p.title() for i, p in enumerate(tail.split("_")))
    return f"{camel}.{field}"
