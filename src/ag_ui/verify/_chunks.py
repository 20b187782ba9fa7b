"""``ChunkExpander``: ``*_CHUNK`` events become start/content/end (PROTOCOL.md §6.3), sans-IO.

Each *lane* (the parent agent, or one subagent run) assembles at most one stream from chunks.
Non-chunk events close the pending stream of their own lane (run-level events close every
lane) before passing through, so the synthesized END lands exactly where the TypeScript client
puts it. A stream still open when the input ends is left open, as in TypeScript: only
RUN_FINISHED (or another closing event) ends it.
"""

from __future__ import annotations

from typing import Any, NoReturn, Optional, cast

from ag_ui.core.errors import ChunkExpansionError
from ag_ui.core.events import CustomEvent as _CustomEvent
from ag_ui.core.events import (
    Event,
    MessagesSnapshotEvent,
    ReasoningEndEvent,
    ReasoningMessageChunkEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.verify._chunk_streams import ChunkEvent, ChunkKind, Pending, expand_chunk

__all__ = ["ChunkExpander"]

_OWN_LANE = frozenset(
    {
        TextMessageStartEvent,
        TextMessageContentEvent,
        TextMessageEndEvent,
        ToolCallStartEvent,
        ToolCallArgsEvent,
        ToolCallEndEvent,
        ToolCallResultEvent,
        StateSnapshotEvent,
        StateDeltaEvent,
        _CustomEvent,
        StepStartedEvent,
        StepFinishedEvent,
        ReasoningStartEvent,
        ReasoningMessageStartEvent,
        ReasoningMessageContentEvent,
        ReasoningMessageEndEvent,
        ReasoningEndEvent,
    }
)
_ALL_LANES = frozenset({RunStartedEvent, RunFinishedEvent, RunErrorEvent, MessagesSnapshotEvent})
_SUBAGENT_CLOSE = frozenset({SubagentFinishedEvent, SubagentErrorEvent})
_CHUNKS: dict[type, ChunkKind] = {
    TextMessageChunkEvent: "text",
    ToolCallChunkEvent: "tool",
    ReasoningMessageChunkEvent: "reasoning",
}
_ENTITY = {"text": "text message", "tool": "tool call", "reasoning": "reasoning message"}
_ID_FIELD = {"text": "messageId", "tool": "toolCallId", "reasoning": "messageId"}


def _base_class(cls: type) -> type:
    # User subclasses of event classes behave like their protocol base.
    for base in cls.__mro__:
        if base in _OWN_LANE or base in _ALL_LANES or base in _SUBAGENT_CLOSE or base in _CHUNKS:
            return base
    return cls


class ChunkExpander:
    """Expands ``TEXT_MESSAGE_CHUNK``, ``TOOL_CALL_CHUNK`` and ``REASONING_MESSAGE_CHUNK``.

    ``feed(event)`` returns the events to pass on, in order; a chunk that cannot be expanded
    raises ``ChunkExpansionError`` (``rule`` "X1" missing id/name, "X2" a continuation that
    contradicts its opener, "X3" an ambiguous id-less chunk).

    >>> from ag_ui.core import TextMessageChunkEvent, RunFinishedEvent
    >>> expander = ChunkExpander()
    >>> [e.type.value for e in expander.feed(TextMessageChunkEvent(message_id="m", delta="Hi"))]
    ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']
    >>> [e.type.value for e in expander.feed(RunFinishedEvent(thread_id="t", run_id="r"))]
    ['TEXT_MESSAGE_END', 'RUN_FINISHED']
    """

    def __init__(self) -> None:
        # The stream each lane is assembling from chunks (owner ``None`` = the parent agent).
        self._lanes: dict[Optional[str], Pending] = {}

    def feed(self, event: Event) -> list[Event]:
        """Expand one event into the events to pass downstream."""
        cls = event.__class__
        lanes = self._lanes
        if not lanes and cls not in _CHUNKS:
            return [event]
        base = _base_class(cls)
        if base in _OWN_LANE:
            return [*self._close(getattr(event, "subagent_run_id", None)), event]
        if base in _ALL_LANES:
            closing: list[Event] = []
            for owner in list(lanes):
                closing.extend(self._close(owner))
            return [*closing, event]
        if base in _SUBAGENT_CLOSE:
            owner = getattr(event, "subagent_run_id", None)
            return [event] if owner is None else [*self._close(owner), event]
        kind = _CHUNKS.get(base)
        if kind is None:
            return [event]
        chunk = cast(ChunkEvent, event)  # its protocol base class is one of the chunks
        entity_id = (
            chunk.tool_call_id if isinstance(chunk, ToolCallChunkEvent) else chunk.message_id
        )
        lane = self._resolve_lane(kind, entity_id, chunk.subagent_run_id, chunk)
        expanded, lanes[lane] = expand_chunk(kind, lanes.get(lane), chunk)
        return expanded

    def finish(self) -> None:
        """End of input: still-open streams are dropped without an END (as in TypeScript)."""
        self._lanes.clear()

    def _close(self, owner: Optional[str]) -> list[Event]:
        pending = self._lanes.pop(owner, None)
        return [] if pending is None else [pending.end_event()]

    def _resolve_lane(
        self, kind: ChunkKind, entity_id: Optional[str], tag: Optional[str], chunk: ChunkEvent
    ) -> Optional[str]:
        chunk_type = chunk.type.value
        if entity_id is not None:
            for owner, pending in self._lanes.items():
                if pending.kind == kind and pending.entity_id == entity_id:
                    if tag is not None and tag != owner:
                        shown = "(the parent agent)" if owner is None else owner
                        _fail(
                            "X2",
                            chunk_type,
                            f"Cannot continue {_ENTITY[kind]} '{entity_id}': chunk "
                            f"subagentRunId '{tag}' does not match the open stream's subagent "
                            f"'{shown}'.",
                            entity_id=entity_id,
                            subagent_run_id=tag,
                        )
                    return owner
            return tag
        if tag is not None:
            return tag
        parent = self._lanes.get(None)
        if parent is not None and parent.kind == kind:
            return None
        candidates = [owner for owner, p in self._lanes.items() if p.kind == kind]
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            _fail(
                "X3",
                chunk_type,
                f"Ambiguous {chunk_type}: it carries neither a {_ID_FIELD[kind]} nor a "
                f"subagentRunId, but {len(candidates)} lanes have an open {_ENTITY[kind]}. "
                "Attribute the chunk to the subagent it belongs to.",
                lanes=candidates,
            )
        return None


def _fail(rule: str, event_type: str, message: str, **ids: Any) -> NoReturn:
    raise ChunkExpansionError(message, rule=rule, event_type=event_type, ids=ids)
