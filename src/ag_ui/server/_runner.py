"""Drives one agent run through the guard into a sink, catching everything at this boundary.

The agent is an async generator ``agent(run_input, ctx)`` yielding events, or a coroutine
function using only the context's helpers (its return value becomes ``RUN_FINISHED.result``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Optional, Union

import anyio
from starlette.requests import Request

from ag_ui.core.decoding import parse_event
from ag_ui.core.errors import EncodingError, RunEndedError, SequenceViolationError
from ag_ui.core.events import BaseEvent
from ag_ui.core.types import RunAgentInput
from ag_ui.server._failures import AGENT_ERROR_CODE
from ag_ui.server._guard import RunGuard
from ag_ui.server.context import RunContext, safe_error

__all__ = ["Agent", "Sink", "run_agent", "run_is_cancelled"]

logger = logging.getLogger("ag_ui.server")

Agent = Callable[
    [RunAgentInput, RunContext],
    Union[AsyncIterator[Union[BaseEvent, Mapping[str, Any]]], Awaitable[Any]],
]
"""An agent: ``async def agent(run_input, ctx)`` that yields events or just uses ``ctx``."""

Sink = Callable[[list[BaseEvent]], Awaitable[None]]
"""Where the guarded events go (the endpoint encodes and writes them)."""

_CLOSE_TIMEOUT = 1.0
"""How long an agent's cleanup may take after the client left (shielded from cancellation)."""


def run_is_cancelled() -> bool:
    """Whether the current task is being cancelled: a cancel scope around it was cancelled
    (the app shutting down, a time limit, the client leaving) or, on asyncio, someone called
    ``cancel()`` on the task itself.

    Called where a ``CancelledError`` arrives: when this is ``False``, agent code raised it
    without anyone cancelling the run (it awaited a task something else cancelled, say), and
    that is the agent failing, not a cancellation to pass on.
    """
    if anyio.current_effective_deadline() == -math.inf:
        return True
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not on asyncio: every cancellation goes through a cancel scope
        return False
    cancelling = getattr(task, "cancelling", None)  # Python 3.11+
    return task is not None and cancelling is not None and cancelling() > 0


def _as_event(item: object) -> BaseEvent:
    if isinstance(item, BaseEvent):
        return item
    if isinstance(item, Mapping):
        return parse_event(item)
    raise EncodingError(
        f"the agent yielded {type(item).__name__}; yield AG-UI events (BaseEvent) or event dicts"
    )


async def run_agent(
    agent: Agent,
    run_input: RunAgentInput,
    sink: Sink,
    *,
    verify: bool = True,
    debug: bool = False,
    auth: Any = None,
    request: Optional[Request] = None,
    guard: Optional[RunGuard] = None,
) -> RunGuard:
    """Run ``agent`` on ``run_input``, writing the guarded event stream to ``sink``.

    ``verify`` (default on) checks every event against the sequence rules (after chunk
    expansion, as the TypeScript client does); a refused event is not written and the run ends
    with ``RUN_ERROR`` (code ``"protocol_violation"``) naming the rule.

    Never raises for what the agent does (its failures become ``RUN_ERROR``); cancellation (the
    client left, shutdown, a time limit) propagates after the agent's ``finally`` blocks ran.
    A ``CancelledError`` that agent code raises while nobody cancels the run (``await`` of a
    task something else cancelled) is the agent failing: ``RUN_ERROR`` ``agent_error``.

    Returns the guard, whose ``violation`` tells whether the verifier stopped the run. Pass
    your own ``guard`` to end a cancelled run yourself (``guard.fail(...)`` closes what the
    agent left open).
    """
    if guard is None:
        guard = RunGuard(run_input, verify=verify)

    async def emit(event: BaseEvent) -> None:
        if not isinstance(event, BaseEvent):
            event = _as_event(event)
        await sink(guard.admit(event))
        if guard.violation is not None:
            raise SequenceViolationError(guard.violation)

    async def start() -> None:
        await sink(guard.start())
        if guard.violation is not None:
            raise SequenceViolationError(guard.violation)

    ctx = RunContext(run_input, emit, auth=auth, request=request, debug=debug, _start=start)
    try:
        result = await _drive(agent(run_input, ctx), guard, sink)
    except (SequenceViolationError, RunEndedError) as exc:
        if guard.violation is not None:
            logger.warning("run %s stopped: %s", run_input.run_id, guard.violation)
        else:
            logger.warning("run %s: %s", run_input.run_id, exc)
        await sink(guard.finish())
    except anyio.get_cancelled_exc_class() as exc:
        if run_is_cancelled():
            raise
        await _agent_failed(exc, guard, sink, run_input, debug=debug)
    except Exception as exc:
        await _agent_failed(exc, guard, sink, run_input, debug=debug)
    else:
        await sink(guard.finish(result=result))
        if guard.violation is not None:
            logger.warning("run %s stopped: %s", run_input.run_id, guard.violation)
    return guard


async def _agent_failed(
    exc: BaseException, guard: RunGuard, sink: Sink, run_input: RunAgentInput, *, debug: bool
) -> None:
    """The agent raised: log it with its traceback, end the run with ``RUN_ERROR``."""
    if guard.ended:
        logger.error(
            "run %s: agent failed after its terminal event", run_input.run_id, exc_info=exc
        )
    else:
        logger.error("run %s: agent failed", run_input.run_id, exc_info=exc)
    message, code = safe_error(exc, debug=debug, code=AGENT_ERROR_CODE)
    await sink(guard.fail(message, code=code))


async def _drive(produced: object, guard: RunGuard, sink: Sink) -> Any:
    if inspect.isasyncgen(produced) or hasattr(produced, "__aiter__"):
        admit = guard.admit
        try:
            async for item in produced:
                # ``emit``'s work, inline: one coroutine less per event (the loop resumes this
                # frame every time the agent awaits, and a model's agent awaits every token).
                if not isinstance(item, BaseEvent):
                    item = _as_event(item)
                await sink(admit(item))
                if guard.violation is not None:
                    raise SequenceViolationError(guard.violation)
        finally:
            aclose = getattr(produced, "aclose", None)
            if aclose is not None:
                # The generator's finally blocks must run even when we are being cancelled.
                with anyio.move_on_after(_CLOSE_TIMEOUT, shield=True):
                    await aclose()
        return None
    if inspect.isawaitable(produced):
        return await produced
    raise EncodingError(
        "the agent must be an async generator function or a coroutine function "
        f"taking (run_input, ctx); calling it returned {type(produced).__name__}"
    )
