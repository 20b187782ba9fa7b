"""Human-readable live output for ``agui run --output text``: a subscriber that prints."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Optional, TextIO

from ag_ui.core._surrogates import has_lone_surrogate, join_text, replace_lone_surrogates

if TYPE_CHECKING:
    from ag_ui.client import HttpAgent, RunAgentResult, SubscriberParams

__all__ = ["TextReporter"]

_RESULT_LIMIT = 300


def _compact(value: Any, limit: int = _RESULT_LIMIT, *, raw_strings: bool = True) -> str:
    """One-line JSON (strings as they are unless ``raw_strings`` is False), cut at ``limit``."""
    if raw_strings and isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


class TextReporter:
    """Streams words as they arrive; one line per tool call, result, state change, step."""

    def __init__(self, stream: TextIO, *, errors: Optional[TextIO] = None) -> None:
        self.stream = stream
        self.errors = stream if errors is None else errors
        """Where the failure line goes (``agui run``: stderr)."""
        self._mid_line = False
        self._pending_prefix: Optional[str] = None
        self._half = ""  # a high surrogate that ended the last write (see _write)
        self.reader_gone = False
        """True once writing failed because the reader went away (``agui run ... | head``)."""
        self.on_reader_gone: Optional[Callable[[], None]] = None
        """Called once when the reader goes away (``agui run`` aborts the run)."""

    def _write(self, text: str) -> None:
        if self.reader_gone:
            return
        # An emoji cut across two deltas arrives as two lone surrogates: the first half waits
        # for the second; a half that stays alone has no UTF-8 form and prints as U+FFFD.
        text = join_text(self._half, text)
        self._half = ""
        if text and "\ud800" <= text[-1] <= "\udbff":
            text, self._half = text[:-1], text[-1]
        if has_lone_surrogate(text):
            text = replace_lone_surrogates(text)
        try:
            self.stream.write(text)
            self.stream.flush()
        except BrokenPipeError:
            # Raising here would only reach the client's subscriber guard (logged, skipped):
            # stop writing and let the caller end the run.
            self.reader_gone = True
            if self.on_reader_gone is not None:
                self.on_reader_gone()
            return
        self._mid_line = not text.endswith("\n")

    def _open(self, prefix: str) -> None:
        # A message's "role: " prefix waits for its first non-empty piece, so an empty message
        # (pydantic-ai and Microsoft Agent Framework open one around tool calls) prints nothing.
        self._pending_prefix = prefix

    def _piece(self, delta: str) -> None:
        if not delta:
            return
        if self._pending_prefix is not None:
            if self._mid_line:
                self._write("\n")
            self._write(self._pending_prefix)
            self._pending_prefix = None
        self._write(delta)

    def _close(self) -> None:
        if self._pending_prefix is not None:
            self._pending_prefix = None  # nothing was said: no line at all
            return
        self._write("\n")

    def _line(self, text: str) -> None:
        if self._mid_line:
            self._write("\n")
        self._write(text + "\n")

    def end_line(self) -> None:
        """End a line left open by streamed text (before a prompt is shown)."""
        if self._mid_line:
            self._write("\n")

    def notice(self, text: str) -> None:
        """A line of its own, e.g. a reconnect, between whatever is streaming."""
        self._line(text)

    def on_text_message_start_event(self, params: SubscriberParams) -> None:
        self._open(f"{params.event.role or 'assistant'}: ")

    def on_text_message_content_event(self, params: SubscriberParams) -> None:
        self._piece(params.event.delta)

    def on_text_message_end_event(self, params: SubscriberParams) -> None:
        self._close()

    def on_reasoning_message_start_event(self, params: SubscriberParams) -> None:
        self._open("(reasoning) ")

    def on_reasoning_message_content_event(self, params: SubscriberParams) -> None:
        self._piece(params.event.delta)

    def on_reasoning_message_end_event(self, params: SubscriberParams) -> None:
        self._close()

    def on_tool_call_start_event(self, params: SubscriberParams) -> None:
        if self._mid_line:
            self._write("\n")
        self._write(f"tool call {params.event.tool_call_name}(")

    def on_tool_call_args_event(self, params: SubscriberParams) -> None:
        self._write(params.event.delta)

    def on_tool_call_end_event(self, params: SubscriberParams) -> None:
        self._write(")\n")

    def on_tool_call_result_event(self, params: SubscriberParams) -> None:
        event = params.event
        self._line(f"tool result [{event.tool_call_id}]: {_compact(event.content)}")

    def on_state_snapshot_event(self, params: SubscriberParams) -> None:
        self._line(f"state: {_compact(params.event.snapshot)}")

    def on_state_delta_event(self, params: SubscriberParams) -> None:
        changes = []
        for op in params.event.delta:
            value = f" {_compact(op['value'], 80, raw_strings=False)}" if "value" in op else ""
            source = f" from {op['from']}" if "from" in op else ""
            changes.append(f"{op.get('op')} {op.get('path')}{source}{value}")
        self._line("state change: " + "; ".join(changes))

    def on_messages_snapshot_event(self, params: SubscriberParams) -> None:
        self._line(f"messages snapshot: {len(params.event.messages)} message(s)")

    def on_activity_snapshot_event(self, params: SubscriberParams) -> None:
        event = params.event
        self._line(f"activity {event.activity_type}: {_compact(event.content)}")

    def on_step_started_event(self, params: SubscriberParams) -> None:
        self._line(f"[step {params.event.step_name}]")

    def on_custom_event(self, params: SubscriberParams) -> None:
        self._line(f"custom {params.event.name}: {_compact(params.event.value)}")

    def on_run_error_event(self, params: SubscriberParams) -> None:
        event = params.event
        code = f"[{event.code}] " if event.code else ""
        self._line(f"run error: {code}{event.message}")

    def summary(
        self,
        agent: HttpAgent,
        result: Optional[RunAgentResult],
        error: Optional[BaseException],
        events: int,
        *,
        hint: str = "",
    ) -> None:
        """The closing lines: outcome, counts, open interrupts, pending tool calls, state."""
        if error is not None:
            name = type(error).__name__
            line = f"--- failed after {events} event(s): {name}: {error}{hint}"
            if self.errors is self.stream:
                self._line(line)
            else:
                if self._mid_line:
                    self._write("\n")
                print(line, file=self.errors, flush=True)
            return
        assert result is not None
        self._line(
            f"--- {result.outcome_type} · {events} event(s) · "
            f"{len(result.new_messages)} new message(s)"
        )
        for interrupt in result.interrupts:
            text = f": {interrupt.message}" if interrupt.message else ""
            self._line(f"interrupt {interrupt.id} ({interrupt.reason}){text}")
        if result.pending_tool_call_ids:
            self._line("pending tool calls: " + ", ".join(result.pending_tool_call_ids))
        if result.result is not None:
            self._line(f"result: {_compact(result.result)}")
        if agent.state not in (None, {}):
            self._line(f"final state: {_compact(agent.state)}")
