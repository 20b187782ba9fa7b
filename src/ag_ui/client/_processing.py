"""One run's handling of each verified event: subscribers (with mutations and
``stop_propagation``), the reducer, the run's bookkeeping and change notifications (§6.4, §6.5).

``EventProcessor`` advances the ``Conversation`` it is given and records the run's outcome in
the ``RunAgentResult`` it is given; it never touches the agent.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Optional

from ag_ui.apply import AgentState, Reducer
from ag_ui.client._conversation import Conversation
from ag_ui.client._debug import DebugLog
from ag_ui.client._messages import MESSAGE_ADAPTER
from ag_ui.client._partial_json import parse_partial_object
from ag_ui.client._result import RunAgentResult
from ag_ui.client._subscribers import (
    CALLBACK_NAMES,
    NOTHING_CHANGED,
    AgentView,
    MutationOutcome,
    Returned,
    SubscriberParams,
    call_until_returned,
    callback_name_for,
    finish_subscribers,
    run_subscribers,
)
from ag_ui.client.versions import warn_about_producer_declaration
from ag_ui.core._surrogates import refuse_constant
from ag_ui.core._wire import event_type_name
from ag_ui.core.errors import RunError
from ag_ui.core.events import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    Event,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.core.types import Message, RunAgentInput, ToolCall

__all__ = ["EventProcessor"]

_MESSAGE_EVENTS = frozenset(
    {
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "MESSAGES_SNAPSHOT",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_ENCRYPTED_VALUE",
        "RUN_STARTED",
    }
)
_STATE_EVENTS = frozenset({"STATE_SNAPSHOT", "STATE_DELTA"})
_NEW_MESSAGE_EVENTS = frozenset({"TEXT_MESSAGE_END", "REASONING_MESSAGE_END", "TOOL_CALL_RESULT"})
# Events with bookkeeping of their own beyond subscribers and the reducer.
_SPECIAL = (
    RunStartedEvent,
    RunFinishedEvent,
    RunErrorEvent,
    ToolCallStartEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ActivitySnapshotEvent,
)
_NOTIFICATIONS = frozenset(
    {"on_messages_changed", "on_state_changed", "on_new_message", "on_new_tool_call"}
)


@dataclass(frozen=True, slots=True)
class _Kind:
    """What the processor needs to know about an event class, looked up once per class."""

    name: str
    callback: str
    changes_messages: bool
    changes_state: bool
    special: bool


_KINDS: dict[type, _Kind] = {}


def _kind_of(event: Event) -> _Kind:
    name = event_type_name(event)
    kind = _Kind(
        name=name,
        callback=callback_name_for(name),
        changes_messages=name in _MESSAGE_EVENTS,
        changes_state=name in _STATE_EVENTS,
        special=isinstance(event, _SPECIAL),
    )
    _KINDS[event.__class__] = kind
    return kind


def _message(state: AgentState, message_id: Optional[str]) -> Optional[dict[str, Any]]:
    if message_id is None:
        return None
    position = state.message_position(message_id)
    return state.message_at(position) if position >= 0 else None


def _tool_call(state: AgentState, tool_call_id: str) -> Optional[dict[str, Any]]:
    # From the newest message, read one at a time: the call streaming now is in one of the last,
    # and joining ``state.messages`` per ARGS delta would cost the whole conversation each time.
    for position in range(state.message_count() - 1, -1, -1):
        message = state.message_at(position)
        for call in message.get("toolCalls") or ():
            if call.get("id") == tool_call_id:
                found: dict[str, Any] = call
                return found
    return None


def _text(message: Optional[dict[str, Any]]) -> str:
    content = message.get("content") if message is not None else None
    return content if isinstance(content, str) else ""


def _typed(message: Optional[dict[str, Any]]) -> Optional[Message]:
    return MESSAGE_ADAPTER.validate_python(message) if message is not None else None


def _parse_args(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text, parse_constant=refuse_constant)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class EventProcessor:
    """Feeds each verified event through subscribers and the reducer, and keeps the books.

    ``run_ended`` follows the last run in the stream (several sequential runs are legal);
    ``error`` is the agent's RUN_ERROR as a ``RunError`` while the last run is the one that
    sent it (a later RUN_STARTED in the same response clears it).
    """

    def __init__(
        self,
        owner: AgentView,
        conversation: Conversation,
        subscribers: list[object],
        input: RunAgentInput,
        result: RunAgentResult,
        *,
        debug: Optional[DebugLog] = None,
    ) -> None:
        self.owner = owner
        self.conversation = conversation
        self.subscribers = subscribers
        self.input = input
        self.result = result
        self.count = 0
        self.last_type: Optional[str] = None
        self.run_ended = False
        self.error: Optional[RunError] = None
        self._debug = debug
        self._reduce = Reducer().reduce  # a patch that fails is skipped with a warning
        self._answered: dict[str, bool] = {}  # tool calls started this run -> got a result
        self._callbacks = {
            name for s in subscribers for name in CALLBACK_NAMES if getattr(s, name, None)
        }
        self._on_event = "on_event" in self._callbacks
        self._notifies = not self._callbacks.isdisjoint(_NOTIFICATIONS)

    def _params(self, **fields: Any) -> SubscriberParams:
        return SubscriberParams(self.owner, self.input, **fields)

    def describe_incomplete(self) -> str:
        """What the stream held when it ended without a terminal event."""
        if not self.count:
            return "the stream ended before any event arrived (expected RUN_STARTED)"
        return (
            f"the stream ended after {self.count} event(s) without RUN_FINISHED or RUN_ERROR "
            f"(last event: {self.last_type}); the agent or a proxy cut the response short"
        )

    async def _run(self, name: str, params: SubscriberParams) -> MutationOutcome:
        return await run_subscribers(
            self.subscribers,
            name,
            params,
            target=self.conversation,
            errors=self.result.subscriber_errors,
        )

    def process(self, event: Event) -> Optional[Awaitable[None]]:
        """Handle one verified event: subscribers, then (unless stopped) the reducer.

        Returns ``None`` when the event was handled outright, or an awaitable that finishes
        handling it: a coroutine per event is most of the cost of a run whose subscribers
        return nothing, so one is made only once a subscriber returned something (a mutation,
        an awaitable) or a change notification has to be sent.
        """
        # The hot path of a run: one table lookup tells what this class of event needs.
        kind = _KINDS.get(event.__class__) or _kind_of(event)
        self.count += 1
        self.last_type = kind.name
        params = self._before_special(event) if kind.special else None
        callbacks = self._callbacks
        if callbacks:
            if params is None:
                params = SubscriberParams(self.owner, self.input, event)
            # The subscribers' first pass is a plain call each.
            subscribers, errors = self.subscribers, self.result.subscriber_errors
            if self._on_event:
                found = call_until_returned(subscribers, "on_event", params, errors)
                if found is not None:
                    return self._finish_on_event(event, kind, params, found)
            if kind.callback in callbacks:
                self._event_params(params, event)
                found = call_until_returned(subscribers, kind.callback, params, errors)
                if found is not None:
                    return self._finish_callback(event, kind, params, found, NOTHING_CHANGED)
        return self._apply(event, kind, params, False, False, False)

    async def _finish_on_event(
        self, event: Event, kind: _Kind, params: SubscriberParams, found: Returned
    ) -> None:
        """``process`` from the first ``on_event`` subscriber that returned something."""
        outcome = await finish_subscribers(
            self.subscribers,
            "on_event",
            params,
            found,
            target=self.conversation,
            errors=self.result.subscriber_errors,
        )
        if not outcome.stopped and kind.callback in self._callbacks:
            self._event_params(params, event)
            errors = self.result.subscriber_errors
            later = call_until_returned(self.subscribers, kind.callback, params, errors)
            if later is not None:
                await self._finish_callback(event, kind, params, later, outcome)
                return
        pending = self._apply(
            event, kind, params, outcome.stopped, outcome.messages_changed, outcome.state_changed
        )
        if pending is not None:
            await pending

    async def _finish_callback(
        self,
        event: Event,
        kind: _Kind,
        params: SubscriberParams,
        found: Returned,
        before: MutationOutcome,
    ) -> None:
        """``process`` from the first subscriber of the type's callback that returned
        something; ``before`` is what the ``on_event`` pass changed."""
        outcome = await finish_subscribers(
            self.subscribers,
            kind.callback,
            params,
            found,
            target=self.conversation,
            errors=self.result.subscriber_errors,
        )
        pending = self._apply(
            event,
            kind,
            params,
            outcome.stopped,
            before.messages_changed or outcome.messages_changed,
            before.state_changed or outcome.state_changed,
        )
        if pending is not None:
            await pending

    def _apply(
        self,
        event: Event,
        kind: _Kind,
        params: Optional[SubscriberParams],
        stopped: bool,
        messages_changed: bool,
        state_changed: bool,
    ) -> Optional[Awaitable[None]]:
        """After the subscribers: the reducer (unless stopped), the books, the notifications
        (the awaitable returned, if any are due)."""
        # After the subscribers (who may have replaced the messages), before the reducer.
        existed = isinstance(event, ActivitySnapshotEvent) and (
            _message(self.conversation.agent_state, event.message_id) is not None
        )
        log = self._debug
        if log is not None:
            if stopped:
                log.event("APPLY", "Event dropped:", event, reason="stop_propagation by subscriber")
            else:
                log.event("APPLY", "Event applied:", event, subscribers=len(self.subscribers))
        if not stopped:
            conversation = self.conversation
            conversation.agent_state = self._reduce(conversation.agent_state, event)
            messages_changed = messages_changed or kind.changes_messages
            state_changed = state_changed or kind.changes_state
        if kind.special:
            self._after_special(event, params, stopped)
        if self._notifies:
            return self._notify(kind.name, event, messages_changed, state_changed, existed)
        return None

    def _before_special(self, event: Event) -> Optional[SubscriberParams]:
        """Bookkeeping before subscribers see the event; RUN_FINISHED's params."""
        if isinstance(event, RunStartedEvent):
            self.run_ended = False
            self.error = None  # a new run after a RUN_ERROR: the response ends as it does
            self._answered.clear()
            warn_about_producer_declaration(event.protocol_version)
        elif isinstance(event, ToolCallStartEvent):
            self._answered[event.tool_call_id] = False
        elif isinstance(event, ToolCallResultEvent):
            self._answered[event.tool_call_id] = True
        elif isinstance(event, RunFinishedEvent):
            params = SubscriberParams(self.owner, self.input, event)
            self._finish_params(params, event)
            return params
        return None

    def _after_special(
        self, event: Event, params: Optional[SubscriberParams], stopped: bool
    ) -> None:
        if isinstance(event, RunFinishedEvent):
            assert params is not None
            self._record_finish(params, stopped)
        elif isinstance(event, RunErrorEvent):
            self.run_ended = True
            self.error = RunError(event.message, code=event.code)

    def _event_params(self, params: SubscriberParams, event: Event) -> None:
        state = self.conversation.agent_state
        if isinstance(event, (TextMessageContentEvent, TextMessageEndEvent)):
            params.text_message_buffer = _text(_message(state, event.message_id))
        elif isinstance(event, (ReasoningMessageContentEvent, ReasoningMessageEndEvent)):
            params.reasoning_message_buffer = _text(_message(state, event.message_id))
        elif isinstance(event, (ToolCallArgsEvent, ToolCallEndEvent)):
            call = _tool_call(state, event.tool_call_id)
            function = call.get("function", {}) if call is not None else {}
            buffer = function.get("arguments", "")
            params.tool_call_name = function.get("name")
            if isinstance(event, ToolCallArgsEvent):
                params.tool_call_buffer = buffer
                params.partial_tool_call_args = parse_partial_object(buffer)
            else:
                params.tool_call_args = _parse_args(buffer)
        elif isinstance(event, (ActivitySnapshotEvent, ActivityDeltaEvent)):
            existing = _typed(_message(state, event.message_id))
            params.existing_message = existing
            if existing is not None and existing.role == "activity":
                params.activity_message = existing

    def _finish_params(self, params: SubscriberParams, event: RunFinishedEvent) -> None:
        outcome = event.outcome
        if isinstance(outcome, RunFinishedInterruptOutcome):
            params.outcome = "interrupt"
            params.interrupts = list(outcome.interrupts)
        elif outcome is not None and outcome.type == "cancelled":
            params.outcome = "cancelled"
        else:
            params.outcome = "success"
            params.result = event.result
            listed = (
                outcome.pending_tool_call_ids
                if isinstance(outcome, RunFinishedSuccessOutcome)
                else None
            )
            params.pending_tool_call_ids = (
                list(listed)
                if listed
                else [call_id for call_id, answered in self._answered.items() if not answered]
            )

    def _record_finish(self, params: SubscriberParams, stopped: bool) -> None:
        self.run_ended = True
        result = self.result
        result.finished = True
        assert isinstance(params.event, RunFinishedEvent)
        result.outcome = params.event.outcome
        result.result = params.result
        result.interrupts = list(params.interrupts)
        result.pending_tool_call_ids = list(params.pending_tool_call_ids)
        state = self.conversation.agent_state
        calls = (_tool_call(state, call_id) for call_id in result.pending_tool_call_ids)
        # A listed id whose call never streamed (an agent's own bookkeeping) has nothing to show.
        result.pending_tool_calls = [ToolCall.model_validate(c) for c in calls if c is not None]
        if not stopped:
            self.conversation.pending_interrupts = [
                i.model_copy(deep=True) for i in params.interrupts
            ]

    async def _notify(
        self, kind: str, event: Event, messages_changed: bool, state_changed: bool, existed: bool
    ) -> None:
        callbacks = self._callbacks
        if messages_changed and "on_messages_changed" in callbacks:
            await self._run("on_messages_changed", self._params())
        if state_changed and "on_state_changed" in callbacks:
            await self._run("on_state_changed", self._params())
        if "on_new_message" in callbacks and (
            kind in _NEW_MESSAGE_EVENTS or (kind == "ACTIVITY_SNAPSHOT" and not existed)
        ):
            message_id: Optional[str] = getattr(event, "message_id", None)
            message = _typed(_message(self.conversation.agent_state, message_id))
            if message is not None:
                await self._run("on_new_message", self._params(message=message))
        if isinstance(event, ToolCallEndEvent) and "on_new_tool_call" in callbacks:
            call = _tool_call(self.conversation.agent_state, event.tool_call_id)
            if call is not None:
                tool_call = ToolCall.model_validate(call)
                await self._run("on_new_tool_call", self._params(tool_call=tool_call))
