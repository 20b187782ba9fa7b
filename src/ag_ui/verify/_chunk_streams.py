"""How one chunk becomes events (PROTOCOL.md §6.3): opening, continuing, and what rides where.

``expand_chunk(kind, pending, chunk)`` is pure: given the stream a lane has open (``pending``)
it returns the events and the lane's stream afterwards; ``ChunkExpander`` owns the lanes. A
chunk continues the pending stream when it names the same id (or none); otherwise it closes
whatever the lane had open and opens a new stream, which needs an id (and, for tool calls, a
name). The chunk's ``metadata`` rides on every event made from it; its ``rawEvent`` and
any fields the protocol does not describe ride on the content event, or on the opener when no
content event is made, so nothing the producer sent is lost.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal, NoReturn, Optional, Union

from ag_ui.core.errors import ChunkExpansionError
from ag_ui.core.events import (
    Event,
    ReasoningMessageChunkEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.verify._nulls import explicit_null

__all__ = ["ChunkEvent", "ChunkKind", "ChunkTransformWarning", "Pending", "expand_chunk"]

ChunkKind = Literal["text", "tool", "reasoning"]
ChunkEvent = Union[TextMessageChunkEvent, ToolCallChunkEvent, ReasoningMessageChunkEvent]


class ChunkTransformWarning(UserWarning):
    """A chunk field had to be dropped while expanding (it collided with a synthesized one)."""


_STREAM_CLASSES: dict[ChunkKind, tuple[type[Event], type[Event], type[Event]]] = {
    "text": (TextMessageStartEvent, TextMessageContentEvent, TextMessageEndEvent),
    "tool": (ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent),
    "reasoning": (
        ReasoningMessageStartEvent,
        ReasoningMessageContentEvent,
        ReasoningMessageEndEvent,
    ),
}
_ENTITY = {"text": "text message", "tool": "tool call", "reasoning": "reasoning message"}


class Pending:
    """One stream being assembled from chunks: its kind, id and the opener's fields."""

    __slots__ = ("entity_id", "kind", "name", "parent_message_id", "role", "subagent_run_id")

    def __init__(
        self,
        kind: ChunkKind,
        entity_id: str,
        *,
        role: Optional[str] = None,
        name: Optional[str] = None,
        parent_message_id: Optional[str] = None,
        subagent_run_id: Optional[str] = None,
    ) -> None:
        self.kind = kind
        self.entity_id = entity_id
        self.role = role
        self.name = name
        self.parent_message_id = parent_message_id
        self.subagent_run_id = subagent_run_id

    def __repr__(self) -> str:
        return f"Pending({self.kind!r}, {self.entity_id!r}, subagent={self.subagent_run_id!r})"

    def id_kwargs(self) -> dict[str, Any]:
        key = "tool_call_id" if self.kind == "tool" else "message_id"
        return {key: self.entity_id}

    def end_event(self) -> Event:
        """The synthesized END: the id and the opener's subagent tag, nothing else."""
        kwargs = self.id_kwargs()
        if self.subagent_run_id is not None:
            kwargs["subagent_run_id"] = self.subagent_run_id
        return _STREAM_CLASSES[self.kind][2](**kwargs)


def _fail(rule: str, chunk: Any, message: str, **ids: Any) -> NoReturn:
    raise ChunkExpansionError(message, rule=rule, event_type=chunk.type.value, ids=ids)


def _agree(
    kind: str, entity_id: str, field: str, incoming: Any, established: Any, chunk: Any
) -> None:
    # A continuation may repeat an opener's field only with the same value.
    if incoming is not None and incoming != established:
        shown = "(absent)" if established is None else f"'{established}'"
        _fail(
            "X2",
            chunk,
            f"Cannot continue {_ENTITY[kind]} '{entity_id}': chunk {field} '{incoming}' does "
            f"not match the open stream's {field} {shown}.",
            entity_id=entity_id,
            field=field,
        )


def _tag_kwargs(chunk: Any, fallback: Optional[str] = None) -> dict[str, Any]:
    # An explicit null tag is passed on as an explicit None, so the verifier's N1 rule sees it.
    tag = chunk.subagent_run_id
    if tag is not None:
        return {"subagent_run_id": tag}
    if explicit_null(chunk, "subagent_run_id"):
        return {"subagent_run_id": None}
    return {} if fallback is None else {"subagent_run_id": fallback}


def _continues(pending: Optional[Pending], kind: ChunkKind, entity_id: Optional[str]) -> bool:
    return (
        pending is not None
        and pending.kind == kind
        and (entity_id is None or entity_id == pending.entity_id)
    )


def _open(kind: ChunkKind, chunk: Any) -> tuple[Pending, dict[str, Any]]:
    if kind == "tool":
        if chunk.tool_call_id is None:
            _fail("X1", chunk, "First TOOL_CALL_CHUNK must have a toolCallId")
        if chunk.tool_call_name is None:
            _fail(
                "X1",
                chunk,
                "First TOOL_CALL_CHUNK must have a toolCallName",
                tool_call_id=chunk.tool_call_id,
            )
        pending = Pending(
            kind,
            chunk.tool_call_id,
            name=chunk.tool_call_name,
            parent_message_id=chunk.parent_message_id,
            subagent_run_id=chunk.subagent_run_id,
        )
        kwargs: dict[str, Any] = {
            "tool_call_id": chunk.tool_call_id,
            "tool_call_name": chunk.tool_call_name,
        }
        if chunk.parent_message_id is not None:
            kwargs["parent_message_id"] = chunk.parent_message_id
    else:
        if chunk.message_id is None:
            _fail("X1", chunk, f"First {chunk.type.value} must have a messageId")
        if kind == "text":
            role = chunk.role if chunk.role is not None else "assistant"
            pending = Pending(
                kind,
                chunk.message_id,
                role=role,
                name=chunk.name,
                subagent_run_id=chunk.subagent_run_id,
            )
            kwargs = {"message_id": chunk.message_id, "role": role}
            if chunk.name is not None:
                kwargs["name"] = chunk.name
        else:
            pending = Pending(kind, chunk.message_id, subagent_run_id=chunk.subagent_run_id)
            kwargs = {"message_id": chunk.message_id, "role": "reasoning"}
    kwargs.update(_tag_kwargs(chunk))
    if chunk.metadata is not None:
        kwargs["metadata"] = chunk.metadata
    return pending, kwargs


def expand_chunk(
    kind: ChunkKind, pending: Optional[Pending], chunk: ChunkEvent
) -> tuple[list[Event], Pending]:
    """The events ``chunk`` becomes in a lane whose open stream is ``pending`` (``None``: none),
    and the stream the lane has open afterwards."""
    start_cls, content_cls, _ = _STREAM_CLASSES[kind]
    entity_id = chunk.tool_call_id if isinstance(chunk, ToolCallChunkEvent) else chunk.message_id
    extras = dict(chunk.model_extra or {})
    out: list[Any] = []
    opener_kwargs: Optional[dict[str, Any]] = None
    if pending is not None and _continues(pending, kind, entity_id):
        if isinstance(chunk, TextMessageChunkEvent):
            _agree(kind, pending.entity_id, "role", chunk.role, pending.role, chunk)
            _agree(kind, pending.entity_id, "name", chunk.name, pending.name, chunk)
        elif isinstance(chunk, ToolCallChunkEvent):
            _agree(
                kind, pending.entity_id, "toolCallName", chunk.tool_call_name, pending.name, chunk
            )
            _agree(
                kind,
                pending.entity_id,
                "parentMessageId",
                chunk.parent_message_id,
                pending.parent_message_id,
                chunk,
            )
    else:
        if pending is not None:
            out.append(pending.end_event())
        pending, opener_kwargs = _open(kind, chunk)
        out.append(None)  # placeholder: the opener may still receive the extras below

    delta = chunk.delta
    carried = False
    content_kwargs: Optional[dict[str, Any]] = None
    if delta is not None or chunk.raw_event is not None:
        content_kwargs = {
            **extras,
            **pending.id_kwargs(),
            "delta": delta if delta is not None else "",
        }
        content_kwargs.update(_tag_kwargs(chunk, pending.subagent_run_id))
        carried = True
    elif opener_kwargs is None and (
        chunk.metadata is not None or extras or explicit_null(chunk, "subagent_run_id")
    ):
        # Nothing else to emit, but the chunk carries something the reducer must see.
        content_kwargs = {**extras, **pending.id_kwargs(), "delta": ""}
        content_kwargs.update(_tag_kwargs(chunk, pending.subagent_run_id))
        carried = True
    if content_kwargs is not None:
        if chunk.metadata is not None:
            content_kwargs["metadata"] = chunk.metadata
        if chunk.raw_event is not None:
            content_kwargs["raw_event"] = chunk.raw_event

    if opener_kwargs is not None:
        if extras and not carried:
            opener_kwargs = _with_remainder(start_cls, opener_kwargs, extras, chunk)
        out[-1] = start_cls(**opener_kwargs)
    if content_kwargs is not None:
        out.append(content_cls(**content_kwargs))
    return out, pending


def _with_remainder(
    cls: type[Event], kwargs: dict[str, Any], extras: dict[str, Any], chunk: ChunkEvent
) -> dict[str, Any]:
    described = set(kwargs)
    for name, info in cls.model_fields.items():
        if name in kwargs:
            described.add(info.alias or name)
    shadowed = [key for key in extras if key in described or key in cls.model_fields]
    if shadowed:
        warnings.warn(
            f"A {chunk.type.value} carried {', '.join(repr(k) for k in shadowed)}, which the "
            f"synthesized {cls.__name__} already describes; the synthesized value is kept.",
            ChunkTransformWarning,
            stacklevel=5,
        )
    return {**{k: v for k, v in extras.items() if k not in shadowed}, **kwargs}
