"""One run's span tree and metrics, fed by the events that pass through the run's sink.

``RunTelemetry.wrap(sink)`` (or ``observe``, called by a sink itself) sees every event the
client is sent, in order, after the guard (so the tree matches what the client saw, closing
events included): ``STEP_STARTED`` ..
``STEP_FINISHED`` becomes a ``step {name}`` span, ``TOOL_CALL_START`` .. ``TOOL_CALL_END`` a
``tool_call {name}`` span (under the step open at the time), an interrupt outcome and
``RUN_ERROR`` become span events, and the terminal event sets the run span's outcome.
``activate()`` makes the run span current while the agent runs, so that what the agent does
(the providers' ``chat`` spans, ``execute_tool``) nests under it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Optional

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode

from ag_ui.core.events import (
    BaseEvent,
    RunErrorEvent,
    RunFinishedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.telemetry._instruments import Instruments

__all__ = ["RunTelemetry", "Sink"]

Sink = Callable[[list[BaseEvent]], Awaitable[None]]


class RunTelemetry:
    """The ``invoke_agent {agent}`` span of one run, its children and its metrics."""

    def __init__(
        self,
        instruments: Instruments,
        *,
        agent_name: str,
        thread_id: str,
        run_id: str,
        headers: Optional[Mapping[str, str]] = None,
        detached: bool = False,
    ) -> None:
        self._instruments = instruments
        parent = propagate.extract(headers) if headers is not None else None
        self.span: Span = instruments.tracer.start_span(
            f"invoke_agent {agent_name}",
            context=parent,
            kind=SpanKind.SERVER,
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": agent_name,
                "gen_ai.conversation.id": thread_id,
                "ag_ui.run_id": run_id,
                "ag_ui.detached": detached,
            },
        )
        self._agent_name = agent_name
        self._agent_attributes = {"gen_ai.agent.name": agent_name}
        self._started = time.perf_counter()
        self._events = 0
        self._awaiting_first = True
        self._steps: dict[str, Span] = {}
        self._tools: dict[str, Span] = {}
        self._outcome: Optional[str] = None
        self._error_code: Optional[str] = None
        self._closed = False
        instruments.active_runs += 1

    @property
    def trace_id(self) -> str:
        """The run's trace id, 32 lowercase hex digits (the ``x-ag-ui-trace-id`` header)."""
        return trace.format_trace_id(self.span.get_span_context().trace_id)

    @property
    def span_ids(self) -> tuple[int, int]:
        """(trace id, span id) of the run span, for a detached run's resume key."""
        span_context = self.span.get_span_context()
        return span_context.trace_id, span_context.span_id

    @contextmanager
    def activate(self) -> Iterator[None]:
        """The run span as the current span (the agent runs inside)."""
        token = otel_context.attach(trace.set_span_in_context(self.span))
        try:
            yield
        finally:
            otel_context.detach(token)

    def observe(self, events: list[BaseEvent]) -> None:
        """Feed a batch of the run's events, as the client is sent them."""
        # Called for every event of a paced run (each its own batch): kept to a count, a flag
        # and one dictionary lookup by class per event (a chain of ``event.type ==
        # EventType.X`` comparisons cost a microsecond per event).
        self._events += len(events)
        if self._awaiting_first and self._events > 1:  # the first after RUN_STARTED
            self._awaiting_first = False
            self._first_event()
        if len(events) == 1:  # a paced run's every batch: no loop to set up
            handler = _handler_of(type(events[0]))
            if handler is not None:
                handler(self, events[0])
            return
        for event in events:
            handler = _handler_of(type(event))
            if handler is not None:
                handler(self, event)

    def wrap(self, sink: Sink) -> Sink:
        """``sink`` with every batch observed first (see the module docstring)."""
        observe = self.observe

        # Not a coroutine function: it observes, then hands back the sink's own awaitable,
        # which the caller awaits (a wrapper coroutine per event cost more than observing).
        def observed(events: list[BaseEvent]) -> Awaitable[None]:
            observe(events)
            return sink(events)

        return observed

    def _first_event(self) -> None:
        self._instruments.time_to_first_event.record(
            time.perf_counter() - self._started, self._agent_attributes
        )

    def _step_started(self, event: BaseEvent) -> None:
        name = str(getattr(event, "step_name", ""))
        self._steps[name] = self._child(f"step {name}", {"ag_ui.step.name": name})

    def _step_finished(self, event: BaseEvent) -> None:
        step = self._steps.pop(str(getattr(event, "step_name", "")), None)
        if step is not None:
            step.end()

    def _tool_call_started(self, event: BaseEvent) -> None:
        call_id = str(getattr(event, "tool_call_id", ""))
        name = str(getattr(event, "tool_call_name", ""))
        self._tools[call_id] = self._child(
            f"tool_call {name}", {"gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id}
        )

    def _tool_call_ended(self, event: BaseEvent) -> None:
        call = self._tools.pop(str(getattr(event, "tool_call_id", "")), None)
        if call is not None:
            call.end()

    def _child(self, name: str, attributes: dict[str, Any]) -> Span:
        # Under the step open last (a tool call inside a step), else under the run.
        parent = next(reversed(self._steps.values()), self.span)
        return self._instruments.tracer.start_span(
            name, context=trace.set_span_in_context(parent), attributes=attributes
        )

    def _finished(self, event: BaseEvent) -> None:
        outcome = getattr(event, "outcome", None)
        kind = str(getattr(outcome, "type", None) or "success")
        self._outcome = kind
        if kind == "interrupt":
            interrupts = list(getattr(outcome, "interrupts", None) or ())
            self.span.add_event(
                "ag_ui.interrupt",
                {
                    "ag_ui.interrupt.ids": [str(item.id) for item in interrupts],
                    "ag_ui.interrupt.reasons": [str(item.reason) for item in interrupts],
                },
            )
        pending = getattr(outcome, "pending_tool_call_ids", None)
        if pending:
            self.span.set_attribute("ag_ui.pending_tool_call_ids", [str(i) for i in pending])
        self._usage(event)

    def _failed(self, event: BaseEvent) -> None:
        code = getattr(event, "code", None) or "_OTHER"
        message = str(getattr(event, "message", ""))
        self._outcome, self._error_code = "error", code
        self.span.add_event("ag_ui.run_error", {"error.type": code, "ag_ui.error.message": message})
        self.span.set_attribute("error.type", code)
        self.span.set_status(Status(StatusCode.ERROR, message))
        self._instruments.run_errors.add(1, {"error.type": code})
        self._usage(event)

    def _usage(self, event: BaseEvent) -> None:
        entries = getattr(event, "usage", None) or ()
        inputs = sum(entry.input_tokens or 0 for entry in entries)
        outputs = sum(entry.output_tokens or 0 for entry in entries)
        if entries:
            self.span.set_attribute("gen_ai.usage.input_tokens", inputs)
            self.span.set_attribute("gen_ai.usage.output_tokens", outputs)

    def refused(self, code: str, message: str) -> None:
        """The run was refused before it started (the run store full or away)."""
        self._outcome, self._error_code = "refused", code
        self.span.set_attribute("error.type", code)
        self.span.set_status(Status(StatusCode.ERROR, message))
        self.close()

    def close(self, *, disconnected: bool = False) -> None:
        """End the tree: what is still open, then the run span with its outcome (``cancelled``
        when no terminal event went out: the client left, the server shut down)."""
        if self._closed:
            return
        self._closed = True
        for span in [*self._tools.values(), *reversed(self._steps.values())]:
            span.end()
        if self._outcome is None:
            self._outcome = "cancelled"
        if disconnected:
            self.span.add_event("ag_ui.client_disconnected")
            self._instruments.disconnects.add(1, self._agent_attributes)
        self.span.set_attribute("ag_ui.outcome", self._outcome)
        self.span.set_attribute("ag_ui.events", self._events)
        attributes: dict[str, Any] = {
            "gen_ai.agent.name": self._agent_name,
            "ag_ui.outcome": self._outcome,
        }
        if self._error_code is not None:
            attributes["error.type"] = self._error_code
        self._instruments.run_duration.record(time.perf_counter() - self._started, attributes)
        self._instruments.run_events.record(self._events, self._agent_attributes)
        self._instruments.active_runs -= 1
        self.span.end()


_HANDLERS: dict[type[BaseEvent], Callable[[RunTelemetry, BaseEvent], None]] = {
    StepStartedEvent: RunTelemetry._step_started,
    StepFinishedEvent: RunTelemetry._step_finished,
    ToolCallStartEvent: RunTelemetry._tool_call_started,
    ToolCallEndEvent: RunTelemetry._tool_call_ended,
    RunFinishedEvent: RunTelemetry._finished,
    RunErrorEvent: RunTelemetry._failed,
}
"""What each event the run's tree cares about does; every other event is only counted."""

_handler_of = _HANDLERS.get


def reader_span(
    instruments: Instruments,
    run_span: Optional[tuple[int, int]],
    headers: Mapping[str, str],
    attributes: dict[str, Any],
) -> Span:
    """The span of a reader reconnecting to a detached run: a child of the run's span (one
    trace, whichever worker serves it), linked to the caller's own context when it sent one."""
    caller = trace.get_current_span(propagate.extract(headers)).get_span_context()
    links = [Link(caller)] if caller.is_valid else []
    parent: Optional[otel_context.Context] = None
    if run_span is not None:
        trace_id, span_id = run_span
        remote = trace.SpanContext(
            trace_id,
            span_id,
            is_remote=True,
            trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
        )
        parent = trace.set_span_in_context(trace.NonRecordingSpan(remote))
    elif caller.is_valid:
        parent, links = propagate.extract(headers), []
    return instruments.tracer.start_span(
        "ag_ui.connect", context=parent, kind=SpanKind.SERVER, links=links, attributes=attributes
    )
