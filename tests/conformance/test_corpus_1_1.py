"""The upstream AG-UI 1.1 conformance corpus, run as a Python lane (one test per stream).

Each stream is served verbatim over real HTTP as SSE from one uvicorn on 127.0.0.1 into
``ag_ui.client.HttpAgent`` (as the TypeScript lane serves it into its ``HttpAgent``), and the
same events, as a JSON Lines recording, go through ``agui verify --output json``. What each lane
observes is compared with the fixture's ``expect`` (the README's keys: verdict, error text,
``runError``, delivered events, warnings, messages, state, the request sent).

``agui verify`` reads a file: it has no peer and sends no request, and it hands no events to
application code. So on that lane the event keys, ``request`` and ``runError`` are not
observable, and a fixture about a peer (``client`` / ``input``) is held to its verdict only.

Where this SDK does not do what a fixture asks, the test pins exactly which keys differ, with
the reason, in ``KNOWN_DEVIATIONS`` (listed in docs/verify.md as well): closing a deviation
turns its test red until the entry is deleted.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest

from ag_ui.cli import main as agui
from ag_ui.client import HttpAgent
from ag_ui.core._surrogates import wire_json
from ag_ui.core.errors import RunError
from ag_ui.core.events import RunErrorEvent
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION
from ag_ui.verify._versions import parse_version
from tests.conformance.corpus import (
    CorpusServer,
    Fixture,
    has_path,
    load,
    manifest,
    path_value,
    subset_problem,
)

pytestmark = pytest.mark.anyio

CLIENT = "client"
VERIFY = "verify"

KNOWN_DEVIATIONS: dict[tuple[str, str], tuple[frozenset[str], str]] = {
    ("reasoning-message-wrong-role-fatal", CLIENT): (
        frozenset({"errorContains"}),
        "the stream is refused for the role, as required; the expected text is zod's message "
        'as JSON (`expected \\"reasoning\\"`, backslashes included), ours reads '
        "`role: Input should be 'reasoning' (got 'assistant')`",
    ),
    ("reasoning-message-wrong-role-fatal", VERIFY): (
        frozenset({"errorContains"}),
        "as on the client lane: refused for the role, in this SDK's words rather than zod's",
    ),
}
"""(fixture, lane) -> (the expectation keys that differ, why). Kept in step with docs/verify.md."""

_SPEAKS_1_1 = parse_version(SPOKEN_PROTOCOL_VERSION) >= (1, 1, 0)


def version_gap(fixture: Fixture) -> frozenset[str]:
    """Keys that differ only while ``SPOKEN_PROTOCOL_VERSION`` is older than the corpus's 1.1 (a
    producer declaring 1.1 is then newer and warned about, and the run input declares the
    older version); empty once this SDK speaks 1.1."""
    if _SPEAKS_1_1:
        return frozenset()
    declared = {
        event.get("protocolVersion")
        for event in fixture.stream
        if isinstance(event, dict) and event.get("type") == "RUN_STARTED"
    }
    keys = set()
    if declared - {None, SPOKEN_PROTOCOL_VERSION}:
        keys |= {"noWarnings", "warnings"} & set(fixture.expect)
    if "protocolVersion" in (fixture.expect.get("request") or {}):
        keys.add("request")
    return frozenset(keys)


@dataclass
class Observed:
    outcome: str = "completed"
    error: str = ""
    run_error: Optional[str] = None
    events: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    messages: list[Any] = field(default_factory=list)
    state: Any = None
    request: Any = None


async def observe_client(fixture: Fixture, server: CorpusServer) -> Observed:
    seen = Observed()
    options: dict[str, Any] = {}
    if fixture.peer_ceiling is not None:
        options["max_protocol_version"] = fixture.peer_ceiling
    agent = HttpAgent(
        f"{server.url}/{fixture.name}",
        initial_messages=fixture.input_messages,
        initial_state={},
        **options,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            async with agent.stream() as events:
                async for event in events:
                    seen.events.append(json.loads(wire_json(event)))
                    if isinstance(event, RunErrorEvent):
                        # Reported as it arrives (TypeScript's onRunErrorEvent): a later run in
                        # the same response may still finish, and then nothing is raised.
                        seen.run_error = event.message
        except RunError as exc:
            # The last run reported its own failure: delivered as an event, not a rejection
            # (the RUN_ERROR event above already recorded it).
            seen.run_error = exc.message
        except Exception as exc:  # the client rejected the stream
            seen.outcome, seen.error = "failed", str(exc)
    seen.warnings = [str(w.message) for w in caught]
    seen.messages = [dict(m) for m in agent.agent_state.messages]
    seen.state = agent.state
    seen.request = server.requests.get(fixture.name)
    return seen


def observe_verify(fixture: Fixture, tmp_path: Path) -> Observed:
    recording = tmp_path / f"{fixture.name}.jsonl"
    recording.write_text(
        "".join(json.dumps(event, ensure_ascii=False) + "\n" for event in fixture.stream),
        encoding="utf-8",
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = agui(["verify", str(recording), "--output", "json"])
    report = json.loads(out.getvalue())
    assert status == (0 if report["ok"] else 1)
    return Observed(
        outcome="completed" if report["ok"] else "failed",
        error=report["error"] or "",
        warnings=list(report["warnings"]),
        messages=list(report["messages"]),
        state=report["state"],
    )


_NOT_SEEN_BY_VERIFY = {
    "runError",
    "eventTypes",
    "eventTypesAbsent",
    "eventPaths",
    "eventAbsentPaths",
    "request",
    "requestAbsentPaths",
}


def differences(fixture: Fixture, seen: Observed, lane: str) -> dict[str, str]:
    """Expectation key -> what this lane observed instead; empty when the lane conforms."""
    expect = fixture.expect
    if lane == VERIFY:
        keys = {"outcome", "errorContains"} if fixture.is_about_the_peer else set(expect)
        keys -= _NOT_SEEN_BY_VERIFY
    else:
        keys = set(expect)
    found: dict[str, str] = {}

    def check(key: str, problem: Optional[str]) -> None:
        if key in keys and problem:
            found[key] = problem

    types = [event.get("type") for event in seen.events]
    check(
        "outcome",
        None
        if seen.outcome == expect.get("outcome")
        else f"{seen.outcome} ({seen.error or 'no error'})",
    )
    contains = expect.get("errorContains", "")
    check("errorContains", None if contains in seen.error else f"error was {seen.error!r}")
    if "runError" in expect:
        want = expect["runError"]
        ok = seen.run_error is not None and (want is True or str(want) in seen.run_error)
        check("runError", None if ok else f"run error was {seen.run_error!r}")
    if "eventTypes" in expect:
        check("eventTypes", None if types == expect["eventTypes"] else f"delivered {types}")
    for absent in expect.get("eventTypesAbsent", []):
        check("eventTypesAbsent", f"{absent} was delivered" if absent in types else None)
    for dotted, value in (expect.get("eventPaths") or {}).items():
        got = path_value(seen.events, dotted)
        check(
            "eventPaths",
            subset_problem(got, value, dotted)
            if has_path(seen.events, dotted)
            else f"{dotted}: missing",
        )
    for dotted in expect.get("eventAbsentPaths", []):
        check("eventAbsentPaths", f"{dotted} is present" if has_path(seen.events, dotted) else None)
    for text in expect.get("warnings", []):
        if not any(text in warning for warning in seen.warnings):
            check("warnings", f"no warning contains {text!r}; warnings: {seen.warnings}")
    if expect.get("noWarnings"):
        check("noWarnings", f"warned: {seen.warnings}" if seen.warnings else None)
    if "messageCount" in expect:
        count = len(seen.messages)
        check("messageCount", None if count == expect["messageCount"] else f"{count} messages")
    if "messages" in expect:
        check("messages", subset_problem(seen.messages, expect["messages"], "messages"))
    if "state" in expect:
        check("state", subset_problem(seen.state, expect["state"], "state"))
    if "request" in expect:
        check("request", subset_problem(seen.request, expect["request"], "request"))
    for dotted in expect.get("requestAbsentPaths", []):
        check(
            "requestAbsentPaths",
            f"{dotted} was sent" if has_path(seen.request, dotted) else None,
        )
    return found


def assert_lane(fixture: Fixture, seen: Observed, lane: str) -> None:
    found = differences(fixture, seen, lane)
    gap = version_gap(fixture)
    deviating = set(found) - gap
    pinned = KNOWN_DEVIATIONS.get((fixture.name, lane))
    if pinned is None:
        assert not deviating, f"{fixture.name} on the {lane} lane: {found}"
    else:
        keys, reason = pinned
        assert deviating == keys, (
            f"{fixture.name} on the {lane} lane deviates in {sorted(found)}, pinned as "
            f"{sorted(keys)} ({reason}): {found}"
        )


NAMES = manifest()


def test_manifest_lists_every_stream() -> None:
    on_disk = sorted(p.stem for p in (Path(__file__).parent / "streams").glob("*.json"))
    assert on_disk == NAMES
    assert len(NAMES) == 68


def test_deviations_name_real_fixtures() -> None:
    for name, lane in KNOWN_DEVIATIONS:
        assert name in NAMES
        assert lane in (CLIENT, VERIFY)


@pytest.mark.parametrize("name", NAMES)
async def test_stream(name: str, corpus_server: CorpusServer, tmp_path: Path) -> None:
    fixture = load(name)
    assert fixture.raw["name"] == name
    assert_lane(fixture, await observe_client(fixture, corpus_server), CLIENT)
    assert_lane(fixture, observe_verify(fixture, tmp_path), VERIFY)
