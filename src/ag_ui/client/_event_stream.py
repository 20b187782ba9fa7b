"""``AgentEventStream``: the events of one run, as an async iterator and context manager."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Optional

from ag_ui.client._result import RunAgentResult
from ag_ui.client._run import Run
from ag_ui.core.events import Event

__all__ = ["AgentEventStream"]


class AgentEventStream:
    """The events of one run: an async iterator and an async context manager.

    The run starts at the first ``__anext__``; ``result`` is set once the run has its input
    (and complete once the stream is exhausted); errors surface from the iteration.
    """

    def __init__(self, run: Run) -> None:
        self._run = run
        self._events: AsyncGenerator[Event, None] = run.events()

    @property
    def result(self) -> Optional[RunAgentResult]:
        """The run's ``RunAgentResult`` (``None`` before the run started)."""
        return self._run.result

    def __aiter__(self) -> AsyncGenerator[Event, None]:
        # The run's own generator: ``async for`` skips a layer of awaiting per event.
        return self._events

    async def __anext__(self) -> Event:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """Stop the run and close the connection."""
        await self._events.aclose()

    async def __aenter__(self) -> AgentEventStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
