"""``RunContext``: what an agent gets besides its input — the emitter helpers for one run.

Everything sent through the context goes through the same guard as the events an agent yields,
in the order it happens, and is flushed to the client as it is sent.

>>> async def agent(run_input, ctx):  # doctest: +SKIP
...     async with ctx.step("answer"):
...         await ctx.say(["Hello", ", world"])
...     await ctx.state.update({"greeted": True})
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Optional, Union

from pydantic import BaseModel
from starlette.requests import Request

from ag_ui.core.errors import RunEndedError, RunError, SequenceViolationError
from ag_ui.core.events import (
    BaseEvent,
    CustomEvent,
    MessagesSnapshotEvent,
    RawEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEncryptedValueSubtype,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedOutcome,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentFinishedOutcome,
    SubagentStartedEvent,
    ToolCallResultEvent,
)
from ag_ui.core.token_usage import TokenUsage
from ag_ui.core.types import (
    ContentPart,
    Interrupt,
    Message,
    ResumeEntry,
    RunAgentInput,
    TextMessageRole,
    UserMessage,
)
from ag_ui.server._state import Activity, SharedState, StateBox
from ag_ui.server._streams import (
    Emit,
    Fragments,
    ReasoningSpan,
    Step,
    TextMessageStream,
    ToolCallStream,
)

__all__ = ["RunContext"]

PRINCIPAL_SCOPE_KEY = "ag_ui.principal"
"""Where the endpoint's access control leaves the caller's principal in the ASGI scope (set by
``AccessControl.authorize``, read by ``RunContext.principal``)."""

ToolResultContent = Union[str, Sequence[ContentPart], Any]
"""Text, content parts, or any JSON value (sent as JSON text)."""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(getattr(part, "text", "") or "" for part in content)
    return ""


class RunContext:
    """The run an agent is serving: its input, ids, state, and helpers that send events.

    Ids minted by ``new_id`` are deterministic per run (``"<kind>-<run id>-<n>"``), so the same
    input produces the same stream, which keeps transcripts and tests stable.
    """

    def __init__(
        self,
        run_input: RunAgentInput,
        emit: Emit,
        *,
        auth: Any = None,
        request: Optional[Request] = None,
        debug: bool = False,
        subagent_run_id: Optional[str] = None,
        _state_box: Optional[StateBox] = None,
        _counter: Optional[Iterable[int]] = None,
        _start: Optional[Callable[[], Awaitable[None]]] = None,
    ) -> None:
        self.input = run_input
        self.auth = auth
        """Whatever the endpoint's ``authorize`` hook returned (e.g. the caller's identity)."""
        self.request = request
        """The HTTP request (a Starlette ``Request``) when served over HTTP, else ``None``."""
        self.debug = debug
        self.subagent_run_id = subagent_run_id
        """The subagent invocation this context speaks for (``None``: the agent itself)."""
        self._emit_event = emit
        self._start = _start
        self._box = _state_box or StateBox(run_input.state if run_input.state is not None else {})
        self._counter = iter(_counter) if _counter is not None else itertools.count(1)
        self.state = SharedState(self._box, emit, subagent_run_id=subagent_run_id)
        """The shared state: ``current``, ``snapshot(value)``, ``update(changes)`` (merges keys),
        ``replace(new_state)``."""
        self.result: Any = None
        """For a subagent context: the result to put on ``SUBAGENT_FINISHED``."""
        self.outcome: Optional[SubagentFinishedOutcome] = None
        """For a subagent context: the outcome for ``SUBAGENT_FINISHED`` (absent = success)."""

    # -- input -----------------------------------------------------------------------------------

    @property
    def thread_id(self) -> str:
        return self.input.thread_id

    @property
    def run_id(self) -> str:
        return self.input.run_id

    @property
    def principal(self) -> Optional[str]:
        """Who the caller is, as the endpoint's ``principal`` hook made it from ``auth``: the
        owner its stored runs and threads are kept under. ``None``: an anonymous caller, or a
        run not served by an endpoint. Key what the agent keeps per caller by it (with the
        thread id), so that another caller who learns a thread id cannot reach it."""
        if self.request is None:
            return None
        found = self.request.scope.get(PRINCIPAL_SCOPE_KEY)
        return found if isinstance(found, str) else None

    @property
    def messages(self) -> list[Message]:
        return list(self.input.messages)

    @property
    def resume(self) -> list[ResumeEntry]:
        """Answers to the interrupts that ended the previous run (empty for a fresh run)."""
        return list(self.input.resume or [])

    def last_user_text(self) -> str:
        """The text of the last user message (text parts joined), or ``""`` if there is none."""
        for message in reversed(self.input.messages):
            if isinstance(message, UserMessage):
                return _content_text(message.content)
        return ""

    def new_id(self, kind: str = "id") -> str:
        """A fresh id for a message, tool call, activity...: ``"<kind>-<run id>-<n>"``."""
        return f"{kind}-{self.run_id}-{next(self._counter)}"

    # -- raw sending -----------------------------------------------------------------------------

    async def emit(self, event: BaseEvent) -> None:
        """Send one event as is (it still passes the run guard)."""
        await self._emit_event(event)

    async def start(self) -> None:
        """Send ``RUN_STARTED`` now rather than with the agent's first event.

        For an agent whose first event waits on something slow (a model's first token): the
        client sees the run begin at once. Does nothing once the run started, and in a
        subagent's context (its parent's run started already). An agent that sends its own
        ``RUN_STARTED`` does not call this.
        """
        if self._start is not None:
            await self._start()

    # -- text ------------------------------------------------------------------------------------

    def text_message(
        self,
        *,
        message_id: Optional[str] = None,
        role: TextMessageRole = "assistant",
        name: Optional[str] = None,
    ) -> TextMessageStream:
        """A text message to stream into: ``async with ctx.text_message() as m: m.send(..)``."""
        return TextMessageStream(
            self._emit_event,
            message_id or self.new_id("msg"),
            role=role,
            name=name,
            subagent_run_id=self.subagent_run_id,
        )

    async def say(self, fragments: Fragments, *, message_id: Optional[str] = None) -> str:
        """A whole assistant text message from ``fragments`` (one CONTENT each); returns its id."""
        async with self.text_message(message_id=message_id) as message:
            await message.send_all(fragments)
        return message.message_id

    # -- tools -----------------------------------------------------------------------------------

    def tool_call(
        self,
        name: str,
        *,
        tool_call_id: Optional[str] = None,
        parent_message_id: Optional[str] = None,
    ) -> ToolCallStream:
        """A tool call to stream arguments into (``async with``); END is sent on exit."""
        return ToolCallStream(
            self._emit_event,
            tool_call_id or self.new_id("call"),
            name,
            parent_message_id=parent_message_id,
            subagent_run_id=self.subagent_run_id,
        )

    async def call_tool(
        self,
        name: str,
        args: Any,
        *,
        tool_call_id: Optional[str] = None,
        parent_message_id: Optional[str] = None,
    ) -> str:
        """START, the arguments, END; returns the tool call id.

        ``args`` as a mapping is sent as one JSON delta; a string or an iterable of strings
        (sync or async) is streamed piece by piece as given.
        """
        fragments: Fragments = (
            json.dumps(args, separators=(",", ":")) if isinstance(args, Mapping) else args
        )
        async with self.tool_call(
            name, tool_call_id=tool_call_id, parent_message_id=parent_message_id
        ) as call:
            await call.send_all(fragments)
        return call.tool_call_id

    async def tool_result(
        self, tool_call_id: str, content: ToolResultContent, *, message_id: Optional[str] = None
    ) -> str:
        """``TOOL_CALL_RESULT`` answering ``tool_call_id``; returns the new tool message's id.

        ``content`` is text, a list of content parts, or any JSON value (sent as JSON text).
        """
        is_parts = isinstance(content, list) and all(isinstance(p, BaseModel) for p in content)
        if not isinstance(content, str) and not is_parts:
            content = json.dumps(content, separators=(",", ":"), ensure_ascii=False)
        result_id = message_id or self.new_id("result")
        await self._emit_event(
            ToolCallResultEvent(
                message_id=result_id,
                tool_call_id=tool_call_id,
                content=content,
                role="tool",
                subagent_run_id=self.subagent_run_id,
            )
        )
        return result_id

    # -- steps, reasoning, activity ------------------------------------------------------------

    def step(self, name: str) -> Step:
        """A step (``async with ctx.step("search"):``): STEP_STARTED, then STEP_FINISHED."""
        return Step(self._emit_event, name, subagent_run_id=self.subagent_run_id)

    def reasoning(self, *, message_id: Optional[str] = None) -> ReasoningSpan:
        """A reasoning span (``async with``) to put reasoning messages in (``span.think(..)``)."""
        return ReasoningSpan(
            self._emit_event,
            message_id or self.new_id("reasoning-span"),
            self.new_id,
            subagent_run_id=self.subagent_run_id,
        )

    async def think(self, fragments: Fragments) -> str:
        """A reasoning span holding one reasoning message; returns the message id."""
        async with self.reasoning() as span:
            return await span.think(fragments)

    async def reasoning_encrypted_value(
        self,
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: str,
        encrypted_value: str,
        encrypted_value_type: Optional[str] = None,
    ) -> None:
        """Attach an opaque provider artefact to a message or tool call.

        ``encrypted_value_type`` (protocol 1.1) names the kind of artefact, prefixed with the
        provider that gives it meaning (``"anthropic.redacted_thinking"``); clients store it
        with the value and send both back.
        """
        await self._emit_event(
            ReasoningEncryptedValueEvent(
                subtype=subtype,
                entity_id=entity_id,
                encrypted_value=encrypted_value,
                encrypted_value_type=encrypted_value_type,
                subagent_run_id=self.subagent_run_id,
            )
        )

    async def activity(
        self, activity_type: str, content: dict[str, Any], *, message_id: Optional[str] = None
    ) -> Activity:
        """Send ``ACTIVITY_SNAPSHOT``; the returned ``Activity`` sends deltas on ``update``."""
        activity = Activity(
            self._emit_event,
            message_id or self.new_id("activity"),
            activity_type,
            content,
            subagent_run_id=self.subagent_run_id,
        )
        await activity.snapshot()
        return activity

    # -- other events ----------------------------------------------------------------------------

    async def custom(self, name: str, value: Any) -> None:
        """A ``CUSTOM`` event (application-defined)."""
        await self._emit_event(
            CustomEvent(name=name, value=value, subagent_run_id=self.subagent_run_id)
        )

    async def raw(self, event: Any, *, source: Optional[str] = None) -> None:
        """A ``RAW`` event carrying a provider-native event."""
        await self._emit_event(
            RawEvent(event=event, source=source, subagent_run_id=self.subagent_run_id)
        )

    async def messages_snapshot(self, messages: Sequence[Message]) -> None:
        """A ``MESSAGES_SNAPSHOT`` (the whole conversation, e.g. before an interrupt)."""
        await self._emit_event(MessagesSnapshotEvent(messages=list(messages)))

    # -- subagents -------------------------------------------------------------------------------

    @asynccontextmanager
    async def subagent(
        self,
        name: str,
        *,
        description: Optional[str] = None,
        parent_tool_call_id: Optional[str] = None,
        parent_message_id: Optional[str] = None,
        subagent_run_id: Optional[str] = None,
    ) -> AsyncIterator[RunContext]:
        """Run a subagent invocation: ``async with ctx.subagent("researcher") as sub:``.

        ``sub`` is a context whose events carry the invocation's ``subagentRunId``.
        ``SUBAGENT_STARTED`` is sent on entry, ``SUBAGENT_FINISHED`` on exit (with
        ``sub.result``/``sub.outcome`` when set), and ``SUBAGENT_ERROR`` when the body raises (the
        error is re-raised: catch it to let the run continue).
        """
        sub = RunContext(
            self.input,
            self._emit_event,
            auth=self.auth,
            request=self.request,
            debug=self.debug,
            subagent_run_id=subagent_run_id or self.new_id("subagent"),
            _state_box=self._box,
            _counter=self._counter,
        )
        assert sub.subagent_run_id is not None
        await self._emit_event(
            SubagentStartedEvent(
                subagent_run_id=sub.subagent_run_id,
                name=name,
                description=description,
                parent_subagent_run_id=self.subagent_run_id,
                parent_tool_call_id=parent_tool_call_id,
                parent_message_id=parent_message_id,
            )
        )
        try:
            yield sub
        except (SequenceViolationError, RunEndedError):
            raise
        except Exception as exc:
            message, code = safe_error(exc, debug=self.debug, code="subagent_error", who=name)
            await self._emit_event(
                SubagentErrorEvent(subagent_run_id=sub.subagent_run_id, message=message, code=code)
            )
            raise
        await self._emit_event(
            SubagentFinishedEvent(
                subagent_run_id=sub.subagent_run_id, result=sub.result, outcome=sub.outcome
            )
        )

    # -- ending the run --------------------------------------------------------------------------

    async def finish(
        self,
        *,
        result: Any = None,
        outcome: Optional[RunFinishedOutcome] = None,
        usage: Optional[Sequence[TokenUsage]] = None,
    ) -> None:
        """End the run now with ``RUN_FINISHED`` (the agent should return afterwards)."""
        await self._emit_event(
            RunFinishedEvent(
                thread_id=self.thread_id,
                run_id=self.run_id,
                result=result,
                outcome=outcome,
                usage=list(usage) if usage is not None else None,
            )
        )

    async def interrupt(self, *interrupts: Interrupt) -> None:
        """End the run waiting for the human: ``RUN_FINISHED`` with an interrupt outcome.

        The client answers in the next run's ``resume`` (see ``ctx.resume``).
        """
        if not interrupts:
            raise ValueError("interrupt() needs at least one Interrupt")
        await self.finish(outcome=RunFinishedInterruptOutcome(interrupts=list(interrupts)))


def safe_error(
    exc: BaseException, *, debug: bool, code: str, who: str = "The agent"
) -> tuple[str, str]:
    """The message and code to show a client for ``exc``.

    A ``RunError`` is the agent's deliberate, public report; anything else may hold secrets, so
    its text is shown only in debug mode.
    """
    if isinstance(exc, RunError):
        return exc.message, exc.code or code
    if debug:
        return f"{type(exc).__name__}: {exc}", code
    return f"{who} failed while handling this run; see the server log for details.", code
