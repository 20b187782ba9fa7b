"""A run's conversation kept in a ``ThreadStore``: loaded before the run, saved at its end.

Before a run, ``ThreadKeeper.prepare`` reads the caller's stored thread and merges it with the
request (``merge_history``), so the agent sees the whole conversation even when the client sent
only its new message. While the run goes, a ``ThreadRecorder`` wrapped around the run's sink
reduces every event the client is sent (``ag_ui.apply``), starting from that merged history.
When the terminal event comes, the recorder saves the result *before* passing the event on:
the client is told the run finished only once its conversation is stored. When the save fails
(the database is down, or slower than ``save_timeout``), ``RUN_FINISHED`` becomes ``RUN_ERROR``
``thread_not_saved``: a client never believes in a reply that a reload would lose. A run that
ends without a terminal event passing through (cancelled by a client leaving or the server
shutting down) is saved by ``close`` as ``"cancelled"``, within the same bound.

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
from ag_ui.store._thread_base import RunSummary, StoredThread, ThreadStore
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
    "merge_history",
]

logger = logging.getLogger("ag_ui.server")

_MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])

Sink = Callable[[list[BaseEvent]], Awaitable[None]]

DEFAULT_SAVE_TIMEOUT = 10.0
"""Seconds a run's end waits for its thread to be saved before it reports ``thread_not_saved``."""

THREAD_NOT_SAVED_CODE = "thread_not_saved"
"""``RUN_ERROR.code`` of a run whose conversation could not be stored."""


def merge_history(stored: Optional[StoredThread], run_input: RunAgentInput) -> RunAgentInput:
    """The run input the agent gets: the request, completed from the stored thread.

    * Messages: when the request carries any message of the stored thread (by id), the client
      holds the conversation and its list is taken as the whole history (it may have edited or
      cut it, as a "regenerate" does). When it carries none of them, its messages are new and
      follow the stored ones: a client may send only its new message.
    * State: the request's, unless it is absent or ``{}``; then the stored state.
    """
    if stored is None:
        return run_input
    stored_ids = {message.id for message in stored.messages}
    messages: list[Message]
    if any(message.id in stored_ids for message in run_input.messages):
        messages = run_input.messages
    else:
        messages = [*stored.messages, *run_input.messages]
    state = run_input.state
    if state is None or state == {}:
        state = stored.state
    if messages is run_input.messages and state is run_input.state:
        return run_input
    return run_input.model_copy(update={"messages": messages, "state": state})


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

    def keeps(self, owner: Optional[str]) -> bool:
        """Whether runs of this principal are kept (anonymous ones only when public)."""
        return owner is not None or self.public

    async def prepare(
        self, run_input: RunAgentInput, owner: Optional[str]
    ) -> tuple[RunAgentInput, Optional[ThreadRecorder]]:
        """The merged run input and the recorder for the run (``None``: not kept). Raises
        ``StoreUnavailableError`` when the store does not answer within ``save_timeout``."""
        if not self.keeps(owner):
            return run_input, None
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
        merged = merge_history(stored, run_input)
        recorder = ThreadRecorder(self, merged, owner)
        return merged, recorder


class ThreadRecorder:
    """Reduces one run's events and saves the conversation when the run ends (see module)."""

    def __init__(
        self, keeper: ThreadKeeper, run_input: RunAgentInput, owner: Optional[str]
    ) -> None:
        self._keeper = keeper
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
        on (and replaced by ``RUN_ERROR`` ``thread_not_saved`` when the save fails)."""

        async def recorded(events: list[BaseEvent]) -> None:
            for index, event in enumerate(events):
                self._feed(event)
                if event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR):
                    failure = await self._save_end(event)
                    if failure is not None and isinstance(event, RunFinishedEvent):
                        events = [*events[:index], failure]
                    break
            await sink(events)

        return recorded

    async def close(self) -> None:
        """Save the run as ``"cancelled"`` when no terminal event was recorded (the client
        left, the server is shutting down); shielded, within the keeper's timeout."""
        if self.saved:
            return
        with anyio.CancelScope(shield=True):
            await self._save("cancelled", error_code=None, usage=None)

    def _feed(self, event: BaseEvent) -> None:
        if self._pipeline is None:
            return
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
        self, outcome: str, *, error_code: Optional[str], usage: Optional[list[dict[str, Any]]]
    ) -> bool:
        self.saved = True
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
                    messages=_typed(self._state.messages),
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
