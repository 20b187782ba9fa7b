"""Anthropic Messages stream events -> AG-UI events. Sans-IO.

Feed it each event the SDK yields for ``messages.create(stream=True)``; ``close()`` at the end.
What becomes what (docs/providers.md has the table):

* ``text`` blocks and their ``text_delta`` -> the turn's text message;
* ``tool_use`` blocks -> ``TOOL_CALL_START`` (the block's id and name), ``input_json_delta``
  -> ``TOOL_CALL_ARGS``, ``content_block_stop`` -> END;
* ``thinking`` blocks -> a reasoning span and message, ``thinking_delta`` -> its content, the
  ``signature_delta`` -> ``REASONING_ENCRYPTED_VALUE`` (subtype ``message``) when the block stops;
* ``redacted_thinking`` blocks -> an empty reasoning message whose encrypted value is the
  block's ``data``, with ``encryptedValueType`` ``anthropic.redacted_thinking`` (so the request
  builder sends it back as such);
* ``message_start`` / ``message_delta`` usage (cumulative) -> the turn's ``TokenUsage``, with
  cache reads and writes counted into the input as AG-UI counts it;
* ``message_delta.stop_reason`` -> the stop reason; ``message_stop`` marks the stream complete.

An ``error`` event is raised by the SDK itself (``APIStatusError``), and classified like any
provider failure. Blocks of server tools (web search...) are never requested and are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Optional

from ag_ui.core.events import BaseEvent
from ag_ui.core.token_usage import TokenUsage
from ag_ui.providers._adapter import TypedEventAdapter
from ag_ui.providers._anthropic_request import REDACTED_THINKING
from ag_ui.providers._failures import stream_incomplete
from ag_ui.providers._usage import usage_counts

__all__ = ["AnthropicAdapter"]

_STOP_REASONS = {"end_turn": "end_turn", "stop_sequence": "end_turn", "tool_use": "tool_calls"}


class AnthropicAdapter(TypedEventAdapter):
    """Translates one Messages stream (one model turn).

    >>> adapter = AnthropicAdapter(message_id="msg-1")
    >>> # for event in stream: events = adapter.feed(event)
    >>> # events = adapter.close(); turn = adapter.turn
    """

    default_provider = "anthropic"

    def _setup(self) -> None:
        super()._setup()
        self._blocks: dict[int, tuple[str, str]] = {}  # index -> (block type, AG-UI id)
        self._signatures: dict[int, str] = {}
        self._counts: dict[str, Any] = {}
        self.stop_reason: Optional[str] = None
        self.complete = False

    def handlers(self) -> dict[str, Callable[[Any], None]]:
        return {
            "content_block_delta": self._delta,
            "content_block_start": self._block_start,
            "content_block_stop": self._block_stop,
            "message_start": self._message_start,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
        }

    def feed(self, event: Any) -> list[BaseEvent]:
        """The AG-UI events for one stream event."""
        # Nearly every event of a stream is a text delta: it skips the dispatch.
        if event.type == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                return self._writer.text_events(delta.text)
        return super().feed(event)

    def _delta(self, event: Any) -> None:
        delta = event.delta
        kind = delta.type
        if kind == "text_delta":
            self._writer.text(delta.text)
            return
        block = self._blocks.get(event.index)
        if block is None:
            return
        if kind == "input_json_delta":
            self._writer.tool_args(block[1], delta.partial_json)
        elif kind == "thinking_delta":
            self._writer.reasoning(block[1], delta.thinking)
        elif kind == "signature_delta":
            self._signatures[event.index] = self._signatures.get(event.index, "") + delta.signature

    def _block_start(self, event: Any) -> None:
        block = event.content_block
        kind = block.type
        if kind == "text":
            self._blocks[event.index] = ("text", "")
            self._writer.text(block.text)
        elif kind == "tool_use":
            self._blocks[event.index] = ("tool_use", block.id)
            self._writer.start_tool_call(block.id, block.name)
            if block.input:  # a server that sends the whole input up front
                self._writer.tool_args(block.id, json.dumps(block.input, separators=(",", ":")))
        elif kind == "thinking":
            reasoning_id = self._new_id("reasoning")
            self._blocks[event.index] = ("thinking", reasoning_id)
            self._writer.start_reasoning(reasoning_id)
            self._writer.reasoning(reasoning_id, block.thinking)
            if block.signature:
                self._signatures[event.index] = block.signature
        elif kind == "redacted_thinking":
            reasoning_id = self._new_id("reasoning")
            self._blocks[event.index] = ("redacted_thinking", reasoning_id)
            self._writer.start_reasoning(reasoning_id)
            self._signatures[event.index] = block.data

    def _block_stop(self, event: Any) -> None:
        block = self._blocks.get(event.index)
        if block is None:
            return
        kind, entity_id = block
        if kind == "text":
            self._writer.close_text()
        elif kind == "tool_use":
            self._writer.end_tool_call(entity_id)
        else:
            # A signature needs no type (what every producer sent before 1.1); redacted data
            # must go back as its own block type, so it is named.
            value_type = REDACTED_THINKING if kind == "redacted_thinking" else None
            self._writer.end_reasoning(entity_id, self._signatures.get(event.index), value_type)

    def _usage(self, usage: Any) -> None:
        # message_delta's counts are cumulative: later values replace earlier ones.
        for field in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ):
            value = getattr(usage, field, None)
            if value is not None:
                self._counts[field] = value

    def _message_start(self, event: Any) -> None:
        message = event.message
        self.model = message.model
        if message.usage is not None:
            self._usage(message.usage)

    def _message_delta(self, event: Any) -> None:
        if event.delta.stop_reason:
            self.stop_reason = event.delta.stop_reason
        if event.usage is not None:
            self._usage(event.usage)

    def _message_stop(self, event: Any) -> None:
        self.complete = True

    @property
    def usage(self) -> Optional[TokenUsage]:
        counts = self._counts
        cache_read = counts.get("cache_read_input_tokens")
        cache_write = counts.get("cache_creation_input_tokens")
        input_tokens = counts.get("input_tokens")
        if isinstance(input_tokens, int):
            input_tokens += (cache_read or 0) + (cache_write or 0)
        return usage_counts(
            self.provider,
            self.model,
            input_tokens=input_tokens,
            output_tokens=counts.get("output_tokens"),
            cached_input_tokens=cache_read,
            cache_write_input_tokens=cache_write,
        )

    def close(self) -> list[BaseEvent]:
        """The closing events; raises ``ProviderError`` if the stream stopped short."""
        if not self.complete:
            raise stream_incomplete(
                self.provider, debug=self._debug, detail="the stream ended without message_stop"
            )
        return self._finish(_STOP_REASONS.get(self.stop_reason or "", self.stop_reason), self.usage)
