"""One run's event handling after verification: subscribers (with mutations and
``stop_propagation``), the default reducer, run bookkeeping and change notifications (§6.4).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Optional

from ag_ui.apply import AgentState, Reducer
from ag_ui.client._messages import MESSAGE_ADAPTER
from ag_ui.client._partial_json import parse_partial_object
from ag_ui.client.result import RunAgentResult
from ag_ui.client.subscriber import (
    CALLBACK_NAMES,
    SubscriberParams,
    callback_name_for,
    run_subscribers,
)
from ag_ui.client.versions import warn_about_producer_declaration
from ag_ui.core.errors import RunError
from ag_ui.core.types import Message, RunAgentInput, ToolCall

__all__ = ["RunProcessor", "finalize_run", "initialize_run", "report_failure"]

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


def _message(state: AgentState, message_id: Optional[str]) -> Optional[dict[str, Any]]:
    if message_id is None:
        return None
    position = state.message_position(message_id)
    return state.messages[position] if position >= 0 else None


def _tool_call(state: AgentState, tool_call_id: str) -> Optional[dict[str, Any]]:
    for message in reversed(state.messages):
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
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class RunProcessor:
    """Feeds each verified event through subscribers and the reducer, and keeps the books.

    ``run_ended`` follows the last run in the stream (several sequential runs are legal).
    """

    def __init__(
        self, agent: Any, subscribers: list[Any], input: RunAgentInput, result: RunAgentResult
    ) -> None:
        self.agent = agent
        self.subscribers = subscribers
        self.input = input
        self.result = result
        self.count = 0
        self.last_type: Optional[str] = None
        self.run_ended = False
        self._reducer = Reducer()
        self._answered: dict[str, bool] = {}  # tool calls started this run -> got a result
        self._error: Optional[RunError] = None
        self._callbacks = {
            name for s in subscribers for name in CALLBACK_NAMES if getattr(s, name, None)
        }

    def raise_if_failed(self) -> None:
        """Raise the agent's RUN_ERROR as ``RunError`` (called after subscribers saw it)."""
        if self._error is not None:
            raise self._error

    def describe_incomplete(self) -> str:
        if not self.count:
            return "the stream ended before any event arrived (expected RUN_STARTED)"
        return (
            f"the stream ended after {self.count} event(s) without RUN_FINISHED or RUN_ERROR "
            f"(last event: {self.last_type}); the agent or a proxy cut the response short"
        )

    async def process(self, event: Any) -> None:
        kind: str = event.type.value
        self.count += 1
        self.last_type = kind
        if kind == "RUN_STARTED":
            self.run_ended = False
            self._answered.clear()
            warn_about_producer_declaration(event.protocol_version)
        elif kind == "TOOL_CALL_START":
            self._answered[event.tool_call_id] = False
        elif kind == "TOOL_CALL_RESULT":
            self._answered[event.tool_call_id] = True
        params: Optional[SubscriberParams] = None
        if kind == "RUN_FINISHED":
            params = SubscriberParams(self.agent, self.input, event=event)
            self._finish_params(params, event)
        stopped = messages_changed = state_changed = False
        if self._callbacks:
            params = params or SubscriberParams(self.agent, self.input, event=event)
            if "on_event" in self._callbacks:
                outcome = await run_subscribers(self.subscribers, "on_event", params)
                messages_changed, state_changed = outcome.messages_changed, outcome.state_changed
                stopped = outcome.stopped
            name = callback_name_for(kind)
            if not stopped and name in self._callbacks:
                self._event_params(params, kind, event)
                outcome = await run_subscribers(self.subscribers, name, params)
                messages_changed = messages_changed or outcome.messages_changed
                state_changed = state_changed or outcome.state_changed
                stopped = outcome.stopped
        existed = kind == "ACTIVITY_SNAPSHOT" and (
            _message(self.agent._agent_state, event.message_id) is not None
        )
        log = self.agent.debug_log
        if log is not None:
            if stopped:
                log.event("APPLY", "Event dropped:", event, reason="stop_propagation by subscriber")
            else:
                log.event("APPLY", "Event applied:", event, subscribers=len(self.subscribers))
        if not stopped:
            self._apply(event)
            messages_changed = messages_changed or kind in _MESSAGE_EVENTS
            state_changed = state_changed or kind in _STATE_EVENTS
        if kind == "RUN_FINISHED":
            assert params is not None
            self._record_finish(params, stopped)
        elif kind == "RUN_ERROR":
            self.run_ended = True
            self._error = RunError(event.message, code=event.code)
        if self._callbacks:
            await self._notify(kind, event, messages_changed, state_changed, existed)

    def _apply(self, event: Any) -> None:
        # As in TypeScript: a patch that does not apply is skipped (with a warning), the run
        # continues.
        self.agent._agent_state = self._reducer.reduce(self.agent._agent_state, event)

    def _event_params(self, params: SubscriberParams, kind: str, event: Any) -> None:
        state = self.agent._agent_state
        if kind in ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"):
            params.text_message_buffer = _text(_message(state, event.message_id))
        elif kind in ("REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END"):
            params.reasoning_message_buffer = _text(_message(state, event.message_id))
        elif kind in ("TOOL_CALL_ARGS", "TOOL_CALL_END"):
            call = _tool_call(state, event.tool_call_id)
            function = call.get("function", {}) if call is not None else {}
            buffer = function.get("arguments", "")
            params.tool_call_name = function.get("name")
            if kind == "TOOL_CALL_ARGS":
                params.tool_call_buffer = buffer
                params.partial_tool_call_args = parse_partial_object(buffer)
            else:
                params.tool_call_args = _parse_args(buffer)
        elif kind in ("ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"):
            existing = _typed(_message(state, event.message_id))
            params.existing_message = existing
            if existing is not None and existing.role == "activity":
                params.activity_message = existing

    def _finish_params(self, params: SubscriberParams, event: Any) -> None:
        outcome = event.outcome
        if outcome is not None and outcome.type == "interrupt":
            params.outcome = "interrupt"
            params.interrupts = list(outcome.interrupts)
        elif outcome is not None and outcome.type == "cancelled":
            params.outcome = "cancelled"
        else:
            params.outcome = "success"
            params.result = event.result
            listed = getattr(outcome, "pending_tool_call_ids", None)
            params.pending_tool_call_ids = (
                list(listed)
                if listed
                else [call_id for call_id, answered in self._answered.items() if not answered]
            )

    def _record_finish(self, params: SubscriberParams, stopped: bool) -> None:
        self.run_ended = True
        result = self.result
        result.finished = True
        result.outcome = params.event.outcome
        result.result = params.result
        result.interrupts = list(params.interrupts)
        result.pending_tool_call_ids = list(params.pending_tool_call_ids)
        if not stopped:
            self.agent.pending_interrupts = [i.model_copy(deep=True) for i in params.interrupts]

    async def _notify(
        self, kind: str, event: Any, messages_changed: bool, state_changed: bool, existed: bool
    ) -> None:
        callbacks = self._callbacks
        if messages_changed and "on_messages_changed" in callbacks:
            params = SubscriberParams(self.agent, self.input)
            await run_subscribers(self.subscribers, "on_messages_changed", params)
        if state_changed and "on_state_changed" in callbacks:
            params = SubscriberParams(self.agent, self.input)
            await run_subscribers(self.subscribers, "on_state_changed", params)
        if "on_new_message" in callbacks and (
            kind in _NEW_MESSAGE_EVENTS or (kind == "ACTIVITY_SNAPSHOT" and not existed)
        ):
            message = _typed(_message(self.agent._agent_state, event.message_id))
            if message is not None:
                params = SubscriberParams(self.agent, self.input, message=message)
                await run_subscribers(self.subscribers, "on_new_message", params)
        if kind == "TOOL_CALL_END" and "on_new_tool_call" in callbacks:
            call = _tool_call(self.agent._agent_state, event.tool_call_id)
            if call is not None:
                params = SubscriberParams(
                    self.agent, self.input, tool_call=ToolCall.model_validate(call)
                )
                await run_subscribers(self.subscribers, "on_new_tool_call", params)


async def initialize_run(agent: Any, input: RunAgentInput, subscribers: list[Any]) -> RunAgentInput:
    """Run ``on_run_initialized``; a mutation there changes what is sent."""
    if not subscribers:
        return input
    params = SubscriberParams(agent, input)
    outcome = await run_subscribers(subscribers, "on_run_initialized", params)
    if not (outcome.messages_changed or outcome.state_changed):
        return input
    fields = input.model_dump(by_alias=True, mode="json")
    fields["messages"] = [m for m in agent.agent_state.messages if m.get("role") != "activity"]
    fields["state"] = copy.deepcopy(agent.state)
    return RunAgentInput.model_validate(fields)


async def report_failure(
    agent: Any, error: BaseException, input: RunAgentInput, subscribers: list[Any]
) -> bool:
    """Run ``on_run_failed``; True when a subscriber swallowed the error."""
    if not subscribers:
        return False
    params = SubscriberParams(agent, input, error=error)
    outcome = await run_subscribers(subscribers, "on_run_failed", params)
    return outcome.stopped


async def finalize_run(agent: Any, input: RunAgentInput, subscribers: list[Any]) -> None:
    """Run ``on_run_finalized`` (after success and failure alike)."""
    if not subscribers:
        return
    await run_subscribers(subscribers, "on_run_finalized", SubscriberParams(agent, input))
