"""Detached runs: the agent runs in a task owned by the endpoint, not by the HTTP request.

Its events go to a ``RunStore`` under positions; the connection that started the run (and any
reconnect, on any worker sharing the store) only reads them. The run keeps going when the
client leaves, until it ends, its time limit passes (``RUN_ERROR`` code ``run_expired``), the
app shuts down (``RUN_ERROR`` code ``server_shutdown``) or the store stops taking its events
(``RUN_ERROR`` code ``store_unavailable``, recorded once the store answers again).

While a run goes on, and until its end is recorded, it beats: every ``heartbeat_interval`` of
the store (``RunStore.beat``). A reader on another worker of a run whose worker died (kill -9),
or shut down before the store let it record the end, sees the beats stop and ends with
``RUN_ERROR`` code ``run_abandoned`` instead of waiting on it until ``run_ttl``.

``DetachedRuns`` owns those tasks in one anyio task group, entered for the app's lifetime
(``AgentEndpoint.lifespan``; ``create_app`` wires it): no task outlives the app.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Optional

import anyio
from anyio.abc import TaskGroup
from starlette.requests import Request

from ag_ui.core.errors import RunNotFoundError, StoreUnavailableError
from ag_ui.core.events import BaseEvent
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder.encoder import event_to_json
from ag_ui.server._downgrade import downgrading_sink
from ag_ui.server._failures import SERVER_SHUTDOWN_CODE
from ag_ui.server._guard import RunGuard
from ag_ui.server._release import release
from ag_ui.server._run_end import MIN_RETRY_PERIOD, record_end, store_lost_end
from ag_ui.server._runner import Agent, run_agent, run_is_cancelled
from ag_ui.server._store_writer import StoreWriter
from ag_ui.server._threads import ThreadRecorder
from ag_ui.server._time_limit import run_within
from ag_ui.store import RunStore

if TYPE_CHECKING:
    from ag_ui.telemetry._run import RunTelemetry

Sink = Callable[[list[BaseEvent]], Awaitable[None]]

__all__ = ["DetachedRuns", "run_detached"]

logger = logging.getLogger("ag_ui.server")


class DetachedRuns:
    """The task group that owns every detached run of an endpoint.

    ``async with runs:`` for the app's lifetime; leaving it cancels the runs still going (each
    records ``RUN_ERROR`` ``server_shutdown`` first). ``active`` counts the running ones (and
    those still trying to record their end in a store that does not answer).
    """

    def __init__(self) -> None:
        self._group: Optional[TaskGroup] = None
        self.active = 0
        # What ``drain`` waits on: set when ``active`` drops to 0 (made by ``drain``, so that
        # no event is created outside an event loop).
        self._idle: Optional[anyio.Event] = None
        self.served = False
        """Whether the runs were ever served: not running then means shutting down, not a
        lifespan that was never entered."""

    @property
    def running(self) -> bool:
        return self._group is not None

    async def __aenter__(self) -> DetachedRuns:
        if self._group is not None:
            raise RuntimeError("these detached runs are already being served")
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        self.served = True
        return self

    async def __aexit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        group, self._group = self._group, None
        if group is not None:
            group.cancel_scope.cancel()
            await group.__aexit__(None, None, None)

    async def drain(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the runs still going to end on their own (a
        graceful shutdown); ``True`` when none is left."""
        with anyio.move_on_after(timeout):
            while self.active:
                self._idle = anyio.Event()
                await self._idle.wait()
        return self.active == 0

    def start(self, run: Callable[[], Awaitable[object]]) -> None:
        """Run ``run()`` in the group (callable from any task, e.g. a request)."""
        if self._group is None:
            raise RuntimeError("detached runs are not being served (enter the lifespan)")

        async def counted() -> None:
            # One run's task must never end the group: that would cut every other run and
            # leave the endpoint refusing new ones. ``run_detached`` raises nothing but
            # cancellation; anything else is a bug, logged and contained here.
            self.active += 1
            try:
                await run()
            except anyio.get_cancelled_exc_class():
                if run_is_cancelled():
                    raise
                logger.error("a detached run raised CancelledError uncancelled", exc_info=True)
            except Exception:
                logger.exception("a detached run failed outside its agent")
            finally:
                self.active -= 1
                if self.active == 0 and self._idle is not None:
                    self._idle.set()

        self._group.start_soon(counted)


async def run_detached(
    store: RunStore,
    key: str,
    writer: StoreWriter,
    agent: Agent,
    inputs: list[RunAgentInput],
    *,
    run_ttl: float,
    verify: bool,
    debug: bool,
    auth: Any,
    request: Request,
    downgrade: bool = True,
    recorder: Optional[ThreadRecorder] = None,
    spans: Optional[RunTelemetry] = None,
) -> None:
    """Run ``agent`` with its events appended to ``store`` under ``key`` through ``writer``;
    never raises except for cancellation. Whatever happens, the run's end is recorded
    (``_run_end``): its terminal event, then ``finish``; a run whose events could not be
    stored ends with ``RUN_ERROR`` ``store_unavailable``. It beats until then.

    ``inputs`` holds the run input, which the run takes out: the caller's ``partial`` then keeps
    no reference to it, and the last holder frees a large one in slices (``_release``)."""
    run_input = inputs.pop()
    guard = RunGuard(run_input, verify=verify)
    sink: Sink = downgrading_sink(writer.put, run_input, enabled=downgrade)
    limit_sink: Sink = writer.put
    if spans is not None:  # sees what readers are sent, before any downgrade
        sink, limit_sink = spans.wrap(sink), spans.wrap(limit_sink)
    if recorder is not None:  # the conversation is saved before the run's end is stored
        sink, limit_sink = recorder.wrap(sink), recorder.wrap(limit_sink)
    start_agent = functools.partial(
        run_agent,
        agent,
        run_input,
        sink,
        verify=verify,
        debug=debug,
        auth=auth,
        request=request,
        guard=guard,
    )
    async with anyio.create_task_group() as beats:
        beats.start_soon(_beat, store, key)
        try:
            if spans is None:
                await _run_and_record(
                    store, key, writer, guard, start_agent, limit_sink, run_ttl=run_ttl
                )
            else:
                with spans.activate():
                    await _run_and_record(
                        store, key, writer, guard, start_agent, limit_sink, run_ttl=run_ttl
                    )
        finally:
            beats.cancel_scope.cancel()
            if recorder is not None:
                await recorder.close()
            if spans is not None:
                spans.close()
    held = [run_input.messages]
    del run_input, guard, start_agent  # this run's references; the request may hold its own
    await release(held)


async def _beat(store: RunStore, key: str) -> None:
    """``store.beat(key)`` every ``store.heartbeat_interval`` seconds (a store without
    heartbeats: never), until cancelled or the run is gone from the store."""
    interval = store.heartbeat_interval
    if interval is None:
        return
    while True:
        try:
            await store.beat(key)
        except RunNotFoundError:
            return
        except StoreUnavailableError:
            pass  # the run's writer and its end's retries report it; beat again next time
        await anyio.sleep(interval)


async def _run_and_record(
    store: RunStore,
    key: str,
    writer: StoreWriter,
    guard: RunGuard,
    start_agent: Callable[[], Awaitable[object]],
    limit_sink: Sink,
    *,
    run_ttl: float,
) -> None:
    started = anyio.current_time()
    try:
        await _run_into_store(key, writer, guard, start_agent, limit_sink, run_ttl=run_ttl)
    except anyio.get_cancelled_exc_class():
        logger.warning("run %s cancelled: the server is shutting down", key)
        closing = guard.fail("The server shut down during the run.", code=SERVER_SHUTDOWN_CODE)
        end = writer.take_pending() + [event_to_json(event) for event in closing]
        if writer.failure is not None:
            end = store_lost_end()
        # One attempt, shielded (the store's own timeouts bound it): the app is going away.
        await record_end(store, key, end, retry_until=anyio.current_time())
        raise
    failure = writer.failure
    if isinstance(failure, RunNotFoundError):
        logger.warning("run %s was dropped from the store while running (expired)", key)
        return
    if failure is not None:
        logger.error(
            "run %s abandoned: the run store became unreachable: %s; the run was stopped "
            "and ends with RUN_ERROR store_unavailable",
            key,
            failure,
        )
    end = [] if writer.terminal_stored else store_lost_end()
    # Retried for as long as the run could have gone on: readers may wait on it that long.
    retry_until = max(started + run_ttl, anyio.current_time() + MIN_RETRY_PERIOD)
    await record_end(store, key, end, retry_until=retry_until)


async def _run_into_store(
    key: str,
    writer: StoreWriter,
    guard: RunGuard,
    start_agent: Callable[[], Awaitable[object]],
    limit_sink: Sink,
    *,
    run_ttl: float,
) -> None:
    """The agent, its time limit and the writer task: returns when the agent is done and
    everything it sent is stored, or as soon as the store fails (``writer.failure``): nothing
    the agent sends after that could be stored, so the agent is cancelled."""
    async with anyio.create_task_group() as tasks:
        agent_scope = anyio.CancelScope()

        async def write() -> None:
            await writer.write_loop()
            if writer.failure is not None:
                agent_scope.cancel()

        tasks.start_soon(write)
        try:
            with agent_scope:
                await run_within(run_ttl, start_agent, guard, limit_sink, name=key)
        except (StoreUnavailableError, RunNotFoundError):
            pass  # the writer's failure: ``writer.failure`` holds it
        finally:
            writer.close()  # the writer drains the queue, then the task group ends
