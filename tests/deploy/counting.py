"""The counting agent of the deployment tests and its store timings.

It reads its orders from the last user message, ``"<pieces> <delay> <size>"``: one text
message of ``pieces`` deltas (``piece(i, size)``), ``delay`` seconds apart. What a run must
deliver is known from its input, so a test sees any event lost, repeated or out of order."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio

from ag_ui.core import RunAgentInput
from ag_ui.server import RunContext

HEARTBEAT = 0.5
BLOCK_SECONDS = 0.2
ABANDONED_WITHIN = 3 * HEARTBEAT + 2 * BLOCK_SECONDS
"""Seconds after its worker's death within which a reader learns a run is abandoned."""

ALLOWED_HOST = "agents.example.test"
"""The name the deployment is reached by through the proxy (deploy_app's ``allowed_hosts``)."""


def piece(i: int, size: int = 0) -> str:
    """The ``i``-th delta: its number, padded to ``size`` characters."""
    return f"{i} ".ljust(size, "x")


def orders(text: str) -> tuple[int, float, int]:
    pieces, delay, size = text.split()
    return int(pieces), float(delay), int(size)


async def counting_agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    last = run_input.messages[-1].content if run_input.messages else None
    pieces, delay, size = orders(last if isinstance(last, str) else "3 0 0")

    async def deltas() -> AsyncIterator[str]:
        for i in range(pieces):
            if delay:
                await anyio.sleep(delay)
            yield piece(i, size)

    await ctx.say(deltas())
