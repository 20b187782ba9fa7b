"""A run's time limit: past it the agent is cancelled and the run ends with ``RUN_ERROR`` code
``run_expired``, after the guard closed what the agent left open.

The same ending for a request-bound run (``run_timeout``) and a detached one (``run_ttl``), so a
hung agent cannot hold a client (kept busy by keepalives) or a store entry forever.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Optional

import anyio

from ag_ui.server._failures import RUN_EXPIRED_CODE
from ag_ui.server._guard import RunGuard
from ag_ui.server._runner import Sink

__all__ = ["expired_message", "run_within"]

logger = logging.getLogger("ag_ui.server")


def expired_message(limit: float) -> str:
    """``RUN_ERROR.message`` of a run stopped at its time limit."""
    return f"The run exceeded its time limit of {limit:g} s."


async def run_within(
    limit: Optional[float],
    run: Callable[[], Awaitable[object]],
    guard: RunGuard,
    sink: Sink,
    *,
    name: str,
) -> bool:
    """Await ``run()`` (an agent run driven through ``guard`` into ``sink``) for at most
    ``limit`` seconds (``None``: no limit). Past it, the run is cancelled and ``sink`` gets the
    closing events and the ``run_expired`` ``RUN_ERROR``; returns whether that happened."""
    if limit is None:
        await run()
        return False
    with anyio.move_on_after(limit) as deadline:
        await run()
    if not deadline.cancelled_caught:
        return False
    logger.warning("run %s exceeded its time limit of %g s; stopped", name, limit)
    await sink(guard.fail(expired_message(limit), code=RUN_EXPIRED_CODE))
    return True
