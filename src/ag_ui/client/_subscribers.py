"""Subscribers: callbacks that watch (and may steer) a run, PROTOCOL.md §6.5 in snake_case.

A subscriber is any object with some of the callback attributes below (subclass
``AgentSubscriber`` or pass the callbacks as keyword arguments). Each callback takes one
``SubscriberParams`` and may be sync or async. Event callbacks may return an
``AgentStateMutation``: new ``messages``/``state`` replace the working copies (the next
subscriber sees them) and ``stop_propagation=True`` skips the remaining subscribers and the
default handling of the event.

A callback that raises is logged at ERROR level on the ``ag_ui.client`` logger and skipped (a
broken UI hook does not kill the run, as in TypeScript), and the run's
``RunAgentResult.subscriber_errors`` lists it as a ``SubscriberError``.

>>> seen = []
>>> printer = AgentSubscriber(on_text_message_content_event=lambda p: seen.append(p.event.delta))
"""

from __future__ import annotations

import copy
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Protocol, Union

from ag_ui.core.errors import SubscriberError
from ag_ui.core.types import Interrupt, Message, RunAgentInput, ToolCall

__all__ = [
    "CALLBACK_NAMES",
    "UNSET",
    "AgentStateMutation",
    "AgentSubscriber",
    "AgentView",
    "Callback",
    "NOTHING_CHANGED",
    "MutationOutcome",
    "MutationTarget",
    "Returned",
    "SubscriberLike",
    "SubscriberParams",
    "Subscription",
    "as_subscriber",
    "call_until_returned",
    "callback_name_for",
    "finish_subscribers",
    "run_subscribers",
]

logger = logging.getLogger("ag_ui.client")


class _Unset:
    """Marks "no new value" (``None`` is a legal state)."""

    _instance: Optional[_Unset] = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET = _Unset()

_EVENT_CALLBACKS = (
    "on_run_started_event",
    "on_run_finished_event",
    "on_run_error_event",
    "on_step_started_event",
    "on_step_finished_event",
    "on_subagent_started_event",
    "on_subagent_finished_event",
    "on_subagent_error_event",
    "on_text_message_start_event",
    "on_text_message_content_event",
    "on_text_message_end_event",
    "on_tool_call_start_event",
    "on_tool_call_args_event",
    "on_tool_call_end_event",
    "on_tool_call_result_event",
    "on_state_snapshot_event",
    "on_state_delta_event",
    "on_messages_snapshot_event",
    "on_activity_snapshot_event",
    "on_activity_delta_event",
    "on_raw_event",
    "on_custom_event",
    "on_reasoning_start_event",
    "on_reasoning_message_start_event",
    "on_reasoning_message_content_event",
    "on_reasoning_message_end_event",
    "on_reasoning_end_event",
    "on_reasoning_encrypted_value_event",
)

CALLBACK_NAMES: tuple[str, ...] = (
    "on_run_initialized",
    "on_run_failed",
    "on_run_finalized",
    "on_event",
    *_EVENT_CALLBACKS,
    "on_messages_changed",
    "on_state_changed",
    "on_new_message",
    "on_new_tool_call",
)
"""Every callback a subscriber may define (the 36 of the TypeScript ``AgentSubscriber``)."""


def callback_name_for(event_type: str) -> str:
    """The type-specific callback for an event type: ``TEXT_MESSAGE_START`` ->
    ``on_text_message_start_event``."""
    return f"on_{event_type.lower()}_event"


@dataclass
class AgentStateMutation:
    """What an event or lifecycle callback may return.

    ``messages``/``state`` left ``UNSET`` keep the current value; ``stop_propagation`` (event
    callbacks and ``on_run_failed`` only) stops the remaining subscribers and the default action.
    """

    messages: Union[Iterable[Union[Message, Mapping[str, Any]]], _Unset] = UNSET
    state: Any = UNSET  # any JSON value, or UNSET
    stop_propagation: bool = False


class AgentView(Protocol):
    """What a callback's ``params.agent`` is at least: the ``HttpAgent`` that runs (or was
    edited), seen through the parts that make sense inside a callback."""

    @property
    def agent_id(self) -> str: ...

    @property
    def thread_id(self) -> str: ...

    @property
    def messages(self) -> list[Message]: ...

    @property
    def state(self) -> Any: ...

    @property
    def pending_interrupts(self) -> list[Interrupt]: ...

    @property
    def is_running(self) -> bool: ...

    def abort_run(self) -> None: ...


class MutationTarget(Protocol):
    """Where a returned ``AgentStateMutation`` goes: the conversation being run."""

    @property
    def messages(self) -> list[Message]: ...

    @messages.setter
    def messages(self, messages: Iterable[Union[Message, Mapping[str, Any]]]) -> None: ...

    @property
    def state(self) -> Any: ...

    @state.setter
    def state(self, state: Any) -> None: ...


@dataclass(slots=True)
class SubscriberParams:
    """Everything a callback gets. Fields that do not apply to a callback stay ``None``.

    ``messages`` and ``state`` read the agent's current working values (each subscriber sees
    what the previous one returned); treat them as read-only and return an
    ``AgentStateMutation`` to change them.
    """

    agent: AgentView
    input: Optional[RunAgentInput] = None
    event: Any = None
    # Text / reasoning content: the message text *before* this event's delta.
    text_message_buffer: Optional[str] = None
    reasoning_message_buffer: Optional[str] = None
    # Tool calls: the arguments so far, the tool name, a best-effort parse of the partial args,
    # and on TOOL_CALL_END the parsed full arguments.
    tool_call_buffer: Optional[str] = None
    tool_call_name: Optional[str] = None
    partial_tool_call_args: Optional[dict[str, Any]] = None
    tool_call_args: Optional[dict[str, Any]] = None
    # Activity snapshots/deltas: the activity message before the event and any message by id.
    activity_message: Optional[Message] = None
    existing_message: Optional[Message] = None
    # RUN_FINISHED: "success" | "interrupt" | "cancelled" and what goes with it.
    outcome: Optional[str] = None
    result: Any = None
    pending_tool_call_ids: Sequence[str] = ()
    interrupts: Sequence[Interrupt] = ()
    # on_run_failed, on_new_message, on_new_tool_call.
    error: Optional[BaseException] = None
    message: Optional[Message] = None
    tool_call: Optional[ToolCall] = None

    @property
    def messages(self) -> list[Message]:
        """The conversation as typed messages (built on first access per change)."""
        return self.agent.messages

    @property
    def state(self) -> Any:
        """The agent state (any JSON value)."""
        return self.agent.state


Callback = Callable[[SubscriberParams], Any]
"""A subscriber callback: sync or async, returning ``None``, an ``AgentStateMutation`` or a
dict of one (return values matter for event and lifecycle callbacks only)."""

SubscriberLike = Union[object, Mapping[str, Callback]]
"""Any object with some of the callbacks as attributes, or a mapping of callback names."""


class Subscription:
    """Returned by ``subscribe``; ``unsubscribe()`` removes the subscriber again."""

    def __init__(self, subscribers: MutableSequence[object], subscriber: object) -> None:
        self._subscribers = subscribers
        self._subscriber = subscriber

    def unsubscribe(self) -> None:
        """Remove the subscriber (nothing happens when it is already gone)."""
        if self._subscriber in self._subscribers:
            self._subscribers.remove(self._subscriber)


def as_subscriber(subscriber: SubscriberLike) -> object:
    """Subscribers may be objects or ``{"on_event": fn, ...}`` mappings."""
    if isinstance(subscriber, Mapping):
        return AgentSubscriber(**subscriber)
    return subscriber


class AgentSubscriber:
    """Base class for subscribers; or pass callbacks as keywords:

    ``AgentSubscriber(on_event=print, on_run_failed=lambda p: ...)``.
    Unknown keywords raise ``TypeError`` so a typo does not silently do nothing.
    """

    def __init__(self, **callbacks: Callback) -> None:
        for name, callback in callbacks.items():
            if name not in CALLBACK_NAMES:
                raise TypeError(f"unknown subscriber callback {name!r}")
            setattr(self, name, callback)


@dataclass(frozen=True)
class MutationOutcome:
    """What the subscribers did: changed messages/state, stopped propagation."""

    stopped: bool = False
    messages_changed: bool = False
    state_changed: bool = False


NOTHING_CHANGED = MutationOutcome()


async def run_subscribers(
    subscribers: Iterable[object],
    name: str,
    params: SubscriberParams,
    *,
    target: MutationTarget,
    errors: list[SubscriberError],
) -> MutationOutcome:
    """Run callback ``name`` of each subscriber in order, applying each mutation to ``target``
    (the conversation) at once so the next subscriber sees it.

    A callback that raises is logged at ERROR level on the ``ag_ui.client`` logger, recorded in
    ``errors`` as a ``SubscriberError`` and skipped, as in the TypeScript client: a broken UI
    hook must not kill the run. A returned dict is read as an ``AgentStateMutation``; returned
    messages and state are copied.
    """
    if not isinstance(subscribers, Sequence):
        subscribers = list(subscribers)
    found = call_until_returned(subscribers, name, params, errors)
    if found is None:
        return NOTHING_CHANGED
    return await finish_subscribers(subscribers, name, params, found, target=target, errors=errors)


Returned = tuple[int, object, Any]
"""(position, subscriber, what its callback returned): where ``finish_subscribers`` goes on."""


def call_until_returned(
    subscribers: Sequence[object],
    name: str,
    params: SubscriberParams,
    errors: list[SubscriberError],
    start: int = 0,
) -> Optional[Returned]:
    """Call callback ``name`` of each subscriber from ``start`` until one returns something.

    ``None`` when none did: the common case (a callback that only looks), which then costs no
    coroutine at all; this runs once per event and callback name. By index, so that a
    subscriber added or removed by a callback is seen as a ``for`` loop over the list sees it.
    """
    position = start
    while position < len(subscribers):
        subscriber = subscribers[position]
        callback = getattr(subscriber, name, None)
        if callback is not None:
            try:
                returned = callback(params)
            except Exception as exc:
                _record_error(name, subscriber, exc, errors)
            else:
                if returned is not None:
                    return position, subscriber, returned
        position += 1
    return None


async def finish_subscribers(
    subscribers: Sequence[object],
    name: str,
    params: SubscriberParams,
    found: Returned,
    *,
    target: MutationTarget,
    errors: list[SubscriberError],
) -> MutationOutcome:
    """``run_subscribers`` from the first callback that returned something (awaited when it
    is awaitable, applied when it is a mutation) to the last subscriber."""
    stopped = messages_changed = state_changed = False
    position, subscriber, returned = found
    while True:
        if inspect.isawaitable(returned):
            try:
                returned = await returned
            except Exception as exc:
                _record_error(name, subscriber, exc, errors)
                returned = None
        if isinstance(returned, dict):
            returned = AgentStateMutation(**returned)
        if isinstance(returned, AgentStateMutation):
            messages = returned.messages
            if not isinstance(messages, _Unset) and messages is not target.messages:
                target.messages = copy.deepcopy(list(messages))
                messages_changed = True
            if returned.state is not UNSET and returned.state is not target.state:
                target.state = copy.deepcopy(returned.state)
                state_changed = True
            if returned.stop_propagation:
                stopped = True
                break
        following = call_until_returned(subscribers, name, params, errors, position + 1)
        if following is None:
            break
        position, subscriber, returned = following
    if not (stopped or messages_changed or state_changed):
        return NOTHING_CHANGED
    return MutationOutcome(stopped, messages_changed, state_changed)


def _record_error(
    name: str, subscriber: object, exc: Exception, errors: list[SubscriberError]
) -> None:
    error = SubscriberError(name, subscriber, exc)
    logger.error(
        "%s; the run goes on without it (listed in RunAgentResult.subscriber_errors)",
        error,
        exc_info=exc,
    )
    errors.append(error)
