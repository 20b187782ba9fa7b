"""Detached runs: the agent runs in a task owned by the endpoint, not by the HTTP request.

Its events go to a ``RunStore`` under positions; the connection that started the run (and any
reconnect, on any worker sharing the store) only reads them. The run keeps going when the
client leaves, until it ends, its time limit passes (``RUN_ERROR`` code ``run_expired``) or the
app shuts down (``RUN_ERROR`` code ``server_shutdown``).

``DetachedRuns`` owns those tasks in one anyio task group, entered for the app's lifetime
(``AgentEndpoint.lifespan``; ``create_app`` wires it): no task outlives the app.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Optional

import anyio
from anyio.abc import TaskGroup
from starlette.requests import Request

from ag_ui.core.errors import RunNotFoundError, StoreUnavailableError
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder.encoder import event_to_json
from ag_ui.server._downgrade import downgrading_sink
from ag_ui.server._failures import RUN_EXPIRED_CODE, SERVER_SHUTDOWN_CODE
from ag_ui.server._guard import RunGuard
from ag_ui.server._runner import Agent, run_agent
from ag_ui.server._store_writer import StoreWriter
from ag_ui.store import RunStore

__all__ = ["DetachedRuns", "run_detached"]

logger = logging.getLogger("ag_ui.server")


class DetachedRuns:
    """The task group that owns every detached run of an endpoint.

    ``async with runs:`` for the app's lifetime; leaving it cancels the runs still going (each
    records ``RUN_ERROR`` ``server_shutdown`` first). ``active`` counts the running ones.
    """

    def __init__(self) -> None:
        self._group: Optional[TaskGroup] = None
        self.active = 0
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

    def start(self, run: Callable[[], Awaitable[None]]) -> None:
        """Run ``run()`` in the group (callable from any task, e.g. a request)."""
        if self._group is None:
            raise RuntimeError("detached runs are not being served (enter the lifespan)")

        async def counted() -> None:
            self.active += 1
            try:
                await run()
            finally:
                self.active -= 1

        self._group.start_soon(counted)


async def run_detached(
    store: RunStore,
    key: str,
    writer: StoreWriter,
    agent: Agent,
    run_input: RunAgentInput,
    *,
    run_ttl: float,
    verify: bool,
    debug: bool,
    auth: Any,
    request: Request,
    downgrade: bool = True,
) -> None:
    """Run ``agent`` with its events appended to ``store`` under ``key`` through ``writer``;
    never raises except for cancellation. The store is told the run finished whatever
    happens."""
    guard = RunGuard(run_input, verify=verify)
    failure: Optional[Exception] = None
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(writer.write_loop)
            try:
                with anyio.move_on_after(run_ttl) as deadline:
                    await run_agent(
                        agent,
                        run_input,
                        downgrading_sink(writer.put, run_input, enabled=downgrade),
                        verify=verify,
                        debug=debug,
                        auth=auth,
                        request=request,
                        guard=guard,
                    )
                if deadline.cancelled_caught:
                    logger.warning("run %s exceeded its time limit of %g s; stopped", key, run_ttl)
                    message = f"The run exceeded its time limit of {run_ttl:g} s."
                    await writer.put(guard.fail(message, code=RUN_EXPIRED_CODE))
            except (StoreUnavailableError, RunNotFoundError) as exc:
                failure = exc
            finally:
                writer.close()  # the writer drains the queue, then the task group ends
        failure = failure or writer.failure
        if isinstance(failure, StoreUnavailableError):
            logger.error("run %s abandoned: the run store became unreachable: %s", key, failure)
        elif failure is not None:
            logger.warning("run %s was dropped from the store while running (expired)", key)
    except anyio.get_cancelled_exc_class():
        logger.warning("run %s cancelled: the server is shutting down", key)
        closing = guard.fail("The server shut down during the run.", code=SERVER_SHUTDOWN_CODE)
        try:
            with anyio.CancelScope(shield=True):
                await store.append_encoded(
                    key, writer.take_pending() + [event_to_json(event) for event in closing]
                )
        except (StoreUnavailableError, RunNotFoundError) as exc:
            logger.error("run %s: could not record its shutdown: %s", key, exc)
        raise
    finally:
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(StoreUnavailableError, RunNotFoundError):
                await store.finish(key)
