"""OpenAI Responses stream events -> AG-UI events. Sans-IO.

Feed it each event the SDK yields for ``responses.create(stream=True)``; ``close()`` at the
end. What becomes what (docs/providers.md has the table):

* ``response.output_text.delta`` / ``response.refusal.delta`` -> the turn's text message;
* a ``function_call`` output item -> ``TOOL_CALL_START`` (id = its ``call_id``), its
  ``response.function_call_arguments.delta`` -> ``TOOL_CALL_ARGS``, the item's ``done`` -> END;
* a ``reasoning`` output item -> a reasoning span and message with the item's id; summary text
  (``response.reasoning_summary_text.delta``, parts separated by a blank line) and raw reasoning
  text (``response.reasoning_text.delta``, from open-weight models) -> its content; the item's
  ``encrypted_content`` -> ``REASONING_ENCRYPTED_VALUE`` (subtype ``message``, type
  ``openai.encrypted_content``);
* ``response.completed`` / ``response.incomplete`` -> usage and the stop reason;
  ``response.failed`` and ``error`` events -> ``ProviderError`` (the run's ``RUN_ERROR``).

Output items of built-in tools (web search, code interpreter...) are never requested by the
agent and are ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from ag_ui.core.errors import ProviderError
from ag_ui.core.events import BaseEvent
from ag_ui.core.token_usage import TokenUsage
from ag_ui.providers._adapter import TypedEventAdapter
from ag_ui.providers._failures import code_for, failure, stream_incomplete
from ag_ui.providers._responses_request import ENCRYPTED_CONTENT
from ag_ui.providers._usage import usage_counts

__all__ = ["ResponsesAdapter"]

_INCOMPLETE_REASONS = {"max_output_tokens": "max_tokens", "content_filter": "content_filter"}


class ResponsesAdapter(TypedEventAdapter):
    """Translates one Responses stream (one model turn).

    >>> adapter = ResponsesAdapter(message_id="msg-1")
    >>> # for event in stream: events = adapter.feed(event)
    >>> # events = adapter.close(); turn = adapter.turn
    """

    default_provider = "openai"

    def _setup(self) -> None:
        super()._setup()
        self._call_ids: dict[str, str] = {}  # item id -> call_id
        self.status: Optional[str] = None
        self.stop_reason: Optional[str] = None
        self.usage: Optional[TokenUsage] = None

    def handlers(self) -> dict[str, Callable[[Any], None]]:
        return {
            "response.output_text.delta": self._text,
            "response.refusal.delta": self._text,
            "response.function_call_arguments.delta": self._arguments,
            "response.reasoning_summary_text.delta": self._reasoning,
            "response.reasoning_text.delta": self._reasoning,
            "response.reasoning_summary_part.added": self._summary_part,
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.created": self._started,
            "response.completed": self._ended,
            "response.incomplete": self._ended,
            "response.failed": self._failed,
            "error": self._error,
        }

    def feed(self, event: Any) -> list[BaseEvent]:
        """The AG-UI events for one stream event."""
        if event.type == "response.output_text.delta":  # nearly every event: no dispatch
            return self._writer.text_events(event.delta)
        return super().feed(event)

    # -- content ----------------------------------------------------------------------------

    def _text(self, event: Any) -> None:
        self._writer.text(event.delta)

    def _arguments(self, event: Any) -> None:
        call_id = self._call_ids.get(event.item_id)
        if call_id is not None:
            self._writer.tool_args(call_id, event.delta)

    def _reasoning(self, event: Any) -> None:
        if self._writer.is_reasoning(event.item_id):
            self._writer.reasoning(event.item_id, event.delta)

    def _summary_part(self, event: Any) -> None:
        # Summary parts are paragraphs of one reasoning message.
        if event.summary_index > 0 and self._writer.is_reasoning(event.item_id):
            self._writer.reasoning(event.item_id, "\n\n")

    def _item_added(self, event: Any) -> None:
        item = event.item
        if item.type == "function_call":
            self._call_ids[item.id or item.call_id] = item.call_id
            self._writer.start_tool_call(item.call_id, item.name)
            if item.arguments:
                self._writer.tool_args(item.call_id, item.arguments)
        elif item.type == "reasoning":
            self._writer.start_reasoning(item.id)

    def _item_done(self, event: Any) -> None:
        item = event.item
        if item.type == "message":
            self._writer.close_text()
        elif item.type == "function_call":
            if item.call_id not in self._call_ids.values():
                self._item_added(event)  # a server that sent only the finished item
            if not self._writer.has_args(item.call_id) and item.arguments:
                self._writer.tool_args(item.call_id, item.arguments)
            self._writer.end_tool_call(item.call_id)
        elif item.type == "reasoning":
            if not self._writer.is_reasoning(item.id):
                self._writer.start_reasoning(item.id)
            if not self._writer.has_reasoning_text(item.id):
                summary = "\n\n".join(part.text for part in item.summary or () if part.text)
                self._writer.reasoning(item.id, summary)
            self._writer.end_reasoning(
                item.id, getattr(item, "encrypted_content", None), ENCRYPTED_CONTENT
            )

    # -- lifecycle --------------------------------------------------------------------------

    def _started(self, event: Any) -> None:
        self.model = event.response.model

    def _ended(self, event: Any) -> None:
        response = event.response
        self.model = response.model or self.model
        self.status = response.status or event.type.rsplit(".", 1)[-1]
        usage = response.usage
        if usage is not None:
            input_details = getattr(usage, "input_tokens_details", None)
            output_details = getattr(usage, "output_tokens_details", None)
            self.usage = usage_counts(
                self.provider,
                self.model,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                total_tokens=usage.total_tokens,
                cached_input_tokens=getattr(input_details, "cached_tokens", None),
                cache_write_input_tokens=getattr(input_details, "cache_write_tokens", None),
                reasoning_tokens=getattr(output_details, "reasoning_tokens", None),
            )
        if event.type == "response.incomplete":
            details = response.incomplete_details
            reason = getattr(details, "reason", None) or "incomplete"
            self.stop_reason = _INCOMPLETE_REASONS.get(reason, reason)
        else:
            self.stop_reason = "tool_calls" if self._writer.tool_call_count else "end_turn"

    def _failed(self, event: Any) -> None:
        error = event.response.error
        raise self._provider_error(getattr(error, "code", None), getattr(error, "message", None))

    def _error(self, event: Any) -> None:
        raise self._provider_error(event.code, event.message)

    def _provider_error(self, code: Optional[str], message: Optional[str]) -> ProviderError:
        code_text = str(code or "")
        return failure(
            code_for(None, code_text, code_text, message or ""),
            self.provider,
            debug=self._debug,
            detail=f"{code_text}: {message}" if code_text else message,
        )

    def close(self) -> list[BaseEvent]:
        """The closing events; raises ``ProviderError`` if the stream stopped short."""
        if self.status is None:
            raise stream_incomplete(
                self.provider,
                debug=self._debug,
                detail="the stream ended without response.completed",
            )
        return self._finish(self.stop_reason, self.usage)
