"""OpenAI Chat Completions stream chunks -> AG-UI events. Sans-IO.

Feed it each ``ChatCompletionChunk`` the SDK yields (``stream=True``); ``close()`` when the
stream ends. What becomes what (docs/providers.md has the table):

* ``delta.content`` and ``delta.refusal`` -> the turn's text message;
* ``delta.reasoning_content`` / ``delta.reasoning`` (sent by DeepSeek, vLLM, Ollama, llama.cpp;
  not part of OpenAI's own API) -> a reasoning message;
* ``delta.tool_calls[i]`` by ``index``: the chunk naming the call opens ``TOOL_CALL_START`` with
  the call's ``id`` (minted when a server sends none), the ``arguments`` pieces become
  ``TOOL_CALL_ARGS`` (pieces that arrive before the name wait for it); parallel calls interleave;
* ``finish_reason`` -> the stop reason; every open stream closes at the end;
* the usage chunk (``stream_options.include_usage``) -> the turn's ``TokenUsage``.

Only choice 0 is read (the agent never asks for ``n > 1``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ag_ui.core.events import BaseEvent
from ag_ui.core.token_usage import TokenUsage
from ag_ui.providers._adapter import BaseAdapter
from ag_ui.providers._failures import failure, stream_incomplete
from ag_ui.providers._usage import usage_counts

__all__ = ["ChatCompletionsAdapter"]

_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "max_tokens",
    "content_filter": "content_filter",
}


@dataclass
class _Slot:
    """A tool call being assembled from its deltas (by ``index``)."""

    id: Optional[str]
    name: Optional[str]
    started: bool = False
    waiting: list[str] = field(default_factory=list)


class ChatCompletionsAdapter(BaseAdapter):
    """Translates one Chat Completions stream (one model turn).

    >>> adapter = ChatCompletionsAdapter(message_id="msg-1")
    >>> # for chunk in stream: events = adapter.feed(chunk)
    >>> # events = adapter.close(); turn = adapter.turn
    """

    default_provider = "openai"

    def _setup(self) -> None:
        self._slots: dict[int, _Slot] = {}
        self._reasoning_id: Optional[str] = None
        self.finish_reason: Optional[str] = None
        self.usage: Optional[TokenUsage] = None

    def feed(self, chunk: Any) -> list[BaseEvent]:
        """The AG-UI events for one chunk (often one event; none for bookkeeping chunks)."""
        writer = self._writer
        if self.model is None:
            self.model = chunk.model
        usage = chunk.usage
        if usage is not None:
            self.usage = self._usage(usage)
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            delta = choice.delta
            extra = delta.model_extra
            if extra:
                thought = extra.get("reasoning_content") or extra.get("reasoning")
                if isinstance(thought, str) and thought:
                    self._reason(thought)
            content = delta.content
            if content:
                self._end_reasoning()
                writer.text(content)
            if delta.refusal:
                self._end_reasoning()
                writer.text(delta.refusal)
            if delta.tool_calls:
                self._end_reasoning()
                for call in delta.tool_calls:
                    self._tool_call(call)
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
        return writer.take()

    def _reason(self, delta: str) -> None:
        if self._reasoning_id is None:
            self._reasoning_id = self._new_id("reasoning")
            self._writer.start_reasoning(self._reasoning_id)
        self._writer.reasoning(self._reasoning_id, delta)

    def _end_reasoning(self) -> None:
        if self._reasoning_id is not None and self._writer.is_reasoning(self._reasoning_id):
            self._writer.end_reasoning(self._reasoning_id)

    def _tool_call(self, delta: Any) -> None:
        function = delta.function
        name = function.name if function is not None else None
        slot = self._slots.get(delta.index)
        if slot is None:
            slot = self._slots[delta.index] = _Slot(id=delta.id, name=name)
        else:
            slot.id = slot.id or delta.id
            slot.name = slot.name or name
        if not slot.started and slot.name:
            slot.id = slot.id or self._new_id("call")
            self._writer.start_tool_call(slot.id, slot.name)
            slot.started = True
            for piece in slot.waiting:
                self._writer.tool_args(slot.id, piece)
            slot.waiting.clear()
        arguments = function.arguments if function is not None else None
        if arguments:
            if slot.started:
                assert slot.id is not None
                self._writer.tool_args(slot.id, arguments)
            else:
                slot.waiting.append(arguments)

    def _usage(self, usage: Any) -> Optional[TokenUsage]:
        input_details = getattr(usage, "prompt_tokens_details", None)
        output_details = getattr(usage, "completion_tokens_details", None)
        return usage_counts(
            self.provider,
            self.model,
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            total_tokens=usage.total_tokens,
            cached_input_tokens=getattr(input_details, "cached_tokens", None),
            reasoning_tokens=getattr(output_details, "reasoning_tokens", None),
        )

    def close(self) -> list[BaseEvent]:
        """The closing events; raises ``ProviderError`` if the stream stopped short."""
        if self.finish_reason is None:
            raise stream_incomplete(
                self.provider, debug=self._debug, detail="the stream ended without a finish_reason"
            )
        for slot in self._slots.values():
            if not slot.started:
                raise failure(
                    "provider_bad_response",
                    self.provider,
                    debug=self._debug,
                    detail=f"tool call {slot.id or '(no id)'} never got a name",
                )
        return self._finish(_STOP_REASONS.get(self.finish_reason, self.finish_reason), self.usage)
