"""Grade one event stream: the strict verifier plus the checks a client trips over later.

``StreamGrader`` runs each received event through ``ag_ui.apply.EventPipeline`` (compatibility,
null checks, chunk expansion, the §5 verifier with a strict end, the reducer) starting from the
messages and state the client sent, and adds what the verifier leaves out: tool-call arguments
that are not JSON (``tool.args-json``) and state deltas that do not apply (``state.patch``).
Decoding and transport failures are recorded as findings too, so one ``Verification`` says
everything that was wrong with a stream, each finding with its rule (``ag_ui.testing.rules``),
the index of the event (as received, chunks counted once) and the fix.

>>> from ag_ui.core import RunStartedEvent, TextMessageContentEvent
>>> grader = StreamGrader()
>>> grader.feed(RunStartedEvent(thread_id="t", run_id="r"))
>>> grader.feed(TextMessageContentEvent(message_id="m", delta="hi"))
>>> verification = grader.finish()
>>> verification.ok, verification.error.rule, verification.error.event_index
(False, 'T2', 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Optional

from ag_ui.apply import AgentState, EventPipeline
from ag_ui.core._wire import event_type_name
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import (
    AGUIError,
    AGUIValidationError,
    PatchError,
    ProtocolError,
)
from ag_ui.core.types import Tool
from ag_ui.testing.rules import Severity, rule

__all__ = ["Finding", "StreamGrader", "Verification", "grade_events"]


@dataclass(frozen=True)
class Finding:
    """One problem: its ``rule`` id, what happened, where (event index as received, ``None``
    when it is about the whole stream or the HTTP exchange) and how bad."""

    rule: str
    message: str
    event_index: Optional[int] = None
    event_type: Optional[str] = None
    severity: Severity = "error"
    run: Optional[str] = None
    """Which run of a scenario it is about (``agui validate``), if any."""

    @property
    def fix(self) -> str:
        """How to fix it (from the rule catalogue)."""
        return rule(self.rule).fix

    @property
    def agui(self) -> tuple[str, ...]:
        """The matching ag-ui-validate rule ids, if any."""
        return rule(self.rule).agui

    @property
    def title(self) -> str:
        return rule(self.rule).title

    def where(self) -> str:
        run = f"{self.run}, " if self.run else ""
        if self.event_index is None:
            return self.run or "stream"
        kind = f" {self.event_type}" if self.event_type else ""
        return f"{run}event {self.event_index}{kind}"

    def __str__(self) -> str:
        return f"[{self.rule}] {self.where()}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (the ``agui validate --output json`` shape)."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "title": self.title,
            "message": self.message,
            "eventIndex": self.event_index,
            "eventType": self.event_type,
            "fix": self.fix,
            "aguiValidate": list(self.agui),
            "run": self.run,
        }


@dataclass
class Verification:
    """The grade of one stream: every finding, errors first in stream order."""

    findings: list[Finding] = field(default_factory=list)
    exception: Optional[BaseException] = None
    """The first error as raised (an ``AGUIError`` or a transport error), for re-raising."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def ok(self) -> bool:
        """True when no finding is an error (warnings allowed)."""
        return not self.errors

    @property
    def error(self) -> Optional[Finding]:
        """The first error, or ``None``."""
        errors = self.errors
        return errors[0] if errors else None

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        if not self.findings:
            return "legal stream"
        return "; ".join(str(f) for f in self.findings)


_EMPTY_STATE: Any = object()


def _one_line(message: str) -> str:
    """Errors listing problems on separate lines, as one line (reports are line-oriented)."""
    lines = [line.strip().removeprefix("- ") for line in message.splitlines() if line.strip()]
    if len(lines) <= 1:
        return message.strip()
    return lines[0].rstrip(":") + ": " + "; ".join(lines[1:])


def _type_name(event: Any) -> Optional[str]:
    return event_type_name(event) if getattr(event, "type", None) is not None else None


class StreamGrader:
    """Feeds one stream's events through the pipeline and collects findings (sans-IO).

    ``messages`` and ``state`` are what the client sent (the reducer starts from them, so a
    delta against another state shows up); the state defaults to ``{}``, what the TypeScript
    client and ``HttpAgent`` start with. ``strict_end`` (default on) makes a stream that
    stops inside a run an ``END`` error. After the first sequence violation the rest of the
    stream is only counted: the verifier's state is no longer meaningful.
    """

    def __init__(
        self,
        *,
        messages: Iterable[Any] = (),
        state: Any = _EMPTY_STATE,
        strict_end: bool = True,
        strict_draft: bool = False,
        tools: Iterable[Tool] = (),
    ) -> None:
        if state is _EMPTY_STATE:
            state = {}
        self.findings: list[Finding] = []
        self.exception: Optional[BaseException] = None
        self._index = 0
        self._stopped = False
        self._current_index = 0
        self._pipeline = EventPipeline(
            messages=messages,
            state=state,
            strict_end=strict_end,
            on_patch_error=self._patch_failed,
            on_tool_arguments=self._tool_arguments,
            strict_draft=strict_draft,
            tools=tools,  # the run's tools: a call without the arguments they require is said
        )

    @property
    def agent_state(self) -> AgentState:
        """Messages and state after every event applied so far."""
        return self._pipeline.agent_state

    @property
    def events_seen(self) -> int:
        return self._index

    def feed(self, event: AnyEvent) -> None:
        """Grade the next event as received."""
        index = self._index
        self._index += 1
        if self._stopped:
            return
        self._current_index = index
        try:
            self._pipeline.feed(event)
        except ProtocolError as exc:
            self._stop(exc, exc.rule or "R3", str(exc), index, _type_name(event))
            return
        except AGUIValidationError as exc:
            self._stop(exc, "wire.optional-null", str(exc), index, _type_name(event))
            return
        except AGUIError as exc:
            self._stop(exc, "wire.schema", str(exc), index, _type_name(event))
            return

    def skipped(self, description: str, index: Optional[int] = None) -> None:
        """An event of a type this SDK does not know was skipped (a warning)."""
        self.findings.append(Finding("wire.unknown-event", description, index, severity="warning"))
        self._index += 1

    def decode_failed(self, exc: BaseException, rule_id: str = "wire.frame") -> None:
        """The stream broke at the decoder (``wire.frame``: bad bytes; ``wire.schema``: a frame
        that is JSON but not a valid event)."""
        index = getattr(exc, "frame_index", None)
        self._stop(exc, rule_id, str(exc), index if index is not None else self._index, None)

    def failed(self, rule_id: str, message: str, exc: Optional[BaseException] = None) -> None:
        """A failure of the exchange itself (HTTP status, content type, cut, idle)."""
        self._stop(exc, rule_id, message, None, None)

    def note(self, finding: Finding) -> None:
        """Add a finding from elsewhere (a scenario check)."""
        self.findings.append(finding)

    def finish(self) -> Verification:
        """End of the stream: the strict-end check, then the verdict."""
        if not self._stopped:
            try:
                self._pipeline.finish()
            except ProtocolError as exc:
                self._stop(exc, exc.rule or "END", str(exc), None, None)
        findings = sorted(
            self.findings,
            key=lambda f: (
                f.severity != "error",
                f.event_index if f.event_index is not None else 1 << 60,
            ),
        )
        return Verification(findings=findings, exception=self.exception)

    # -- internals ------------------------------------------------------------------------------

    def _stop(
        self,
        exc: Optional[BaseException],
        rule_id: str,
        message: str,
        index: Optional[int],
        event_type: Optional[str],
    ) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.exception is None:
            self.exception = exc
        self.findings.append(Finding(rule_id, _one_line(message), index, event_type))

    def _patch_failed(self, error: PatchError) -> None:
        self.findings.append(
            Finding(
                "state.patch",
                f"{_type_name(error.event) or 'the delta'} does not apply: {error}",
                self._current_index,
                _type_name(error.event),
            )
        )

    def _tool_arguments(self, problem: str) -> None:
        # The verifier's checks (ag_ui.verify._tool_args), reported as findings by their rule.
        rule_id = getattr(problem, "rule", "tool.args-json")
        self.findings.append(
            Finding(
                rule_id,
                str(problem),
                self._current_index,
                "TOOL_CALL_END",
                severity=rule(rule_id).severity,
            )
        )


def grade_events(
    events: Iterable[AnyEvent],
    *,
    messages: Iterable[Any] = (),
    state: Any = _EMPTY_STATE,
    strict_end: bool = True,
) -> Verification:
    """Grade a whole list of events (see ``StreamGrader``)."""
    grader = StreamGrader(messages=messages, state=state, strict_end=strict_end)
    for event in events:
        grader.feed(event)
    return grader.finish()
