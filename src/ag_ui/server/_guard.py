"""The run guard: the server's promises about one run's event sequence, without I/O.

Whatever the agent does, the stream it produces through the guard

* starts with ``RUN_STARTED`` (added with the input's thread/run ids and ``protocolVersion`` when
  the agent does not send one itself);
* ends with exactly one terminal event: ``RUN_FINISHED`` when the agent returns, ``RUN_ERROR``
  when it fails, after closing every text message, tool call and reasoning stream it left open;
* never carries an event that breaks a sequence rule (PROTOCOL.md §5), with ``verify=True`` (or a
  ``verifier``): the offending event is dropped and the run ends with ``RUN_ERROR`` naming the
  rule. The checks are ``ag_ui.verify.StreamVerifier``'s, after chunk expansion, exactly what the
  TypeScript client refuses.

The guard only decides *which* events go out; the runner feeds it and writes what it returns.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol

from ag_ui.core.errors import ProtocolError, RunEndedError
from ag_ui.core.events import (
    BaseEvent,
    EventType,
    ReasoningEndEvent,
    ReasoningMessageEndEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageEndEvent,
    ToolCallEndEvent,
)
from ag_ui.core.types import RunAgentInput
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION
from ag_ui.verify import StreamVerifier

__all__ = ["PROTOCOL_VIOLATION_CODE", "RunGuard", "Verifier", "producer_verifier"]

_TERMINAL = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})
_LIFECYCLE = _TERMINAL | {EventType.RUN_STARTED}

PROTOCOL_VIOLATION_CODE = "protocol_violation"


class Verifier(Protocol):
    """What the guard needs from a verifier (``ag_ui.verify.StreamVerifier``): ``feed`` raises
    ``ProtocolError`` for an event that breaks a rule."""

    def feed(self, event: Any) -> Any: ...


def producer_verifier() -> StreamVerifier:
    """The checks a server runs on its own agent's events: chunks expanded, then verified.

    No compatibility translation (the guard judges what is sent) and no null checks: a Python
    producer writes ``subagent_run_id=None`` freely, and it is omitted on the wire.
    """
    return StreamVerifier(compatibility=False, null_checks=False)


_OPENERS: dict[EventType, tuple[str, str]] = {
    EventType.TEXT_MESSAGE_START: ("text", "message_id"),
    EventType.TOOL_CALL_START: ("tool", "tool_call_id"),
    EventType.REASONING_MESSAGE_START: ("reasoning_message", "message_id"),
    EventType.REASONING_START: ("reasoning_span", "message_id"),
}
_CLOSERS: dict[EventType, tuple[str, str]] = {
    EventType.TEXT_MESSAGE_END: ("text", "message_id"),
    EventType.TOOL_CALL_END: ("tool", "tool_call_id"),
    EventType.REASONING_MESSAGE_END: ("reasoning_message", "message_id"),
    EventType.REASONING_END: ("reasoning_span", "message_id"),
}
_CONTINUATIONS = frozenset(
    {
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TOOL_CALL_ARGS,
        EventType.REASONING_MESSAGE_CONTENT,
    }
)


class _OpenStreams:
    """Ids of streams opened and not yet closed, with their subagent tags, in opening order."""

    def __init__(self) -> None:
        self.text: dict[str, Optional[str]] = {}
        self.tool: dict[str, Optional[str]] = {}
        self.reasoning_message: dict[str, Optional[str]] = {}
        self.reasoning_span: dict[str, Optional[str]] = {}

    def track(self, event: BaseEvent) -> None:
        kind = event.type
        if kind in _CONTINUATIONS:
            return  # the common case (CONTENT/ARGS deltas) costs one set lookup
        opened = _OPENERS.get(kind)
        if opened is not None:
            streams, id_field = opened
            getattr(self, streams)[getattr(event, id_field)] = event.subagent_run_id  # type: ignore[attr-defined]
            return
        closed = _CLOSERS.get(kind)
        if closed is not None:
            streams, id_field = closed
            getattr(self, streams).pop(getattr(event, id_field), None)

    def closing_events(self) -> list[BaseEvent]:
        """END events for everything still open: innermost kinds first."""
        events: list[BaseEvent] = []
        events += [
            TextMessageEndEvent(message_id=i, subagent_run_id=t) for i, t in self.text.items()
        ]
        events += [
            ToolCallEndEvent(tool_call_id=i, subagent_run_id=t) for i, t in self.tool.items()
        ]
        events += [
            ReasoningMessageEndEvent(message_id=i, subagent_run_id=t)
            for i, t in self.reasoning_message.items()
        ]
        events += [
            ReasoningEndEvent(message_id=i, subagent_run_id=t)
            for i, t in self.reasoning_span.items()
        ]
        for streams in (self.text, self.tool, self.reasoning_message, self.reasoning_span):
            streams.clear()
        return events


class RunGuard:
    """Decides the outgoing events of one run. Sans-IO: methods return events to write.

    >>> from ag_ui.core import RunAgentInput, TextMessageStartEvent
    >>> guard = RunGuard(RunAgentInput(thread_id="t", run_id="r", messages=[]))
    >>> [e.type.value for e in guard.admit(TextMessageStartEvent(message_id="m"))]
    ['RUN_STARTED', 'TEXT_MESSAGE_START']
    >>> [e.type.value for e in guard.fail("boom", code="agent_error")]  # closes what is open
    ['TEXT_MESSAGE_END', 'RUN_ERROR']
    """

    def __init__(
        self,
        run_input: RunAgentInput,
        *,
        verify: bool = False,
        verifier: Optional[Verifier] = None,
    ) -> None:
        self.run_input = run_input
        self._verifier: Optional[Verifier] = (
            producer_verifier() if verify and verifier is None else verifier
        )
        self._open = _OpenStreams()
        self.started = False
        self.ended = False
        self.violation: Optional[ProtocolError] = None

    def admit(self, event: BaseEvent) -> list[BaseEvent]:
        """The events to write for one event from the agent.

        When the verifier refuses the event, it is dropped and the list ends with the closing
        events and ``RUN_ERROR`` naming the rule; ``violation`` then holds the verifier's error
        (the runner raises ``SequenceViolationError`` into the agent). Raises ``RunEndedError`` for
        anything after the terminal event.
        """
        if self.ended:
            raise RunEndedError(event.type.value)
        if self.started and event.type not in _LIFECYCLE:
            # The common case (a delta inside a started run): nothing to add, no run state to
            # change, so `_checked`'s call and its list are skipped (a few per cent per event).
            if self._verifier is not None:
                try:
                    self._verifier.feed(event)
                except ProtocolError as exc:
                    self.violation = exc
                    return self._violation_error()
            self._open.track(event)
            return [event]
        out: list[BaseEvent] = []
        needs_start = not self.started and event.type != EventType.RUN_STARTED
        if needs_start and not self._checked(self._run_started(), out):
            return out + self._violation_error()
        if not self._checked(event, out):
            return out + self._violation_error()
        return out

    def start(self) -> list[BaseEvent]:
        """``RUN_STARTED`` now (``[]`` once the run started or ended): for an agent that asks
        for it before its first event (``RunContext.start``)."""
        if self.started or self.ended:
            return []
        out: list[BaseEvent] = []
        if not self._checked(self._run_started(), out):
            return out + self._violation_error()
        return out

    def finish(self, result: Any = None) -> list[BaseEvent]:
        """The events to write when the agent returned: ``RUN_FINISHED`` unless already ended."""
        if self.ended:
            return []
        finished = RunFinishedEvent(
            thread_id=self.run_input.thread_id, run_id=self.run_input.run_id, result=result
        )
        return self.admit(finished)

    def fail(self, message: str, *, code: str) -> list[BaseEvent]:
        """Close what is open and end with ``RUN_ERROR`` (nothing if the run already ended)."""
        if self.ended:
            return []
        out: list[BaseEvent] = [] if self.started else [self._run_started()]
        self.started = True
        out += self._open.closing_events()
        out.append(RunErrorEvent(message=message, code=code))
        self.ended = True
        return out

    def _violation_error(self) -> list[BaseEvent]:
        assert self.violation is not None
        return self.fail(
            f"The agent produced an invalid event sequence (rule {self.violation.rule}): "
            f"{self.violation}",
            code=PROTOCOL_VIOLATION_CODE,
        )

    def _run_started(self) -> RunStartedEvent:
        return RunStartedEvent(
            thread_id=self.run_input.thread_id,
            run_id=self.run_input.run_id,
            parent_run_id=self.run_input.parent_run_id,
            protocol_version=SPOKEN_PROTOCOL_VERSION,
        )

    def _checked(self, event: BaseEvent, out: list[BaseEvent]) -> bool:
        """Verify and record one event; append it to ``out`` unless the verifier refuses it."""
        if self._verifier is not None:
            try:
                self._verifier.feed(event)
            except ProtocolError as exc:
                self.violation = exc
                return False
        if event.type == EventType.RUN_STARTED:
            self.started = True
        elif event.type in _TERMINAL:
            self.ended = True
        self._open.track(event)
        out.append(event)
        return True
