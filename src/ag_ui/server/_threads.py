"""A run's conversation kept in a ``ThreadStore``: loaded before the run, saved at its end.

Before a run, ``ThreadKeeper.prepare`` reads the caller's stored thread and merges it with the
request (``_merge``), so the agent sees the whole conversation even when the client sent only
its new message; what the merge added, the client is sent right after ``RUN_STARTED``. While
the run goes, a ``ThreadRecorder`` wrapped around the run's sink reduces every event the client
is sent (``ag_ui.apply``), starting from that merged history.
When the terminal event comes, the recorder saves the result *before* passing the event on:
the client is told the run finished only once its conversation is stored. When the save fails
(the database is down, or slower than ``save_timeout``), ``RUN_FINISHED`` becomes ``RUN_ERROR``
``thread_not_saved``: a client never believes in a reply that a reload would lose. A run that
ends without a terminal event passing through (cancelled by a client leaving or the server
shutting down) is saved by ``close`` as ``"cancelled"``, within the same bound, the message it
was writing marked incomplete (``INCOMPLETE_KEY`` in its metadata).

Anonymous callers (the principal ``None``) have no threads unless the endpoint was built with
``public_thread_history=True``: thread ids are chosen by clients, so an anonymous thread would be
anyone's to read.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Optional

import anyio
from pydantic import TypeAdapter

from ag_ui.core.errors import StoreUnavailableError, ThreadNotFoundError
from ag_ui.core.events import BaseEvent, Event, EventType, RunErrorEvent, RunFinishedEvent
from ag_ui.core.types import Message, RunAgentInput
from ag_ui.server._failures import invalid_thread_id
from ag_ui.server._merge import merge_thread
from ag_ui.store._thread_base import (
    INCOMPLETE_KEY,
    RunSummary,
    StoredThread,
    ThreadStore,
    thread_id_problem,
)
from ag_ui.telemetry import _switch as telemetry_switch
from ag_ui.verify import CompatibilityWarning

if TYPE_CHECKING:
    from ag_ui.apply import EventPipeline

__all__ = [
    "DEFAULT_SAVE_TIMEOUT",
    "THREAD_NOT_SAVED_CODE",
    "ThreadKeeper",
    "ThreadRecorder",
    "history_events",
]

logger = logging.getLogger("ag_ui.server")

_MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])

Sink = Callable[[list[BaseEvent]], Awaitable[None]]

DEFAULT_SAVE_TIMEOUT = 10.0
"""Seconds a run's end waits for its thread to be saved before it reports ``thread_not_saved``."""

THREAD_NOT_SAVED_CODE = "thread_not_saved"
"""``RUN_ERROR.code`` of a run whose conversation could not be stored."""


class ThreadKeeper:
    """The endpoint's side of thread persistence: which runs are kept, and how they start."""

    def __init__(
        self,
        store: ThreadStore,
        *,
        public: bool,
        save_timeout: float = DEFAULT_SAVE_TIMEOUT,
    ) -> None:
        self.store = store
        self.public = public
        self.save_timeout = save_timeout
        self.running: set[ThreadRecorder] = set()
        """The recorders of the runs going on (each leaves once its run is saved)."""

    async def settle(self) -> bool:
        """Wait, up to ``save_timeout``, until every run going on has saved its thread: at
        shutdown, a server cancels the runs it could not finish (uvicorn past
        ``timeout_graceful_shutdown``), and each saves itself ``cancelled`` on its way out,
        unless the process ends first. False when some were still saving at the bound."""
        with anyio.move_on_after(self.save_timeout):
            while self.running:
                await anyio.sleep(0.02)
        if self.running:
            logger.error(
                "shutting down: %d run(s) did not save their threads within %g s",
                len(self.running),
                self.save_timeout,
            )
            return False
        return True

    def keeps(self, owner: Optional[str]) -> bool:
        """Whether runs of this principal are kept (anonymous ones only when public)."""
        return owner is not None or self.public

    async def prepare(
        self, run_input: RunAgentInput, owner: Optional[str]
    ) -> tuple[RunAgentInput, Optional[ThreadRecorder]]:
        """The merged run input and the recorder for the run (``None``: not kept). Raises
        ``StoreUnavailableError`` when the store does not answer within ``save_timeout``, the
        400 ``invalid_thread_id`` for an id no store keeps and the 409 of the merge rule."""
        if not self.keeps(owner):
            return run_input, None
        problem = thread_id_problem(run_input.thread_id) or thread_id_problem(
            run_input.run_id, "runId"
        )
        if problem is not None:
            raise invalid_thread_id(problem)
        stored: Optional[StoredThread]
        started = time.perf_counter()
        try:
            with anyio.fail_after(self.save_timeout):
                stored = await self.store.load(run_input.thread_id, owner=owner)
        except ThreadNotFoundError:
            stored = None
        except TimeoutError:
            raise StoreUnavailableError(
                f"the thread store did not answer within {self.save_timeout:g} s"
            ) from None
        finally:
            _timed("thread_load", started)
        merged = merge_thread(stored, run_input)
        recorder = ThreadRecorder(self, merged.run_input, owner, catch_up=merged.catch_up)
        return merged.run_input, recorder


class ThreadRecorder:
    """Reduces one run's events and saves the conversation when the run ends (see module)."""

    def __init__(
        self,
        keeper: ThreadKeeper,
        run_input: RunAgentInput,
        owner: Optional[str],
        *,
        catch_up: Sequence[BaseEvent] = (),
    ) -> None:
        self._keeper = keeper
        self._catch_up = list(catch_up)
        self._writing: dict[str, str] = {}
        """What the run is writing and has not ended: text, reasoning message or tool call id
        -> the id of the message that holds it."""
        self._thread_id = run_input.thread_id
        self._run_id = run_input.run_id
        self._owner = owner
        self._started_at = time.time()
        # Imported here: the reducer is only needed by a server that keeps threads (25 ms of
        # every server's import otherwise).
        from ag_ui.apply import EventPipeline

        self._pipeline: Optional[EventPipeline] = EventPipeline(
            messages=run_input.messages,
            state=run_input.state,
            strict_end=False,
            null_checks=False,  # models, not wire JSON: an explicit None is no wire null
            on_patch_error=lambda error: None,  # the state keeps its value, as clients do
            on_tool_arguments=lambda arguments: None,
        )
        self._state = self._pipeline.agent_state
        self.saved = False

    def wrap(self, sink: Sink) -> Sink:
        """``sink`` with every batch recorded first; a terminal event is saved before it goes
        on (and replaced by ``RUN_ERROR`` ``thread_not_saved`` when the save fails). What the
        merge added goes out right after ``RUN_STARTED`` (already in the recorded state).
        The run counts as going on (``ThreadKeeper.settle``) until ``close``."""
        self._keeper.running.add(self)

        async def recorded(events: list[BaseEvent]) -> None:
            for index, event in enumerate(events):
                self._feed(event)
                if event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR):
                    failure = await self._save_end(event)
                    if failure is not None and isinstance(event, RunFinishedEvent):
                        events = [*events[:index], failure]
                    break
            if self._catch_up:
                events = self._with_catch_up(events)
            await sink(events)

        return recorded

    async def close(self) -> None:
        """Save the run as ``"cancelled"`` when no terminal event was recorded (the client
        left, the server is shutting down); shielded, within the keeper's timeout."""
        try:
            if not self.saved:
                with anyio.CancelScope(shield=True):
                    await self._save("cancelled", error_code=None, usage=None, cut=True)
        finally:
            self._keeper.running.discard(self)

    def _with_catch_up(self, events: list[BaseEvent]) -> list[BaseEvent]:
        for index, event in enumerate(events):
            if event.type == EventType.RUN_STARTED:
                catch_up, self._catch_up = self._catch_up, []
                return [*events[: index + 1], *catch_up, *events[index + 1 :]]
        return events

    def _track_writing(self, event: BaseEvent) -> None:
        kind = event.type
        if kind in (EventType.TEXT_MESSAGE_START, EventType.REASONING_MESSAGE_START):
            message_id = getattr(event, "message_id", "")
            self._writing[message_id] = message_id
        elif kind == EventType.TOOL_CALL_START:
            call_id = getattr(event, "tool_call_id", "")
            self._writing[call_id] = getattr(event, "parent_message_id", None) or call_id
        elif kind in (EventType.TEXT_MESSAGE_END, EventType.REASONING_MESSAGE_END):
            self._writing.pop(getattr(event, "message_id", ""), None)
        elif kind == EventType.TOOL_CALL_END:
            self._writing.pop(getattr(event, "tool_call_id", ""), None)

    def _feed(self, event: BaseEvent) -> None:
        if self._pipeline is None:
            return
        self._track_writing(event)
        try:
            # The guard's own models set fields to None explicitly (``result=None``), which
            # the pipeline's 0.x compatibility stage would report, once per run, as legacy
            # wire nulls: not the client's concern, and not a server log's. (No await inside:
            # no other run interleaves while the filter is in place.)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", CompatibilityWarning)
                self._pipeline.feed(event)  # type: ignore[arg-type]  # guarded events are Events
        except Exception as exc:  # a stream the client would refuse too (verify=False)
            logger.warning(
                "thread %s: run %s is kept as it stood before an event clients refuse: %s",
                self._thread_id,
                self._run_id,
                exc,
            )
            self._pipeline = None
            return
        self._state = self._pipeline.agent_state

    async def _save_end(self, event: BaseEvent) -> Optional[RunErrorEvent]:
        """Save at the terminal ``event``; the ``RUN_ERROR`` to send instead when that failed."""
        usage = getattr(event, "usage", None)
        usage_json = [entry.model_dump(by_alias=True, mode="json") for entry in usage or ()]
        if isinstance(event, RunErrorEvent):
            outcome, code = "error", event.code
        else:
            outcome = self._state.run.outcome or "success"
            code = None
        saved = await self._save(outcome, error_code=code, usage=usage_json or None)
        if saved:
            return None
        return RunErrorEvent(
            message="The conversation could not be saved, so this reply would be lost on "
            "reload; try again.",
            code=THREAD_NOT_SAVED_CODE,
        )

    async def _save(
        self,
        outcome: str,
        *,
        error_code: Optional[str],
        usage: Optional[list[dict[str, Any]]],
        cut: bool = False,
    ) -> bool:
        self.saved = True
        messages = _typed(self._state.messages)
        if cut and self._writing:
            messages = _marked_incomplete(messages, set(self._writing.values()))
        run = RunSummary(
            run_id=self._run_id,
            outcome=outcome,
            started_at=self._started_at,
            finished_at=time.time(),
            error_code=error_code,
            usage=usage,
        )
        keeper = self._keeper
        started = time.perf_counter()
        try:
            with anyio.fail_after(keeper.save_timeout):
                await keeper.store.save(
                    self._thread_id,
                    owner=self._owner,
                    messages=messages,
                    state=self._state.state,
                    run=run,
                )
        except TimeoutError:
            logger.error(
                "thread %s: run %s not saved: the thread store did not answer within %g s",
                self._thread_id,
                self._run_id,
                keeper.save_timeout,
            )
            return False
        except ThreadNotFoundError:
            logger.warning(
                "thread %s: run %s not saved: the thread id belongs to another principal",
                self._thread_id,
                self._run_id,
            )
            return False
        # ValueError: a state that is not JSON, a message the model refuses.
        except (StoreUnavailableError, ValueError) as exc:
            logger.error("thread %s: run %s not saved: %s", self._thread_id, self._run_id, exc)
            return False
        except Exception:  # a store's own bug: the run still ends with an error the client sees
            logger.exception("thread %s: run %s not saved", self._thread_id, self._run_id)
            return False
        finally:
            _timed("thread_save", started)
        return True


def _timed(operation: str, started: float) -> None:
    """The call's duration in the store-latency metric, when telemetry is on."""
    telemetry = telemetry_switch.current
    if telemetry is not None:
        telemetry.store_call(operation, time.perf_counter() - started)


def _typed(messages: Sequence[dict[str, Any]]) -> list[Message]:
    return _MESSAGES.validate_python(list(messages))


def _marked_incomplete(messages: list[Message], ids: set[str]) -> list[Message]:
    """``messages`` with those in ``ids`` marked as cut by a cancelled run."""
    mark = {INCOMPLETE_KEY: {"incomplete": "cancelled"}}
    return [
        message.model_copy(update={"metadata": {**(message.metadata or {}), **mark}})
        if message.id in ids
        else message
        for message in messages
    ]


def history_events(stored: StoredThread) -> list[Event]:
    """A stored thread as one run a standard client restores: ``RUN_STARTED``,
    ``MESSAGES_SNAPSHOT``, ``STATE_SNAPSHOT`` (when there is a state), ``RUN_FINISHED``. The run
    id is the thread's last run's (or ``"history"``)."""
    from ag_ui.core.events import MessagesSnapshotEvent, RunStartedEvent, StateSnapshotEvent

    run_id = stored.runs[-1].run_id if stored.runs else "history"
    events: list[Event] = [
        RunStartedEvent(thread_id=stored.thread_id, run_id=run_id),
        MessagesSnapshotEvent(messages=list(stored.messages)),
    ]
    if stored.state is not None:
        events.append(StateSnapshotEvent(snapshot=stored.state))
    events.append(RunFinishedEvent(thread_id=stored.thread_id, run_id=run_id))
    return events
