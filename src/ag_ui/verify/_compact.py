"""``compact_events``: shrink a recorded stream for storage or replay (PROTOCOL.md §6.9).

- Text messages (and tool calls) are grouped by id: START, one CONTENT (ARGS) holding every
  delta joined, END, then the events that arrived while the stream was open. The collapsed
  CONTENT carries the merged metadata of the content events (and of STARTs replayed after
  content); several STARTs before any content merge their metadata.
- STATE_SNAPSHOT/STATE_DELTA are gathered per window (flushed before RUN_STARTED, before
  RUN_FINISHED/RUN_ERROR and at the end): a window without a snapshot is kept as it is,
  otherwise the last snapshot and the deltas after it become one STATE_SNAPSHOT (carrying the
  merged metadata of every state event in the window).
- Reasoning, activity and everything else pass through.

Events that arrive while a text message or tool call is open are moved behind it, which is
what makes the output shorter; apply the compacted stream to get the same messages and state.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any, Optional

from ag_ui.core.errors import PatchError
from ag_ui.core.events import (
    Event,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.json_patch import apply_patch

__all__ = ["compact_events"]

Metadata = Optional[dict[str, Any]]


def _merge(existing: Metadata, incoming: Metadata) -> Metadata:
    if incoming is None:
        return existing
    return dict(incoming) if existing is None else {**existing, **incoming}


def _with_metadata(event: Any, metadata: Metadata) -> Any:
    copy = event.model_copy(update={"metadata": metadata})
    if metadata is None:
        copy.__pydantic_fields_set__.discard("metadata")
    return copy


class _Group:
    __slots__ = ("deltas", "end", "later", "post_start_metadata", "start")

    def __init__(self) -> None:
        self.start: Any = None
        self.deltas: list[str] = []
        self.end: Any = None
        self.later: list[Any] = []
        self.post_start_metadata: Metadata = None

    def add_start(self, event: Any) -> None:
        if not self.deltas:
            if self.start is not None:
                merged = _merge(self.start.metadata, event.metadata)
                event = event if merged is None else _with_metadata(event, merged)
            self.start = event
        else:
            # A START replayed after content keeps its fields; its metadata goes to the content.
            carried = self.start.metadata if self.start is not None else None
            self.start = _with_metadata(event, carried)
            self.post_start_metadata = _merge(self.post_start_metadata, event.metadata)

    def add_content(self, event: Any) -> None:
        self.deltas.append(event.delta)
        self.post_start_metadata = _merge(self.post_start_metadata, event.metadata)

    def flush(self, out: list[Any], content_cls: Any, id_field: str, entity_id: str) -> None:
        if self.start is not None:
            out.append(self.start)
        if self.deltas:
            kwargs: dict[str, Any] = {id_field: entity_id, "delta": "".join(self.deltas)}
            if self.post_start_metadata is not None:
                kwargs["metadata"] = self.post_start_metadata
            out.append(content_cls(**kwargs))
        if self.end is not None:
            out.append(self.end)
        out.extend(self.later)


def _flush_state(window: list[Any], out: list[Any]) -> None:
    if not window:
        return
    last = max((i for i, e in enumerate(window) if isinstance(e, StateSnapshotEvent)), default=-1)
    if last < 0:
        out.extend(window)
        return
    state: Any = None
    for event in window[last:]:
        if isinstance(event, StateSnapshotEvent):
            state = event.snapshot
            continue
        try:
            state = apply_patch(state, event.delta)
        except PatchError as error:
            warnings.warn(
                f"[ag-ui][compact] skipping a STATE_DELTA that does not apply: {error}",
                RuntimeWarning,
                stacklevel=3,
            )
    metadata: Metadata = None
    for event in window:
        metadata = _merge(metadata, event.metadata)
    kwargs: dict[str, Any] = {"snapshot": state}
    if metadata is not None:
        kwargs["metadata"] = metadata
    out.append(StateSnapshotEvent(**kwargs))


def compact_events(events: Iterable[Event]) -> list[Event]:
    """Return a shorter stream that applies to the same messages and state.

    >>> from ag_ui.core import TextMessageStartEvent, TextMessageContentEvent, TextMessageEndEvent
    >>> out = compact_events([
    ...     TextMessageStartEvent(message_id="m"),
    ...     TextMessageContentEvent(message_id="m", delta="Hel"),
    ...     TextMessageContentEvent(message_id="m", delta="lo"),
    ...     TextMessageEndEvent(message_id="m"),
    ... ])
    >>> [(e.type.value, getattr(e, "delta", None)) for e in out]
    [('TEXT_MESSAGE_START', None), ('TEXT_MESSAGE_CONTENT', 'Hello'), ('TEXT_MESSAGE_END', None)]
    """
    out: list[Any] = []
    texts: dict[str, _Group] = {}
    tools: dict[str, _Group] = {}
    window: list[Any] = []
    for event in events:
        if isinstance(event, (TextMessageStartEvent, TextMessageContentEvent, TextMessageEndEvent)):
            group = texts.setdefault(event.message_id, _Group())
            if isinstance(event, TextMessageStartEvent):
                group.add_start(event)
            elif isinstance(event, TextMessageContentEvent):
                group.add_content(event)
            else:
                group.end = event
                group.flush(out, TextMessageContentEvent, "message_id", event.message_id)
                del texts[event.message_id]
        elif isinstance(event, (ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent)):
            group = tools.setdefault(event.tool_call_id, _Group())
            if isinstance(event, ToolCallStartEvent):
                group.add_start(event)
            elif isinstance(event, ToolCallArgsEvent):
                group.add_content(event)
            else:
                group.end = event
                group.flush(out, ToolCallArgsEvent, "tool_call_id", event.tool_call_id)
                del tools[event.tool_call_id]
        elif isinstance(event, (RunStartedEvent, RunFinishedEvent, RunErrorEvent)):
            _flush_state(window, out)
            window = []
            out.append(event)
        elif isinstance(event, (StateSnapshotEvent, StateDeltaEvent)):
            window.append(event)
        else:
            holder = next(
                (g for g in texts.values() if g.start is not None and g.end is None), None
            )
            if holder is None:
                holder = next(
                    (g for g in tools.values() if g.start is not None and g.end is None), None
                )
            if holder is None:
                out.append(event)
            else:
                holder.later.append(event)
    for message_id, group in texts.items():
        group.flush(out, TextMessageContentEvent, "message_id", message_id)
    for call_id, group in tools.items():
        group.flush(out, ToolCallArgsEvent, "tool_call_id", call_id)
    _flush_state(window, out)
    return out
