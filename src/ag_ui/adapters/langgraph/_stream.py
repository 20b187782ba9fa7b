"""LangGraph's ``messages``, ``updates``, ``values`` and ``custom`` stream parts -> AG-UI events.

One ``StreamTranslator`` per run. It keys everything by what LangGraph itself keys it by: a
streamed message by its id, a tool call by its own id and, for the chunks that carry no id, by
its chunk ``index`` within that message; a subgraph by its namespace. So a tool call's whole
arguments in one chunk are one ``TOOL_CALL_ARGS`` (never a call without arguments), text and a
tool call in one chunk are both sent, and parallel calls' argument chunks land under their own
call. Messages and tool calls the thread had before the run (the checkpoint's) are never sent
again, which is what makes a resumed run send only what is new.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage

from ag_ui.adapters.langgraph._messages import content_pieces, content_text, returned_messages
from ag_ui.adapters.langgraph._values import agui_state, jsonable
from ag_ui.core.events import (
    CustomEvent,
    RawEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentFinishedSuspendedOutcome,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.server import RunContext

__all__ = ["StreamTranslator"]

Namespace = tuple[str, ...]


@dataclass
class _Call:
    tool_call_id: str
    sent_args: bool = False
    muted: bool = False  # sent by an earlier run (the checkpoint has it): nothing goes out


@dataclass
class _Message:
    """One LangChain message being streamed: its open text segment and its open tool calls."""

    message_id: str
    lane: Optional[str]  # the subagent run id its events carry (None: the root graph)
    node: Optional[str]
    segments: int = 0
    text_id: Optional[str] = None
    reasoning_id: Optional[str] = None  # the open reasoning message (its span: "<id>-span")
    calls_by_id: dict[str, _Call] = field(default_factory=dict)
    calls_by_index: dict[int, _Call] = field(default_factory=dict)
    open_calls: list[_Call] = field(default_factory=list)
    last_call: Optional[_Call] = None


@dataclass
class _Subagent:
    subagent_run_id: str
    name: str


class StreamTranslator:
    """Feeds one run's LangGraph stream parts to a ``RunContext`` as AG-UI events."""

    def __init__(
        self,
        ctx: RunContext,
        *,
        messages_key: str,
        known_message_ids: set[str],
        known_tool_call_ids: set[str],
        emit_raw: bool = False,
    ) -> None:
        self._ctx = ctx
        self._messages_key = messages_key
        self._done_messages = set(known_message_ids)
        self._known_calls = set(known_tool_call_ids)
        self._emit_raw = emit_raw
        self._messages: dict[str, _Message] = {}
        self._subagents: dict[Namespace, _Subagent] = {}
        self._state_sent = False
        self.interrupts: dict[str, Any] = {}
        """LangGraph ``Interrupt``s raised in this run, by id (in the order they came)."""
        self.interrupt_lanes: dict[str, Optional[str]] = {}
        """The subagent run id of the subgraph that raised each interrupt (None: the root)."""

    # -- the stream ------------------------------------------------------------------------------

    async def feed(self, namespace: Namespace, mode: str, chunk: Any) -> None:
        """One part of ``graph.astream(..., stream_mode=[...], subgraphs=True)``."""
        if self._emit_raw:
            await self._ctx.emit(RawEvent(event=jsonable([mode, chunk]), source="langgraph"))
        if mode == "messages":
            message, metadata = chunk
            await self._message(namespace, message, metadata or {})
        elif mode == "updates":
            await self._updates(namespace, chunk)
        elif mode == "values":
            if not namespace and isinstance(chunk, Mapping):
                await self._values(chunk)
        elif mode == "custom":
            await self._custom(namespace, chunk)

    async def close(self, *, interrupted: bool) -> None:
        """Ends what is still open: messages, tool calls, then subagents (innermost first),
        ``suspended`` when the run ends on an interrupt."""
        for message in list(self._messages.values()):
            await self._close_message(message)
        for namespace in sorted(self._subagents, key=len, reverse=True):
            sub = self._subagents.pop(namespace)
            own = [i for i, lane in self.interrupt_lanes.items() if lane == sub.subagent_run_id]
            outcome = (
                SubagentFinishedSuspendedOutcome(interrupt_ids=own or None) if interrupted else None
            )
            await self._ctx.emit(
                SubagentFinishedEvent(subagent_run_id=sub.subagent_run_id, outcome=outcome)
            )

    async def fail(self, error: BaseException) -> None:
        """Before the run's ``RUN_ERROR``: each open subagent ends with ``SUBAGENT_ERROR``."""
        for message in list(self._messages.values()):
            await self._close_message(message)
        for namespace in sorted(self._subagents, key=len, reverse=True):
            sub = self._subagents.pop(namespace)
            await self._ctx.emit(
                SubagentErrorEvent(
                    subagent_run_id=sub.subagent_run_id,
                    message=f"subgraph {sub.name!r} failed: {type(error).__name__}",
                    code="subgraph_error",
                )
            )

    # -- subgraphs as subagents ------------------------------------------------------------------

    async def _lane(self, namespace: Namespace) -> Optional[str]:
        """The subagent run id for a namespace, starting it (and its parents) when new."""
        if not namespace:
            return None
        known = self._subagents.get(namespace)
        if known is not None:
            return known.subagent_run_id
        parent = await self._lane(namespace[:-1])
        name = namespace[-1].split(":", 1)[0]
        sub = _Subagent(self._ctx.new_id("subagent"), name)
        self._subagents[namespace] = sub
        await self._ctx.emit(
            SubagentStartedEvent(
                subagent_run_id=sub.subagent_run_id, name=name, parent_subagent_run_id=parent
            )
        )
        return sub.subagent_run_id

    async def _finish_subgraphs(self, parent: Namespace, node: str) -> None:
        """The parent graph's node ``node`` finished: its subgraph invocations did too."""
        done = [
            ns
            for ns in self._subagents
            if len(ns) == len(parent) + 1
            and ns[: len(parent)] == parent
            and ns[-1].split(":", 1)[0] == node
        ]
        for namespace in done:
            inner = [ns for ns in self._subagents if ns[: len(namespace)] == namespace]
            lanes = {self._subagents[ns].subagent_run_id for ns in inner}
            for message in list(self._messages.values()):
                if message.lane in lanes:
                    await self._close_message(message)
            for ns in sorted(inner, key=len, reverse=True):
                sub = self._subagents.pop(ns)
                await self._ctx.emit(SubagentFinishedEvent(subagent_run_id=sub.subagent_run_id))

    # -- messages --------------------------------------------------------------------------------

    async def _message(
        self, namespace: Namespace, message: Any, metadata: Mapping[str, Any]
    ) -> None:
        message_id = message.id if isinstance(message, BaseMessage) else None
        if not message_id or message_id in self._done_messages:
            return
        if isinstance(message, AIMessageChunk):
            # The hot path (a model's every token): a message already streaming knows its lane.
            streaming = self._messages.get(message_id)
            if streaming is None:
                node = metadata.get("langgraph_node")
                streaming = _Message(
                    message_id,
                    await self._lane(namespace) if namespace else None,
                    node if isinstance(node, str) else None,
                )
                self._messages[message_id] = streaming
            await self._chunk(message, streaming)
        else:
            await self._whole(message, await self._lane(namespace) if namespace else None)

    def _streaming(self, message_id: str, lane: Optional[str]) -> _Message:
        current = self._messages.get(message_id)
        if current is None:
            current = _Message(message_id, lane, None)
            self._messages[message_id] = current
        return current

    async def _chunk(self, chunk: AIMessageChunk, message: _Message) -> None:
        # Text first, then tool calls: a chunk holding both (a model that writes a sentence and
        # opens a call in one piece) sends both, in the order the model produced them.
        content = chunk.content
        if isinstance(content, str) and not chunk.additional_kwargs:
            if content:  # the hot path: a plain text token
                await self._text(message, content)
        else:
            await self._pieces(message, chunk)
        for piece in chunk.tool_call_chunks:
            await self._tool_call_chunk(message, piece)
        if chunk.chunk_position == "last":
            await self._close_message(message)

    async def _pieces(self, message: _Message, source: Any) -> None:
        for kind, text in content_pieces(source):
            if kind == "reasoning":
                await self._reasoning(message, text)
            else:
                await self._text(message, text)

    async def _reasoning(self, message: _Message, text: str) -> None:
        """Reasoning as a reasoning span holding one reasoning message, closed by whatever
        the model writes next (text, a call) or by the message's end."""
        if message.reasoning_id is None:
            await self._close_text(message)
            await self._close_calls(message)
            message.segments += 1
            message.reasoning_id = f"{message.message_id}-reasoning-{message.segments}"
            lane = message.lane
            await self._ctx.emit(
                ReasoningStartEvent(message_id=f"{message.reasoning_id}-span", subagent_run_id=lane)
            )
            await self._ctx.emit(
                ReasoningMessageStartEvent(message_id=message.reasoning_id, subagent_run_id=lane)
            )
        await self._ctx.emit(
            ReasoningMessageContentEvent(
                message_id=message.reasoning_id, delta=text, subagent_run_id=message.lane
            )
        )

    async def _close_reasoning(self, message: _Message) -> None:
        if message.reasoning_id is not None:
            reasoning_id, message.reasoning_id = message.reasoning_id, None
            lane = message.lane
            await self._ctx.emit(
                ReasoningMessageEndEvent(message_id=reasoning_id, subagent_run_id=lane)
            )
            await self._ctx.emit(
                ReasoningEndEvent(message_id=f"{reasoning_id}-span", subagent_run_id=lane)
            )

    async def _text(self, message: _Message, text: str) -> None:
        if message.text_id is None:
            await self._close_reasoning(message)
            await self._close_calls(message)  # text after a call: the calls are complete
            message.segments += 1
            # The first segment is the LangChain message's own id (the checkpoint's), so that a
            # restored conversation and the streamed one name the same message.
            message.text_id = (
                message.message_id
                if message.segments == 1
                else f"{message.message_id}-{message.segments}"
            )
            await self._ctx.emit(
                TextMessageStartEvent(
                    message_id=message.text_id, role="assistant", subagent_run_id=message.lane
                )
            )
        await self._ctx.emit(
            TextMessageContentEvent(
                message_id=message.text_id, delta=text, subagent_run_id=message.lane
            )
        )

    async def _tool_call_chunk(self, message: _Message, piece: Mapping[str, Any]) -> None:
        call_id = piece.get("id")
        index = piece.get("index")
        call: Optional[_Call] = None
        if call_id and call_id in message.calls_by_id:
            call = message.calls_by_id[call_id]
        elif not call_id and isinstance(index, int) and index in message.calls_by_index:
            call = message.calls_by_index[index]
        elif not call_id and index is None and message.last_call is not None:
            call = message.last_call
        if call is None:
            call = await self._start_call(
                message, call_id or self._ctx.new_id("call"), piece.get("name") or ""
            )
        if isinstance(index, int):
            message.calls_by_index[index] = call
        message.last_call = call
        args = piece.get("args")
        if args and not call.muted:
            call.sent_args = True
            await self._ctx.emit(
                ToolCallArgsEvent(
                    tool_call_id=call.tool_call_id, delta=args, subagent_run_id=message.lane
                )
            )

    async def _start_call(self, message: _Message, call_id: str, name: str) -> _Call:
        await self._close_reasoning(message)
        await self._close_text(message)
        call = _Call(call_id, muted=call_id in self._known_calls)
        self._known_calls.add(call_id)
        message.calls_by_id[call_id] = call
        if not call.muted:
            message.open_calls.append(call)
            await self._ctx.emit(
                ToolCallStartEvent(
                    tool_call_id=call_id,
                    tool_call_name=name,
                    parent_message_id=message.message_id,
                    subagent_run_id=message.lane,
                )
            )
        return call

    async def _whole(self, message: BaseMessage, lane: Optional[str]) -> None:
        """A message a node returned whole (not streamed by a chat model)."""
        assert message.id is not None
        if isinstance(message, AIMessage):
            streaming = self._streaming(message.id, lane)
            await self._pieces(streaming, message)
            for call in message.tool_calls:
                started = await self._start_call(
                    streaming, call.get("id") or self._ctx.new_id("call"), call["name"]
                )
                if not started.muted:
                    started.sent_args = True
                    await self._ctx.emit(
                        ToolCallArgsEvent(
                            tool_call_id=started.tool_call_id,
                            delta=json.dumps(call["args"], separators=(",", ":")),
                            subagent_run_id=lane,
                        )
                    )
            await self._close_message(streaming)
        elif isinstance(message, ToolMessage):
            self._done_messages.add(message.id)
            await self._ctx.emit(
                ToolCallResultEvent(
                    message_id=message.id,
                    tool_call_id=message.tool_call_id,
                    content=content_text(message.content),
                    role="tool",
                    subagent_run_id=lane,
                )
            )

    async def _close_text(self, message: _Message) -> None:
        if message.text_id is not None:
            text_id, message.text_id = message.text_id, None
            await self._ctx.emit(
                TextMessageEndEvent(message_id=text_id, subagent_run_id=message.lane)
            )

    async def _close_calls(self, message: _Message) -> None:
        for call in message.open_calls:
            if not call.sent_args:
                # A call whose arguments never came is a call with no arguments: "{}" says so,
                # so that no reader is left with a call lacking TOOL_CALL_ARGS.
                await self._ctx.emit(
                    ToolCallArgsEvent(
                        tool_call_id=call.tool_call_id, delta="{}", subagent_run_id=message.lane
                    )
                )
            await self._ctx.emit(
                ToolCallEndEvent(tool_call_id=call.tool_call_id, subagent_run_id=message.lane)
            )
        message.open_calls.clear()
        message.last_call = None

    async def _close_message(self, message: _Message) -> None:
        await self._close_reasoning(message)
        await self._close_text(message)
        await self._close_calls(message)
        self._messages.pop(message.message_id, None)
        self._done_messages.add(message.message_id)

    # -- updates, state, custom ------------------------------------------------------------------

    async def _updates(self, namespace: Namespace, chunk: Any) -> None:
        if not isinstance(chunk, Mapping):
            return
        for node, update in chunk.items():
            if node == "__interrupt__":
                # A subgraph's interrupt comes first from its own namespace, then from each
                # parent's: the first is the subagent that raised it.
                lane = await self._lane(namespace)
                for interrupt in update or ():
                    self.interrupts.setdefault(str(interrupt.id), interrupt)
                    self.interrupt_lanes.setdefault(str(interrupt.id), lane)
                continue
            lane = await self._lane(namespace)
            # The node finished: what it streamed is complete, and messages it returned that
            # the messages stream did not carry (LangGraph sends each once) go out whole.
            for message in list(self._messages.values()):
                if message.lane == lane and message.node == node:
                    await self._close_message(message)
            for returned in returned_messages(update, self._messages_key):
                if returned.id and returned.id not in self._done_messages:
                    await self._whole(returned, lane)
            await self._finish_subgraphs(namespace, str(node))

    async def _values(self, values: Mapping[str, Any]) -> None:
        state = agui_state(values, self._messages_key)
        if not self._state_sent:
            self._state_sent = True
            await self._ctx.state.snapshot(state)
        else:
            await self._ctx.state.replace(state)

    async def _custom(self, namespace: Namespace, chunk: Any) -> None:
        lane = await self._lane(namespace)
        if isinstance(chunk, Mapping) and isinstance(chunk.get("name"), str) and "value" in chunk:
            name, value = chunk["name"], chunk["value"]
        else:
            name, value = "langgraph.custom", chunk
        await self._ctx.emit(CustomEvent(name=name, value=jsonable(value), subagent_run_id=lane))
