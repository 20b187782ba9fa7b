"""What the scenarios share: the client, the message, every run made so far (the capabilities
scenario compares them with the declared capabilities), and a builder for one scenario's result."""

from __future__ import annotations

import dataclasses
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any, Optional

import anyio

from ag_ui.core.errors import TransportError
from ag_ui.core.events import EventType
from ag_ui.testing.client import AgentClient
from ag_ui.testing.conversation import Conversation
from ag_ui.testing.golden import normalize_events
from ag_ui.testing.grading import Finding
from ag_ui.testing.result import RunResult
from ag_ui.testing.validation._report import RunSummary, ScenarioResult

__all__ = ["Scenario", "Session", "sample_payload", "same_content"]

FAILURE_RULES = ("http.status", "run.error")
"""Findings a scenario may replace with its own, more telling rule."""


class Session:
    """One ``agui validate`` session against one endpoint."""

    def __init__(
        self,
        client: AgentClient,
        *,
        message: str,
        messages: Optional[Mapping[str, str]] = None,
        concurrency: int = 4,
    ) -> None:
        self.client = client
        self.message = message
        self.messages = dict(messages or {})
        self.concurrency = concurrency
        self.observed: list[tuple[str, RunResult]] = []
        self.deterministic: Optional[bool] = None
        self.proto_answered: Optional[bool] = None
        self.offered_tool_called = False
        self.threads: dict[str, None] = {}
        """Every thread id a run used, in order (removed from the server at the end)."""

    def message_for(self, scenario: str, default: Optional[str] = None) -> str:
        """The first user message of ``scenario``: its own (``messages``), else ``default``,
        else the session's."""
        return self.messages.get(scenario) or default or self.message

    def conversation(self, **fields: Any) -> Conversation:
        return self.client.conversation(**fields)

    def remember(self, label: str, result: RunResult) -> RunResult:
        if result.is_stream:
            # The events are what the scenarios compare; the raw bytes of a stream are not
            # needed once graded, and a session keeps ~30 runs (memory stays bounded).
            result.body = b""
        self.observed.append((label, result))
        if result.input is not None:
            self.threads[result.input.thread_id] = None
        return result

    async def remove_threads(self, timeout: float = 10.0) -> int:
        """Delete the session's threads from a server that keeps them (``DELETE
        <url>/threads/<id>``, docs/threads.md), so that validating leaves nothing in the
        user's store; the number deleted. Nothing is sent to a server without a threads
        endpoint; a failure to delete is left as it is (it never fails the report)."""
        deleted = 0
        with anyio.move_on_after(timeout):
            try:
                listing = await self.client.request("GET", "/threads", params={"limit": 1})
                if listing.status_code != 200 or "threads" not in _json_keys(listing.content):
                    return 0
                for thread_id in self.threads:
                    quoted = urllib.parse.quote(thread_id, safe="")
                    response = await self.client.request("DELETE", f"/threads/{quoted}")
                    deleted += response.status_code == 204
            except TransportError:
                pass
        return deleted

    async def run(self, label: str, message: Optional[str] = None, **options: Any) -> RunResult:
        text = self.message if message is None else message
        return self.remember(label, await self.client.run(text, **options))

    async def run_input(self, label: str, input: Any, **options: Any) -> RunResult:
        return self.remember(label, await self.client.run(input=input, **options))

    async def send(
        self, conversation: Conversation, label: str, message: Optional[str] = None, **options: Any
    ) -> RunResult:
        text = self.message if message is None else message
        return self.remember(label, await conversation.send(text, **options))

    def interrupted_runs(self) -> list[tuple[str, RunResult]]:
        return [(label, r) for label, r in self.observed if r.outcome == "interrupt"]


def _json_keys(body: bytes) -> Any:
    import json

    try:
        parsed = json.loads(body)
    except ValueError:
        return ()
    return parsed if isinstance(parsed, dict) else ()


class Scenario:
    """Builds one scenario's ``ScenarioResult``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.findings: list[Finding] = []
        self.runs: list[RunSummary] = []
        self.started = time.monotonic()

    def graded(
        self,
        label: str,
        result: RunResult,
        *,
        expect_success: bool = True,
        replace: Optional[str] = None,
    ) -> bool:
        """Add the run's grade; ``expect_success``: a RUN_ERROR is a finding (``run.error``).
        ``replace`` puts a scenario rule in place of ``http.status``/``run.error``. True when
        the run finished normally (legal, RUN_FINISHED)."""
        self.note_run(label, result)
        findings = [dataclasses.replace(f, run=label) for f in result.verification.findings]
        error = result.run_error
        if expect_success and error is not None and result.verification.ok:
            code = f" (code {error.code!r})" if error.code else ""
            findings.append(
                Finding(
                    "run.error",
                    f"the run ended with RUN_ERROR{code}: {error.message}",
                    len(result.events) - 1,
                    "RUN_ERROR",
                    run=label,
                )
            )
        if replace is not None:
            findings = [
                dataclasses.replace(f, rule=replace, message=f"{f.message} [{f.rule}]")
                if f.rule in FAILURE_RULES
                else f
                for f in findings
            ]
        self.findings += findings
        return result.ok

    def note_run(self, label: str, result: RunResult) -> None:
        self.runs.append(
            RunSummary(
                label, result.status, result.content_type, len(result.events), result.outcome
            )
        )

    def fail(
        self,
        rule: str,
        message: str,
        *,
        run: Optional[str] = None,
        index: Optional[int] = None,
        event_type: Optional[str] = None,
        severity: str = "error",
    ) -> None:
        self.findings.append(
            Finding(rule, message, index, event_type, severity, run)  # type: ignore[arg-type]
        )

    def done(self, summary: str) -> ScenarioResult:
        failed = any(f.severity == "error" for f in self.findings)
        return ScenarioResult(
            self.name,
            "failed" if failed else "passed",
            summary,
            self.findings,
            runs=self.runs,
            seconds=time.monotonic() - self.started,
        )

    def not_exercised(self, reason: str, summary: str = "") -> ScenarioResult:
        if any(f.severity == "error" for f in self.findings):
            return self.done(summary or reason)
        return ScenarioResult(
            self.name,
            "not exercised",
            summary,
            self.findings,
            reason,
            self.runs,
            time.monotonic() - self.started,
        )


def same_content(first: RunResult, second: RunResult) -> Optional[int]:
    """``None`` when both streams carry the same events (ids and timestamps aside), else the
    index of the first event that differs."""
    a, b = normalize_events(first.events), normalize_events(second.events)
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return None if len(a) == len(b) else min(len(a), len(b))


def sample_payload(schema: Any) -> Any:
    """A value that satisfies a simple JSON Schema (an interrupt's ``responseSchema``)."""
    if not isinstance(schema, dict):
        return {"approved": True}
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None and "properties" in schema:
        kind = "object"
    if kind == "object":
        properties = schema.get("properties") or {}
        required = schema.get("required") or list(properties)
        return {name: sample_payload(properties.get(name, {})) for name in required}
    simple = {"boolean": True, "string": "ok", "integer": 1, "number": 1, "array": [], "null": None}
    return simple.get(str(kind), True)


def event_types(result: RunResult) -> set[str]:
    return set(result.event_types)


def tool_calls(result: RunResult) -> list[tuple[str, str, int]]:
    """(tool call id, tool name, event index) of every tool call the run started."""
    calls = []
    for index, event in enumerate(result.events):
        if event.type in (EventType.TOOL_CALL_START, EventType.TOOL_CALL_CHUNK):
            name = getattr(event, "tool_call_name", None)
            call_id = getattr(event, "tool_call_id", None)
            if name and call_id:
                calls.append((call_id, name, index))
    return calls
