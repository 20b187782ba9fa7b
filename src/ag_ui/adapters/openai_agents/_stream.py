"""``Runner.run_streamed`` events -> AG-UI events.

One ``StreamTranslator`` per run. The model's raw Responses events carry the streaming (text and
reasoning deltas, tool call arguments), keyed by their ``output_index`` within the response: so
each text item is one text message with an id of its own, and parallel calls' argument deltas
land under their own call. A call whose arguments arrive whole (no delta) gets them as one
``TOOL_CALL_ARGS``, so no reader is left with a call lacking arguments. The run items add what
the raw events do not have: tool outputs (``TOOL_CALL_RESULT``), handoffs (the handoff call's
result, then the new agent as a subagent), and the whole item for a model that does not stream.
Usage comes from each ``response.completed``: this run's own model calls, per model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from agents import Agent
from agents.items import (
    HandoffOutputItem,
    MessageOutputItem,
    ToolCallItem,
    ToolCallOutputItem,
)
from agents.stream_events import AgentUpdatedStreamEvent, RawResponsesStreamEvent

from ag_ui.core.events import (
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.core.outcomes import SubagentFinishedOutcome
from ag_ui.core.token_usage import TokenUsage, aggregate_token_usage
from ag_ui.server import RunContext

__all__ = ["ENCRYPTED_CONTENT", "StreamTranslator"]

ENCRYPTED_CONTENT = "openai.encrypted_content"
"""The ``encryptedValueType`` of a reasoning item's ``encrypted_content``."""


_DELTAS = {
    "response.output_text.delta": "text",
    "response.refusal.delta": "text",
    "response.function_call_arguments.delta": "args",
    "response.reasoning_summary_text.delta": "reasoning",
    "response.reasoning_text.delta": "reasoning",
}
"""The Responses stream's delta events this translator reads, by what they carry."""


@dataclass
class _Output:
    """One output item of the response being streamed."""

    kind: str  # "message", "reasoning", "function_call"
    entity_id: str  # the text message id, the reasoning message id, or the call id
    item_id: Optional[str]
    sent_args: bool = False


@dataclass
class _Lane:
    """The agent speaking: the served agent (no subagent) or one handed off to."""

    agent: Any
    subagent_run_id: Optional[str] = None


@dataclass
class _Response:
    outputs: dict[int, _Output] = field(default_factory=dict)
    last_text_id: Optional[str] = None


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    try:
        return json.dumps(output, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(output)


class StreamTranslator:
    """Feeds one run's ``stream_events()`` to a ``RunContext`` as AG-UI events."""

    def __init__(self, ctx: RunContext, root: Agent[Any], *, known_tool_call_ids: set[str]) -> None:
        self._ctx = ctx
        self._root = root
        self._lane = _Lane(root)
        self._response = _Response()
        self._calls = set(known_tool_call_ids)
        """Calls whose START was sent (this run, or the run an approval resumes)."""
        self._streamed_items: set[str] = set()
        self._usage: list[TokenUsage] = []
        self._handoff_call_id: Optional[str] = None

    @property
    def subagent_run_id(self) -> Optional[str]:
        return self._lane.subagent_run_id

    @property
    def usage(self) -> list[TokenUsage]:
        """This run's model calls' token usage, one entry per model."""
        return aggregate_token_usage(self._usage)

    # -- the stream ------------------------------------------------------------------------------

    async def feed(self, event: Any) -> None:
        if type(event) is RawResponsesStreamEvent or isinstance(event, RawResponsesStreamEvent):
            await self._raw(event.data)
        elif isinstance(event, AgentUpdatedStreamEvent):
            await self._agent_updated(event.new_agent)
        elif event.type == "run_item_stream_event":
            await self._item(event.item)

    async def close(self, outcome: Optional[SubagentFinishedOutcome] = None) -> None:
        """Ends what is still open, then the speaking subagent (``outcome``: suspended when
        the run ends waiting for the client)."""
        await self._close_outputs()
        if self._lane.subagent_run_id is not None:
            await self._ctx.emit(
                SubagentFinishedEvent(subagent_run_id=self._lane.subagent_run_id, outcome=outcome)
            )
            self._lane = _Lane(self._root)

    async def fail(self, error: BaseException) -> None:
        """Before the run's ``RUN_ERROR``: open items end, the speaking subagent errors."""
        await self._close_outputs()
        lane = self._lane
        if lane.subagent_run_id is not None:
            self._lane = _Lane(self._root)
            await self._ctx.emit(
                SubagentErrorEvent(
                    subagent_run_id=lane.subagent_run_id,
                    message=f"agent {_get(lane.agent, 'name')!r} failed: {type(error).__name__}",
                    code="subagent_error",
                )
            )

    # -- handoffs as subagents -------------------------------------------------------------------

    async def _agent_updated(self, agent: Any) -> None:
        if agent is self._lane.agent:
            return
        await self.close()
        if agent is self._root:
            return
        sub = _Lane(agent, self._ctx.new_id("subagent"))
        assert sub.subagent_run_id is not None
        await self._ctx.emit(
            SubagentStartedEvent(
                subagent_run_id=sub.subagent_run_id,
                name=str(_get(agent, "name") or "agent"),
                description=_get(agent, "handoff_description") or None,
                parent_tool_call_id=self._handoff_call_id,
            )
        )
        self._lane = sub
        self._handoff_call_id = None

    # -- raw Responses events --------------------------------------------------------------------

    async def _raw(self, data: Any) -> None:
        kind = data.type
        delta_kind = _DELTAS.get(kind)
        if delta_kind is not None:  # the hot path: a model's every token
            output = self._response.outputs.get(data.output_index)
            if output is None or not data.delta:
                return
            if delta_kind == "text":
                await self._text(output, data.delta)
            elif delta_kind == "args":
                output.sent_args = True
                await self._emit_args(output.entity_id, data.delta)
            else:
                await self._reasoning(output, data.delta)
        elif kind == "response.output_item.added":
            await self._added(data.output_index, data.item)
        elif kind == "response.output_item.done":
            await self._done(data.output_index, data.item)
        elif kind == "response.created":
            await self._close_outputs()
            self._response = _Response()
        elif kind == "response.completed":
            await self._close_outputs()
            self._count(data.response)

    async def _added(self, index: int, item: Any) -> None:
        item_type = _get(item, "type")
        item_id = _get(item, "id")
        if item_type == "message":
            self._response.outputs[index] = _Output("message", "", item_id)
        elif item_type == "reasoning":
            self._response.outputs[index] = _Output("reasoning", "", item_id)
        elif item_type == "function_call":
            call_id = str(_get(item, "call_id") or self._ctx.new_id("call"))
            self._response.outputs[index] = _Output("function_call", call_id, item_id)
            await self._start_call(call_id, str(_get(item, "name") or ""))
        if item_id:
            self._streamed_items.add(item_id)

    async def _done(self, index: int, item: Any) -> None:
        output = self._response.outputs.pop(index, None)
        if output is None:
            return
        if output.kind == "function_call":
            await self._end_call(output, _get(item, "arguments"))
        elif output.kind == "reasoning":
            encrypted = _get(item, "encrypted_content")
            if output.entity_id and isinstance(encrypted, str) and encrypted:
                await self._ctx.reasoning_encrypted_value(
                    "message", output.entity_id, encrypted, ENCRYPTED_CONTENT
                )
            await self._close(output)
        else:
            await self._close(output)

    async def _text(self, output: _Output, delta: str) -> None:
        if not delta:
            return
        lane = self._lane.subagent_run_id
        if not output.entity_id:
            output.entity_id = self._ctx.new_id("msg")
            self._response.last_text_id = output.entity_id
            await self._ctx.emit(
                TextMessageStartEvent(
                    message_id=output.entity_id, role="assistant", subagent_run_id=lane
                )
            )
        await self._ctx.emit(
            TextMessageContentEvent(message_id=output.entity_id, delta=delta)
            if lane is None
            else TextMessageContentEvent(
                message_id=output.entity_id, delta=delta, subagent_run_id=lane
            )
        )

    async def _reasoning(self, output: _Output, delta: str) -> None:
        if not delta:
            return
        lane = self._lane.subagent_run_id
        if not output.entity_id:
            output.entity_id = self._ctx.new_id("reasoning")
            await self._ctx.emit(
                ReasoningStartEvent(message_id=f"{output.entity_id}-span", subagent_run_id=lane)
            )
            await self._ctx.emit(
                ReasoningMessageStartEvent(message_id=output.entity_id, subagent_run_id=lane)
            )
        await self._ctx.emit(
            ReasoningMessageContentEvent(
                message_id=output.entity_id, delta=delta, subagent_run_id=lane
            )
        )

    async def _start_call(self, call_id: str, name: str) -> None:
        self._calls.add(call_id)
        await self._ctx.emit(
            ToolCallStartEvent(
                tool_call_id=call_id,
                tool_call_name=name,
                parent_message_id=self._response.last_text_id,
                subagent_run_id=self._lane.subagent_run_id,
            )
        )

    async def _emit_args(self, call_id: str, delta: str) -> None:
        lane = self._lane.subagent_run_id
        await self._ctx.emit(
            ToolCallArgsEvent(tool_call_id=call_id, delta=delta)
            if lane is None
            else ToolCallArgsEvent(tool_call_id=call_id, delta=delta, subagent_run_id=lane)
        )

    async def _end_call(self, output: _Output, arguments: Any) -> None:
        if not output.sent_args:
            # Arguments that arrived whole (no delta) are sent whole; none at all is "{}".
            whole = arguments if isinstance(arguments, str) and arguments else "{}"
            await self._emit_args(output.entity_id, whole)
        await self._ctx.emit(
            ToolCallEndEvent(
                tool_call_id=output.entity_id, subagent_run_id=self._lane.subagent_run_id
            )
        )

    async def _close(self, output: _Output) -> None:
        lane = self._lane.subagent_run_id
        if not output.entity_id:
            return
        if output.kind == "message":
            await self._ctx.emit(
                TextMessageEndEvent(message_id=output.entity_id, subagent_run_id=lane)
            )
        elif output.kind == "reasoning":
            await self._ctx.emit(
                ReasoningMessageEndEvent(message_id=output.entity_id, subagent_run_id=lane)
            )
            await self._ctx.emit(
                ReasoningEndEvent(message_id=f"{output.entity_id}-span", subagent_run_id=lane)
            )

    async def _close_outputs(self) -> None:
        for index in list(self._response.outputs):
            output = self._response.outputs.pop(index)
            if output.kind == "function_call":
                await self._end_call(output, None)
            else:
                await self._close(output)

    def _count(self, response: Any) -> None:
        usage = _get(response, "usage")
        if usage is None:
            return
        counts = {
            "input_tokens": _get(usage, "input_tokens"),
            "output_tokens": _get(usage, "output_tokens"),
            "total_tokens": _get(usage, "total_tokens"),
            "cached_input_tokens": _get(_get(usage, "input_tokens_details"), "cached_tokens"),
            "reasoning_tokens": _get(_get(usage, "output_tokens_details"), "reasoning_tokens"),
        }
        present = {k: v for k, v in counts.items() if isinstance(v, int) and v >= 0}
        if present:
            model = _get(response, "model")
            self._usage.append(
                TokenUsage(
                    provider="openai", model=model if isinstance(model, str) else None, **present
                )
            )

    # -- run items -------------------------------------------------------------------------------

    async def _item(self, item: Any) -> None:
        if isinstance(item, ToolCallOutputItem):
            call_id = _get(item.raw_item, "call_id")
            if isinstance(call_id, str) and call_id in self._calls:
                await self._result(call_id, _output_text(item.output))
        elif isinstance(item, HandoffOutputItem):
            call_id = _get(item.raw_item, "call_id")
            if isinstance(call_id, str) and call_id in self._calls:
                await self._result(call_id, _output_text(_get(item.raw_item, "output")))
                self._handoff_call_id = call_id
        elif isinstance(item, ToolCallItem):
            call_id = _get(item.raw_item, "call_id")
            if (
                _get(item.raw_item, "type") == "function_call"
                and isinstance(call_id, str)
                and call_id not in self._calls
            ):
                # A model that does not stream: the whole call at once.
                await self._start_call(call_id, str(_get(item.raw_item, "name") or ""))
                await self._end_call(
                    _Output("function_call", call_id, None), _get(item.raw_item, "arguments")
                )
        elif isinstance(item, MessageOutputItem):
            item_id = _get(item.raw_item, "id")
            if item_id not in self._streamed_items:
                text = "".join(
                    str(_get(part, "text") or _get(part, "refusal") or "")
                    for part in _get(item.raw_item, "content") or ()
                )
                output = _Output("message", "", item_id)
                await self._text(output, text)
                await self._close(output)

    async def _result(self, call_id: str, content: str) -> None:
        await self._ctx.emit(
            ToolCallResultEvent(
                message_id=self._ctx.new_id("result"),
                tool_call_id=call_id,
                content=content,
                role="tool",
                subagent_run_id=self._lane.subagent_run_id,
            )
        )
