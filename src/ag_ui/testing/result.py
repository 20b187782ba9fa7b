"""``RunResult``: everything one request to an agent produced, for assertions and recordings."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

import httpx

from ag_ui.apply import AgentState
from ag_ui.core._wire import AGUI_MEDIA_TYPE, event_type_name
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.events import EventType, RunErrorEvent, RunFinishedEvent
from ag_ui.core.types import Message, RunAgentInput
from ag_ui.recording import encode_event_line, encode_header, encode_input_line
from ag_ui.testing._decoding import is_event_stream, media_type
from ag_ui.testing.grading import Verification

__all__ = ["RunResult"]


@dataclass
class RunResult:
    """One request and its answer.

    ``events`` are the events as received (chunks not expanded), ``times`` their arrival in
    seconds since the request was sent, ``sse_ids`` their SSE ids (``None`` without).
    ``agent_state`` is the reducer's result from the input's messages and state (verified
    events only); ``verification`` grades the stream (``ag_ui.testing.grading``).
    ``cancelled`` is true when the client stopped reading on purpose (``stop_after``);
    ``resumed_at`` is the index of the first event received after a reconnect.
    """

    input: Optional[RunAgentInput]
    status: int
    headers: httpx.Headers
    body: bytes = b""
    events: list[AnyEvent] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    sse_ids: list[Optional[str]] = field(default_factory=list)
    agent_state: AgentState = field(default_factory=AgentState)
    verification: Verification = field(default_factory=Verification)
    cancelled: bool = False
    resumed_at: Optional[int] = None
    url: str = ""

    # -- the exchange ---------------------------------------------------------------------------

    @property
    def content_type(self) -> str:
        """The response's media type, without parameters."""
        return media_type(self.headers.get("content-type"))

    @property
    def is_stream(self) -> bool:
        return is_event_stream(self.content_type)

    @property
    def proto(self) -> bool:
        return self.content_type == AGUI_MEDIA_TYPE

    def json(self) -> Any:
        """The body as JSON (error answers); ``None`` if it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def ok(self) -> bool:
        """A 2xx stream that graded legal and ended with RUN_FINISHED."""
        return (
            200 <= self.status < 300
            and self.verification.ok
            and isinstance(self.terminal, RunFinishedEvent)
        )

    # -- what the agent did ---------------------------------------------------------------------

    @property
    def event_types(self) -> list[str]:
        """The type of each event received, e.g. ``["RUN_STARTED", "TEXT_MESSAGE_START", ...]``."""
        return [event_type_name(e) for e in self.events]

    @property
    def terminal(self) -> Optional[AnyEvent]:
        """The last RUN_FINISHED or RUN_ERROR received, if any."""
        for event in reversed(self.events):
            if event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR):
                return event
        return None

    @property
    def run_error(self) -> Optional[RunErrorEvent]:
        terminal = self.terminal
        return terminal if isinstance(terminal, RunErrorEvent) else None

    @property
    def outcome(self) -> Optional[str]:
        """``"success"``, ``"interrupt"``, ``"cancelled"``, ``"error"`` or ``None`` (no end)."""
        terminal = self.terminal
        if terminal is None:
            return None
        if isinstance(terminal, RunErrorEvent):
            return "error"
        outcome = getattr(terminal, "outcome", None)
        return "success" if outcome is None else str(outcome.type)

    @property
    def interrupts(self) -> list[dict[str, Any]]:
        """The interrupts the run ended with (wire JSON), empty unless ``outcome`` is interrupt."""
        if self.outcome != "interrupt":
            return []
        return [dict(interrupt) for interrupt in self.agent_state.pending_interrupts]

    @property
    def pending_tool_call_ids(self) -> list[str]:
        """Tool calls the run left for the client to answer (frontend tools)."""
        return list(self.agent_state.run.pending_tool_call_ids)

    @property
    def wire_messages(self) -> list[dict[str, Any]]:
        """The whole conversation after the run, as wire JSON dicts."""
        return [dict(message) for message in self.agent_state.messages]

    @property
    def messages(self) -> list[Message]:
        """The whole conversation after the run (the input's messages, then the new ones)."""
        return self.agent_state.typed_messages()

    @property
    def new_messages(self) -> list[Message]:
        """Messages the run added (ids not in the input)."""
        sent = {m.id for m in self.input.messages} if self.input is not None else set()
        return [m for m in self.messages if m.id not in sent]

    @property
    def state(self) -> Any:
        """The state after the run."""
        return self.agent_state.state

    @property
    def text(self) -> str:
        """The assistant text the run added, messages joined by a blank line."""
        texts = [
            m.content
            for m in self.new_messages
            if m.role == "assistant" and isinstance(m.content, str) and m.content
        ]
        return "\n\n".join(texts)

    @property
    def last_event_id(self) -> Optional[str]:
        """The SSE id of the last event received (the resume point)."""
        for sse_id in reversed(self.sse_ids):
            if sse_id is not None:
                return sse_id
        return None

    # -- recording ------------------------------------------------------------------------------

    def recording(
        self, *, source: Optional[str] = None, header: bool = True, offset: float = 0.0
    ) -> bytes:
        """The run as timed JSON Lines (``ag_ui.recording``): a header (unless ``header`` is
        false), the input and each event with its arrival time, ``offset`` seconds added (for
        the later runs of a multi-run recording). Request headers are never written."""
        lines = []
        if header:
            lines.append(
                encode_header(source=source or self.url or None, transport=self._transport())
            )
        if self.input is not None:
            lines.append(encode_input_line(self.input, at=offset))
        lines += [
            encode_event_line(e, at=offset + t)
            for e, t in zip(self.events, self.times, strict=True)
        ]
        return b"".join(lines)

    def _transport(self) -> str:
        return "proto" if self.proto else "sse"

    def __repr__(self) -> str:
        verdict = "legal" if self.verification.ok else f"ILLEGAL {self.verification.error}"
        return (
            f"<RunResult {self.status} {self.content_type or '-'} {len(self.events)} events "
            f"outcome={self.outcome} {verdict}>"
        )
