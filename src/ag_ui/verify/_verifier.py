"""``EventVerifier``: the event-sequence state machine of PROTOCOL.md §5 (sans-IO).

Feed expanded events (no ``*_CHUNK``; see ``ChunkExpander``) one at a time; each violation raises
``EventSequenceError`` whose ``rule`` is the rule's code in PROTOCOL.md §5 (R1-R4, N1-N7, T1-T3,
C1-C3, S1-S3, G1-G4, A1-A6, O1-O3, F1-F6). Rules are checked in the TypeScript client's order,
so the first violation reported is the same one it reports.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Callable, Optional

from pydantic import BaseModel

from ag_ui.core._wire import event_type_name, not_an_event
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import EventSequenceError, UnterminatedRunError
from ag_ui.core.events import (
    MessagesSnapshotEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
)
from ag_ui.core.outcomes import UnknownOutcome
from ag_ui.core.types import Tool
from ag_ui.verify._draft_rules import DraftRules
from ag_ui.verify._encrypted_types import check_encrypted_value_types
from ag_ui.verify._forward import warn_unknown
from ag_ui.verify._handlers import Handlers
from ag_ui.verify._nulls import check_message_nulls, explicit_null, null_error
from ag_ui.verify._ownership import Owners
from ag_ui.verify._tool_args import warn_tool_arguments

__all__ = ["EventVerifier"]


class EventVerifier(Handlers):
    """Checks that a stream of events is a legal AG-UI 1.0 sequence.

    ``feed(event)`` raises ``EventSequenceError`` (``rule``, ``event_type``, ``ids``) on the
    first illegal event. ``finish()`` ends the stream: with ``strict_end=True`` (the default) a
    stream that stopped inside a run raises ``UnterminatedRunError``; ``strict_end=False`` accepts
    it, like the TypeScript client does. Several sequential runs may share one stream.

    Tool-call arguments that are not JSON are legal (as for the TypeScript client) but said:
    ``on_tool_arguments`` gets the message (default: a ``ToolArgumentsWarning``).

    The draft specification's rules (``D1``-``D3``: ``ag_ui.verify._draft_rules``) warn with
    ``DraftRuleWarning``; ``strict_draft=True`` makes them ``EventSequenceError``.

    ``null_checks`` applies §5.2 to fields given explicitly as ``null``/``None``. Keep it on for
    events parsed from the wire; a Python producer passing ``subagent_run_id=None`` (which is
    serialized as absent anyway) may turn it off.

    >>> from ag_ui.core import RunStartedEvent, RunFinishedEvent
    >>> verifier = EventVerifier()
    >>> verifier.feed(RunStartedEvent(thread_id="t", run_id="r"))
    >>> verifier.feed(RunFinishedEvent(thread_id="t", run_id="r"))
    >>> verifier.finish()
    """

    def __init__(
        self,
        *,
        strict_end: bool = True,
        null_checks: bool = True,
        on_tool_arguments: Optional[Callable[[str], None]] = None,
        strict_draft: bool = False,
        tools: Optional[Iterable[Tool]] = None,
    ) -> None:
        self.strict_end = strict_end
        self.draft = DraftRules(strict=strict_draft)
        self.null_checks = null_checks
        self.on_tool_arguments = on_tool_arguments or warn_tool_arguments
        self.owners = Owners()
        self.open_text: dict[str, None] = {}
        self.open_tool_calls: dict[str, list[str]] = {}
        self.open_tool_names: dict[str, str] = {}
        # Known tools' schemas (rule tool.args-missing): given, then each RUN_STARTED.input's.
        self.tool_parameters: dict[str, Any] = {t.name: t.parameters for t in tools or ()}
        self.open_reasoning_spans: dict[str, None] = {}
        self.open_reasoning_messages: dict[str, None] = {}
        self.open_steps: dict[Optional[str], dict[str, None]] = {}
        self.active_subagents: dict[str, None] = {}
        self.closed_subagents: set[str] = set()
        self._first_seen = False
        self._run_started = False
        self._run_finished = False
        self._run_errored = False
        self._dispatch: dict[type, Optional[Callable[[Any], None]]] = dict(self.handler_table())

    @property
    def in_run(self) -> bool:
        """True between a RUN_STARTED and its RUN_FINISHED/RUN_ERROR."""
        return self._run_started and not (self._run_finished or self._run_errored)

    def _reset_run(self) -> None:
        self.owners.clear()
        self.open_text.clear()
        self.open_tool_calls.clear()
        self.open_tool_names.clear()
        self.open_reasoning_spans.clear()
        self.open_reasoning_messages.clear()
        self.open_steps.clear()
        self.active_subagents.clear()
        self.closed_subagents.clear()
        self._run_finished = False
        self._run_errored = False

    def feed(self, event: AnyEvent) -> None:
        """Check one event; raise ``EventSequenceError`` if it breaks a rule."""
        cls = event.__class__
        try:
            handler = self._dispatch[cls]
        except KeyError:
            handler = self._dispatch[cls] = self._handler_for_subclass(cls, event)
        if self._run_errored:
            if cls is not RunStartedEvent:
                self._framing_error(
                    "R1",
                    event,
                    "The run has already errored with 'RUN_ERROR'. No further events can be sent.",
                )
        elif self._run_finished and cls is not RunErrorEvent and cls is not RunStartedEvent:
            self._framing_error(
                "R2",
                event,
                "The run has already finished with 'RUN_FINISHED'. "
                "Start a new run with 'RUN_STARTED'.",
            )
        if not self._first_seen:
            self._first_seen = True
            if cls is not RunStartedEvent and cls is not RunErrorEvent:
                raise EventSequenceError(
                    "First event must be 'RUN_STARTED' (or 'RUN_ERROR'); "
                    f"got '{event_type_name(event)}'.",
                    rule="R3",
                    event_type=event_type_name(event),
                )
        elif cls is RunStartedEvent:
            if self._run_started and not self._run_finished and not self._run_errored:
                raise EventSequenceError(
                    "Cannot send 'RUN_STARTED' while a run is still active. The previous run "
                    "must be finished with 'RUN_FINISHED' before starting a new run.",
                    rule="R4",
                    event_type="RUN_STARTED",
                )
            if self._run_finished or self._run_errored:
                self._reset_run()
        if cls is RunStartedEvent:
            self._learn_tools(event)  # type: ignore[arg-type]

        if (
            self.null_checks
            and "subagent_run_id" in getattr(event, "__pydantic_fields_set__", ())
            and getattr(event, "subagent_run_id", None) is None
        ):
            null_error("N1", event_type_name(event), "subagentRunId", {})

        if handler is not None:
            handler(event)

    def _learn_tools(self, event: RunStartedEvent) -> None:
        if event.input is not None:
            for tool in event.input.tools:
                self.tool_parameters[tool.name] = tool.parameters

    def _handler_for_subclass(self, cls: type, event: Any) -> Optional[Callable[[Any], None]]:
        if not isinstance(event, BaseModel) or not hasattr(event, "type"):
            not_an_event(event)
        # A user subclass of an event class is verified like its base; other event models
        # (legacy THINKING_*, types from a newer protocol) only get the run-framing checks.
        for base in cls.__mro__[1:]:
            if base in self._dispatch:
                return self._dispatch[base]
        return None

    def _framing_error(self, rule: str, event: Any, detail: str) -> None:
        name = event_type_name(event)
        raise EventSequenceError(
            f"Cannot send event type '{name}': {detail}", rule=rule, event_type=name
        )

    def finish(self) -> None:
        """End of stream. Strict: a run left open (no RUN_FINISHED/RUN_ERROR) is an error."""
        if self.strict_end and self.in_run:
            raise UnterminatedRunError(
                "The stream ended inside a run: RUN_STARTED was never followed by RUN_FINISHED "
                "or RUN_ERROR (the agent crashed or the connection dropped). Pass "
                "strict_end=False to accept truncated streams.",
                rule="END",
                event_type=None,
                ids=self._open_ids(),
            )

    def _open_ids(self) -> dict[str, Any]:
        return {
            "message_ids": list(self.open_text),
            "tool_call_ids": list(self.open_tool_calls),
            "reasoning_message_ids": list(self.open_reasoning_messages),
            "reasoning_span_ids": list(self.open_reasoning_spans),
            "subagent_run_ids": list(self.active_subagents),
        }

    # -- RUN_* and MESSAGES_SNAPSHOT --------------------------------------------------------

    def _run_started_event(self, event: RunStartedEvent) -> None:
        self.draft.run_started(event)
        self._run_started = True
        run_input = getattr(event, "input", None)
        messages = getattr(run_input, "messages", None) if run_input is not None else None
        if self.null_checks:
            check_message_nulls("RUN_STARTED", messages)
        self.owners.seed(messages, authoritative=False)

    def _messages_snapshot(self, event: MessagesSnapshotEvent) -> None:
        messages = getattr(event, "messages", None)
        if self.null_checks:
            check_message_nulls("MESSAGES_SNAPSHOT", messages)
        check_encrypted_value_types("MESSAGES_SNAPSHOT", messages)
        self.owners.seed(messages, authoritative=True)

    def _run_error(self, event: RunErrorEvent) -> None:
        self._run_errored = True

    def _run_finished_event(self, event: RunFinishedEvent) -> None:
        self.draft.run_finished(event)
        outcome = event.outcome
        if isinstance(outcome, UnknownOutcome):  # kept, warned about, counts as none
            warn_unknown(f"RUN_FINISHED: outcome type {outcome.type!r} is not one this SDK knows")
        if self.null_checks:
            outcome = getattr(event, "outcome", None)
            if getattr(outcome, "type", None) == "interrupt":
                for interrupt in getattr(outcome, "interrupts", None) or ():
                    if explicit_null(interrupt, "subagent_run_id"):
                        raise EventSequenceError(
                            "Cannot send 'RUN_FINISHED' with an interrupt (id "
                            f"'{interrupt.id}') carrying 'subagentRunId: null'. The field is "
                            "optional — omit it entirely.",
                            rule="N6",
                            event_type="RUN_FINISHED",
                            ids={"interrupt_id": interrupt.id},
                        )
        self._require_closed("F1", "steps", self._open_step_names())
        self._require_closed("F2", "text messages", list(self.open_text))
        self._require_closed("F3", "reasoning messages", list(self.open_reasoning_messages))
        self._require_closed("F4", "reasoning spans", list(self.open_reasoning_spans))
        self._require_closed("F5", "tool calls", list(self.open_tool_calls))
        self._require_closed("F6", "subagents", list(self.active_subagents))
        self._run_finished = True

    def _open_step_names(self) -> list[str]:
        names: list[str] = []
        for owner, steps in self.open_steps.items():
            for name in steps:
                names.append(name if owner is None else f"{name} (subagent '{owner}')")
        return names

    @staticmethod
    def _require_closed(rule: str, what: str, still_open: list[str]) -> None:
        if still_open:
            raise EventSequenceError(
                f"Cannot send 'RUN_FINISHED' while {what} are still active: "
                f"{', '.join(still_open)}. Close them first.",
                rule=rule,
                event_type="RUN_FINISHED",
                ids={"open": still_open},
            )

    def handler_table(self) -> dict[type, Callable[[Any], None]]:
        table = super().handler_table()
        table[RunStartedEvent] = self._run_started_event
        table[RunFinishedEvent] = self._run_finished_event
        table[RunErrorEvent] = self._run_error
        table[MessagesSnapshotEvent] = self._messages_snapshot
        return table
