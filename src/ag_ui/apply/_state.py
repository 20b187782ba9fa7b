"""``AgentState``: the immutable result of reducing events (messages, state, run bookkeeping).

Messages are kept in their wire JSON form (dicts with camelCase keys, exactly what
``model_dump(by_alias=True, mode="json")`` gives), because that is what the reducer edits, what
goes back to the agent in the next ``RunAgentInput`` and what the TypeScript client holds.
Everything is structurally shared: the reducer never changes a dict, list or tuple that an
``AgentState`` has published, it builds new ones along the changed path. Treat them as read-only;
``typed_messages()`` gives pydantic models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from pydantic import BaseModel, TypeAdapter

from ag_ui.core.types import Message

__all__ = ["AgentState", "RunSummary", "push_message", "replace_message", "to_wire"]

MessageDict = dict[str, Any]
_MESSAGES_ADAPTER: TypeAdapter[list[Message]] = TypeAdapter(list[Message])


def to_wire(value: Any) -> Any:
    """A pydantic model (or list of them) as wire JSON; plain JSON values pass through."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, mode="json")
    if isinstance(value, (list, tuple)):
        return [to_wire(item) for item in value]
    return value


@dataclass(frozen=True)
class RunSummary:
    """Bookkeeping of the current (or last) run, reset by RUN_STARTED.

    ``tool_call_ids`` lists the tool calls started in the run, ``answered_tool_call_ids`` those
    a TOOL_CALL_RESULT answered. After RUN_FINISHED, ``outcome`` is ``"success"``,
    ``"interrupt"`` or ``"cancelled"``, ``result`` the run's result, and
    ``pending_tool_call_ids`` the calls left for the application to answer (the outcome's own
    non-empty list, else the started calls that got no result).
    """

    tool_call_ids: tuple[str, ...] = ()
    answered_tool_call_ids: frozenset[str] = frozenset()
    outcome: Optional[str] = None
    result: Any = None
    pending_tool_call_ids: tuple[str, ...] = ()


_EMPTY_RUN = RunSummary()


def _build_index(messages: tuple[MessageDict, ...]) -> dict[str, int]:
    # First occurrence wins, as ``Array.prototype.find`` does in the TypeScript reducer.
    index: dict[str, int] = {}
    for position, message in enumerate(messages):
        index.setdefault(message.get("id"), position)  # type: ignore[arg-type]
    return index


class AgentState:
    """Messages, state and run bookkeeping after some events; immutable.

    ``messages`` is a tuple of wire-JSON message dicts, ``state`` any JSON value,
    ``pending_interrupts`` the interrupts (wire JSON) of the last RUN_FINISHED, ``run`` a
    ``RunSummary``. Build one with ``AgentState(messages=..., state=...)`` (messages may be
    pydantic models or dicts) and advance it with ``ag_ui.apply.apply_event``.
    """

    __slots__ = ("_index", "messages", "pending_interrupts", "run", "state")

    messages: tuple[MessageDict, ...]
    state: Any
    pending_interrupts: tuple[MessageDict, ...]
    run: RunSummary
    _index: dict[str, int]

    def __init__(
        self,
        *,
        messages: Iterable[Any] = (),
        state: Any = None,
        pending_interrupts: Iterable[Any] = (),
        run: RunSummary = _EMPTY_RUN,
    ) -> None:
        wire_messages = tuple(to_wire(m) if not isinstance(m, dict) else m for m in messages)
        for message in wire_messages:
            if not isinstance(message, Mapping) or not isinstance(message.get("id"), str):
                raise TypeError(f"a message needs a string 'id': {message!r}")
        _init(
            self,
            wire_messages,
            to_wire(state),
            tuple(to_wire(list(pending_interrupts))),
            run,
            _build_index(wire_messages),
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("AgentState is immutable; use apply_event() or evolve()")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentState):
            return NotImplemented
        return (
            self.messages == other.messages
            and self.state == other.state
            and self.pending_interrupts == other.pending_interrupts
            and self.run == other.run
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"AgentState(messages={list(self.messages)!r}, state={self.state!r}, "
            f"pending_interrupts={list(self.pending_interrupts)!r}, run={self.run!r})"
        )

    def message_position(self, message_id: str) -> int:
        """Position of the first message with ``message_id``, or -1."""
        return self._index.get(message_id, -1)

    def typed_messages(self) -> list[Message]:
        """The messages as pydantic ``Message`` models (validated on each call)."""
        return _MESSAGES_ADAPTER.validate_python(list(self.messages))

    def evolve(
        self,
        *,
        messages: Optional[tuple[MessageDict, ...]] = None,
        state: Any = ...,
        pending_interrupts: Optional[tuple[MessageDict, ...]] = None,
        run: Optional[RunSummary] = None,
        index: Optional[dict[str, int]] = None,
    ) -> AgentState:
        """A copy with some fields replaced (``index`` is recomputed unless given)."""
        new = object.__new__(AgentState)
        if messages is None:
            messages, index = self.messages, self._index
        elif index is None:
            index = _build_index(messages)
        _init(
            new,
            messages,
            self.state if state is ... else state,
            self.pending_interrupts if pending_interrupts is None else pending_interrupts,
            self.run if run is None else run,
            index,
        )
        return new


_set = object.__setattr__


def _init(
    target: AgentState,
    messages: tuple[MessageDict, ...],
    state: Any,
    pending_interrupts: tuple[MessageDict, ...],
    run: RunSummary,
    index: dict[str, int],
) -> None:
    _set(target, "messages", messages)
    _set(target, "state", state)
    _set(target, "pending_interrupts", pending_interrupts)
    _set(target, "run", run)
    _set(target, "_index", index)


def replace_message(current: AgentState, position: int, message: MessageDict) -> AgentState:
    """The state with the message at ``position`` replaced (same id: the index is shared)."""
    messages = current.messages
    new = object.__new__(AgentState)
    _init(
        new,
        (*messages[:position], message, *messages[position + 1 :]),
        current.state,
        current.pending_interrupts,
        current.run,
        current._index,
    )
    return new


def push_message(current: AgentState, message: MessageDict) -> AgentState:
    """The state with ``message`` appended."""
    messages = (*current.messages, message)
    index = current._index
    if message["id"] not in index:
        index = {**index, message["id"]: len(messages) - 1}
    return current.evolve(messages=messages, index=index)
