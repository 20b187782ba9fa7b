"""``AgentState``: the immutable result of reducing events (messages, state, run bookkeeping).

Messages are kept in their wire JSON form (dicts with camelCase keys, exactly what
``model_dump(by_alias=True, mode="json")`` gives), because that is what the reducer edits, what
goes back to the agent in the next ``RunAgentInput`` and what the TypeScript client holds.
Everything is structurally shared: the reducer never changes a dict, list or tuple that an
``AgentState`` has published, it builds new ones along the changed path. Treat them as read-only;
``typed_messages()`` gives pydantic models.

Why the messages are held as a head and a tail: a text delta replaces the last message, and a
state that held one tuple of N messages had to copy all N per delta (quadratic over a long
conversation's stream). The head is a tuple shared, unchanged, by every state of a stream; the
tail holds the newest messages (at most ``_TAIL_LIMIT``), so a delta copies the tail only. A
push that would overflow the tail folds it into the head (one copy per ``_TAIL_LIMIT`` pushes).
``messages`` stays a plain tuple: it is joined on first read and kept in a one-slot cell of that
state, so an application that reads it per event pays the join once per state, and one that
does not (a server's verifier, a pipeline read at the end) never pays it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Optional

from pydantic import BaseModel, TypeAdapter

from ag_ui.core.types import Message

__all__ = [
    "AgentState",
    "RunSummary",
    "push_message",
    "replace_message",
    "to_wire",
    "with_tool_call",
]

MessageDict = dict[str, Any]
# Messages the tail holds at most: a delta copies the tail, a fold copies the head.
_TAIL_LIMIT = 32
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


def _build_tool_index(messages: tuple[MessageDict, ...]) -> dict[str, str]:
    # tool call id -> id of the first message carrying it (every call is indexed).
    index: dict[str, str] = {}
    for message in messages:
        for call in message.get("toolCalls") or ():
            index.setdefault(call.get("id"), message["id"])
    return index


def _build_index(messages: tuple[MessageDict, ...]) -> dict[str, int]:
    # First occurrence wins, as ``Array.prototype.find`` does in the TypeScript reducer.
    index: dict[str, int] = {}
    for position, message in enumerate(messages):
        index.setdefault(message.get("id"), position)  # type: ignore[arg-type]
    return index


class AgentState(tuple):  # type: ignore[type-arg]
    """Messages, state and run bookkeeping after some events; immutable.

    ``messages`` is a tuple of wire-JSON message dicts, ``state`` any JSON value,
    ``pending_interrupts`` the interrupts (wire JSON) of the last RUN_FINISHED, ``run`` a
    ``RunSummary``. Build one with ``AgentState(messages=..., state=...)`` (messages may be
    pydantic models or dicts) and advance it with ``ag_ui.apply.apply_event``.

    (It is a tuple underneath only because that makes a new state cheap to build: the reducer
    builds one per event. Use the named attributes.)
    """

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def messages(self) -> tuple[MessageDict, ...]: ...
        @property
        def state(self) -> Any: ...
        @property
        def pending_interrupts(self) -> tuple[MessageDict, ...]: ...
        @property
        def run(self) -> RunSummary: ...
        @property
        def _index(self) -> dict[str, int]: ...
        @property
        def _tool_index(self) -> dict[str, str]: ...

    else:

        @property
        def messages(self) -> tuple[MessageDict, ...]:
            """The messages, as wire-JSON dicts (read-only)."""
            head, tail = _halves(self)
            if not tail:
                return head
            cell = _cell_of(self)
            joined = cell[0]
            if joined is None:
                joined = cell[0] = head + tail
            return joined

        state = property(itemgetter(2), doc="The state: any JSON value.")
        pending_interrupts = property(itemgetter(3), doc="Interrupts of the last RUN_FINISHED.")
        run = property(itemgetter(4), doc="Bookkeeping of the current or last run.")
        _index = property(itemgetter(5))
        _tool_index = property(itemgetter(6))

    def __new__(
        cls,
        *,
        messages: Iterable[Any] = (),
        state: Any = None,
        pending_interrupts: Iterable[Any] = (),
        run: RunSummary = _EMPTY_RUN,
    ) -> AgentState:
        wire_messages = tuple(to_wire(m) if not isinstance(m, dict) else m for m in messages)
        for message in wire_messages:
            if not isinstance(message, Mapping) or not isinstance(message.get("id"), str):
                raise TypeError(f"a message needs a string 'id': {message!r}")
        interrupts = tuple(to_wire(list(pending_interrupts)))
        fields = (
            wire_messages,
            (),
            to_wire(state),
            interrupts,
            run,
            _build_index(wire_messages),
            _build_tool_index(wire_messages),
            [None],
        )
        return _new(cls, fields)

    def __iter__(self) -> Any:
        raise TypeError("AgentState is not iterable; use .messages, .state, ...")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentState):
            return NotImplemented
        return (
            self.messages == other.messages
            and self.state == other.state
            and self.pending_interrupts == other.pending_interrupts
            and self.run == other.run
        )

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"AgentState(messages={list(self.messages)!r}, state={self.state!r}, "
            f"pending_interrupts={list(self.pending_interrupts)!r}, run={self.run!r})"
        )

    def __reduce__(self) -> Any:
        return (_rebuild, (self.messages, self.state, self.pending_interrupts, self.run))

    def message_position(self, message_id: str) -> int:
        """Position of the first message with ``message_id``, or -1."""
        return self._index.get(message_id, -1)

    def message_at(self, position: int) -> MessageDict:
        """The message at ``position`` (>= 0), without joining ``messages``: constant time."""
        head, tail = _halves(self)
        split = len(head)
        message: MessageDict = head[position] if position < split else tail[position - split]
        return message

    def message_count(self) -> int:
        """How many messages there are (``len(messages)`` without joining them)."""
        head, tail = _halves(self)
        return len(head) + len(tail)

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
        tool_index: Optional[dict[str, str]] = None,
    ) -> AgentState:
        """A copy with some fields replaced (the indexes are recomputed unless given)."""
        if messages is None:
            head, tail = _halves(self)
            index, tool_index, cell = self._index, self._tool_index, _cell_of(self)
        else:
            head, tail, cell = messages, (), [None]
            if index is None:
                index = _build_index(messages)
            if tool_index is None:
                tool_index = _build_tool_index(messages)
        return _new(
            AgentState,
            (
                head,
                tail,
                self.state if state is ... else state,
                self.pending_interrupts if pending_interrupts is None else pending_interrupts,
                self.run if run is None else run,
                index,
                tool_index,
                cell,
            ),
        )


_new = tuple.__new__
_fields_of = tuple.__iter__  # AgentState's own __iter__ refuses, on purpose
_halves = itemgetter(0, 1)
_cell_of = itemgetter(7)


def _rebuild(messages: Any, state: Any, interrupts: Any, run: RunSummary) -> AgentState:
    return AgentState(messages=messages, state=state, pending_interrupts=interrupts, run=run)


def replaced_halves(
    head: tuple[MessageDict, ...],
    tail: tuple[MessageDict, ...],
    position: int,
    message: MessageDict,
) -> tuple[tuple[MessageDict, ...], tuple[MessageDict, ...]]:
    """(head, tail) with the message at ``position`` replaced, copying as little as it can."""
    split = len(head)
    if position >= split:
        at = position - split
        if at == len(tail) - 1:
            return head, (*tail[:at], message)
        return head, (*tail[:at], message, *tail[at + 1 :])
    if split - position + len(tail) <= _TAIL_LIMIT:
        # Near the end of the head (a state built from a list, whose last message now streams):
        # move the rest into the tail once, so the next deltas copy the tail only.
        return head[:position], (message, *head[position + 1 :], *tail)
    return (*head[:position], message, *head[position + 1 :]), tail


def replace_message(current: AgentState, position: int, message: MessageDict) -> AgentState:
    """The state with the message at ``position`` replaced (same id: the index is shared)."""
    head, tail, state, interrupts, run, index, tool_index, _ = _fields_of(current)
    head, tail = replaced_halves(head, tail, position, message)
    return _new(AgentState, (head, tail, state, interrupts, run, index, tool_index, [None]))


def _pushed_halves(
    head: tuple[MessageDict, ...], tail: tuple[MessageDict, ...], message: MessageDict
) -> tuple[tuple[MessageDict, ...], tuple[MessageDict, ...]]:
    if len(tail) < _TAIL_LIMIT:
        return head, (*tail, message)
    return head + tail, (message,)


def push_message(current: AgentState, message: MessageDict) -> AgentState:
    """The state with ``message`` appended."""
    head, tail = _halves(current)
    head, tail = _pushed_halves(head, tail, message)
    count = len(head) + len(tail)
    index = current._index
    if message["id"] not in index:
        index = {**index, message["id"]: count - 1}
    tool_index = current._tool_index
    calls = message.get("toolCalls")
    if calls:
        tool_index = dict(tool_index)
        for call in calls:
            call_id = call.get("id")
            known = tool_index.get(call_id)
            # Keep an earlier carrier; replace an entry whose message no longer has the call.
            if known is None or not _carries(current, known, call_id):
                tool_index[call_id] = message["id"]
    return _new(
        AgentState,
        (
            head,
            tail,
            current.state,
            current.pending_interrupts,
            current.run,
            index,
            tool_index,
            [None],
        ),
    )


def _carries(current: AgentState, message_id: str, call_id: str) -> bool:
    position = current._index.get(message_id, -1)
    calls = current.message_at(position).get("toolCalls") if position >= 0 else None
    return any(call.get("id") == call_id for call in calls or ())


def with_tool_call(current: AgentState, call_id: str, message_id: str) -> dict[str, str]:
    """The tool index after ``call_id`` was added to message ``message_id``."""
    if call_id in current._tool_index:
        return current._tool_index
    return {**current._tool_index, call_id: message_id}
