"""``AgentEventStream``: the events of one run, as an async iterator and context manager."""

from __future__ import annotations

from typing import Any, Optional, TypeVar

from ag_ui.client.result import RunAgentResult

__all__ = ["AgentEventStream"]

_T = TypeVar("_T")


class AgentEventStream:
    """The events of one run: an async iterator and an async context manager.

    ``result`` is set once the run ended; errors surface from the iteration.
    """

    def __init__(self, agent: Any, parameters: dict[str, Any], subscriber: Any) -> None:
        self._record: list[RunAgentResult] = []
        self._events = agent._run(parameters, subscriber, self._record)

    @property
    def result(self) -> Optional[RunAgentResult]:
        return self._record[0] if self._record else None

    def __aiter__(self) -> AgentEventStream:
        return self

    async def __anext__(self) -> Any:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """Stop the run and close the connection."""
        await self._events.aclose()

    async def __aenter__(self) -> AgentEventStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
