"""``Run``: one run of an ``HttpAgent``, from its input to its ``RunAgentResult``.

A run owns its subscribers (the agent's, then the per-run one), its pipeline (a
``StreamVerifier`` in front of the ``EventProcessor``), its abort signal, its reconnect count and
its result. It advances the agent's ``Conversation`` as events arrive and hands its outcome back
in ``result``; ``RunSlot`` keeps an agent to one run at a time.

The order of a run: ``on_run_initialized`` (a mutation there changes what is sent), the events
(decoded, translated, expanded, verified, then subscribers and the reducer, one at a time),
the end check (a stream without RUN_FINISHED/RUN_ERROR is an ``IncompleteStreamError``),
``on_run_failed`` for a failure (which may swallow it), and ``on_run_finalized`` always.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Optional

import anyio

from ag_ui.client._config import HttpConfig
from ag_ui.client._conversation import Conversation
from ag_ui.client._debug import DebugLog
from ag_ui.client._processing import EventProcessor
from ag_ui.client._reconnect import Reconnect
from ag_ui.client._result import RunAgentResult
from ag_ui.client._signal import AbortSignal
from ag_ui.client._subscribers import AgentView, SubscriberParams, run_subscribers
from ag_ui.core._aiter import closing
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import (
    AGUIError,
    ConnectionLostError,
    IncompleteStreamError,
    TransportError,
)
from ag_ui.core.events import Event
from ag_ui.core.types import RunAgentInput
from ag_ui.verify import StreamVerifier

__all__ = ["EventSource", "Run", "RunSlot"]

EventSource = Callable[[RunAgentInput], AsyncIterator[AnyEvent]]
"""Where a run's raw events come from, given the input it sends (the middleware chain over
the HTTP request, or the connect endpoint)."""


class RunSlot:
    """An agent runs one run at a time: ``current`` is the active one, ``last`` the latest."""

    def __init__(self) -> None:
        self.current: Optional[Run] = None
        self.last: Optional[Run] = None

    def enter(self, run: Run) -> None:
        if self.current is not None:
            raise AGUIError("this agent is already running; clone() it for concurrent runs")
        self.current = self.last = run

    def leave(self, run: Run) -> None:
        if self.current is run:
            self.current = None


def _stage_logger(log: DebugLog) -> Callable[[str, Event], None]:
    def observe(stage: str, event: Event) -> None:
        if stage == "TRANSFORM":
            log.event("TRANSFORM", event.type.value, event)
        else:
            log.event("VERIFY", "Event:", event)

    return observe


class Run:
    """One run: ``events()`` runs it (once) and yields its processed events; ``result`` is
    its ``RunAgentResult`` from the moment the input is prepared.

    ``prepare`` builds the input (it may raise, e.g. ``InterruptError``, before anything is
    sent); ``source`` gives the raw events for that input. ``joins_mid_run`` skips the sequence
    verifier, which would miss the run's opening events (the server's guard verified them).
    """

    def __init__(
        self,
        owner: AgentView,
        *,
        conversation: Conversation,
        config: HttpConfig,
        subscribers: list[object],
        slot: RunSlot,
        prepare: Callable[[], RunAgentInput],
        source: EventSource,
        joins_mid_run: bool = False,
    ) -> None:
        self.owner = owner
        self.conversation = conversation
        self.config = config
        self.subscribers = subscribers
        self.signal = AbortSignal()
        self.result: Optional[RunAgentResult] = None
        self.reconnects = 0
        self._slot = slot
        self._prepare = prepare
        self._source = source
        self._joins_mid_run = joins_mid_run
        self._log = config.debug_log

    async def reconnected(self, reconnect: Reconnect) -> None:
        """Count a reconnect, log it and tell the configured ``on_reconnect``."""
        self.reconnects += 1
        if self._log is not None:
            self._log.lifecycle(
                "LIFECYCLE",
                "Reconnecting:",
                attempt=reconnect.attempt,
                lastEventId=reconnect.last_event_id,
                delay=round(reconnect.delay, 3),
                error=str(reconnect.error),
            )
        callback = self.config.on_reconnect
        if callback is not None:
            outcome = callback(reconnect)
            if inspect.isawaitable(outcome):
                await outcome

    async def events(self) -> AsyncGenerator[Event, None]:
        """Run, yielding each event once subscribers and the reducer have handled it."""
        self._slot.enter(self)
        try:
            self.conversation.sync_typed_messages()
            input = self._prepare()
            result = self.result = RunAgentResult(run_id=input.run_id)
            known_ids = {message["id"] for message in self.conversation.agent_state.messages}
            log = self._log
            processor: Optional[EventProcessor] = None
            failure: Optional[BaseException] = None
            if log is not None:
                log.lifecycle(
                    "LIFECYCLE",
                    "Run started:",
                    agentId=self.owner.agent_id,
                    threadId=self.owner.thread_id,
                    runId=input.run_id,
                )
            try:
                input = await self._initialize(input)
                stream = StreamVerifier(
                    verify=self.config.strict and not self._joins_mid_run,
                    strict_end=False,  # the end is checked below (IncompleteStreamError)
                    strict_draft=self.config.strict_draft,
                    observer=None if log is None else _stage_logger(log),
                    tools=input.tools,  # a call without the arguments its tool requires: warned
                )
                processor = EventProcessor(
                    self.owner, self.conversation, self.subscribers, input, result, debug=log
                )
                process = processor.process
                source = self._source(input)
                async with closing(source):
                    async for raw in source:
                        for event in stream.expand(raw):
                            stream.check(event)
                            pending = process(event)
                            if pending is not None:
                                await pending
                            yield event
                # RUN_ERROR ends its run, not the response: a RUN_STARTED after it begins a
                # new run, read like any other (the 1.1 corpus's run-error-then-new-run).
                if self.signal.aborted:
                    result.aborted = True
                elif not processor.run_ended:
                    raise IncompleteStreamError(
                        processor.describe_incomplete(), events_received=processor.count
                    )
                elif processor.error is not None:
                    raise processor.error  # the last run failed; subscribers saw its RUN_ERROR
                else:
                    stream.finish()
            except Exception as exc:
                failure = self._failure(exc, processor)
                if failure is not None:
                    if not await self._report_failure(failure, input):
                        if failure is exc:
                            raise
                        raise failure from exc
                    result.error = failure
            finally:
                result.reconnects = self.reconnects
                new = [m for m in self.conversation.messages if m.id not in known_ids]
                result.new_messages = new
                if log is not None:
                    self._log_end(log, result, failure)
                # Shielded: on_run_finalized runs even when the task is being cancelled.
                with anyio.CancelScope(shield=True):
                    await self._lifecycle("on_run_finalized", SubscriberParams(self.owner, input))
        finally:
            self._slot.leave(self)

    def _failure(
        self, error: Exception, processor: Optional[EventProcessor]
    ) -> Optional[BaseException]:
        """What ``error`` means for the run; ``None`` when nothing was lost."""
        if isinstance(error, ConnectionLostError):
            # The connection broke. After a terminal event nothing was lost: the run stands.
            if processor is not None and processor.run_ended:
                return None
            cut = IncompleteStreamError(
                f"{processor.describe_incomplete() if processor else 'no events'}: {error}",
                events_received=processor.count if processor else 0,
            )
            cut.__cause__ = error
            return cut
        if self.signal.aborted and isinstance(error, TransportError):
            assert self.result is not None
            self.result.aborted = True
            return None
        return error

    async def _lifecycle(self, name: str, params: SubscriberParams) -> tuple[bool, bool]:
        """Run a lifecycle callback; (stopped, messages or state changed)."""
        if not self.subscribers:
            return False, False
        assert self.result is not None
        outcome = await run_subscribers(
            self.subscribers,
            name,
            params,
            target=self.conversation,
            errors=self.result.subscriber_errors,
        )
        return outcome.stopped, outcome.messages_changed or outcome.state_changed

    async def _initialize(self, input: RunAgentInput) -> RunAgentInput:
        """``on_run_initialized``; a mutation there changes what is sent."""
        params = SubscriberParams(self.owner, input)
        _, changed = await self._lifecycle("on_run_initialized", params)
        if not changed:
            return input
        fields = input.model_dump(by_alias=True, mode="json")
        agent_state = self.conversation.agent_state
        fields["messages"] = [m for m in agent_state.messages if m.get("role") != "activity"]
        fields["state"] = copy.deepcopy(agent_state.state)
        return RunAgentInput.model_validate(fields)

    async def _report_failure(self, error: BaseException, input: RunAgentInput) -> bool:
        """``on_run_failed``; True when a subscriber swallowed the error."""
        stopped, _ = await self._lifecycle(
            "on_run_failed", SubscriberParams(self.owner, input, error=error)
        )
        return stopped

    def _log_end(
        self, log: DebugLog, result: RunAgentResult, failure: Optional[BaseException]
    ) -> None:
        # As in TypeScript, "finished" closes every run, after "errored" when it failed.
        agent_id = self.owner.agent_id
        if failure is not None:
            log.lifecycle("LIFECYCLE", "Run errored:", agentId=agent_id, error=str(failure))
        elif result.aborted:
            log.lifecycle("LIFECYCLE", "Run aborted:", agentId=agent_id)
        log.lifecycle(
            "LIFECYCLE",
            "Run finished:",
            agentId=agent_id,
            threadId=self.owner.thread_id,
            runId=result.run_id,
        )
