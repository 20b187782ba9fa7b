"""Driving a ``ModelAgent`` served on uvicorn with our ``HttpAgent``, and reading the result.

Every run's raw events (as received, before the client's pipeline) are checked by the verifier
with a strict end, on top of the client's own strict checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ag_ui.client import HttpAgent, RunAgentResult
from ag_ui.core import BaseEvent, RunError
from ag_ui.verify import EventVerifier

USER = {"id": "user-1", "role": "user", "content": "What is the weather in Paris and London?"}


@dataclass
class Run:
    agent: HttpAgent
    events: list[BaseEvent]
    result: Optional[RunAgentResult]
    error: Optional[RunError]

    @property
    def types(self) -> list[str]:
        return [event.type.value for event in self.events]

    @property
    def wire(self) -> list[dict[str, Any]]:
        return [event.model_dump(by_alias=True, mode="json") for event in self.events]

    def of(self, event_type: str) -> list[dict[str, Any]]:
        return [w for w in self.wire if w["type"] == event_type]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [m.model_dump(by_alias=True, mode="json") for m in self.agent.messages]


def verify(events: Sequence[BaseEvent]) -> None:
    verifier = EventVerifier()
    for event in events:
        verifier.feed(event)
    verifier.finish()


class _Tap:
    """A middleware that keeps the events of the current run, as received."""

    def __init__(self) -> None:
        self.events: list[BaseEvent] = []

    async def __call__(self, input: Any, next: Any) -> Any:
        async for event in next.run(input):
            self.events.append(event)
            yield event


async def run_once(
    agent: HttpAgent,
    *,
    run_id: str = "run-1",
    tools: Optional[list[dict[str, Any]]] = None,
) -> Run:
    """One run of ``agent`` (made by ``client``); a ``RUN_ERROR`` is returned as ``error``."""
    tap = _TAPS[id(agent)]
    tap.events = []
    result: Optional[RunAgentResult] = None
    error: Optional[RunError] = None
    try:
        result = await agent.run_agent(run_id=run_id, tools=tools)
    except RunError as exc:
        error = exc
    verify(tap.events)
    return Run(agent, tap.events, result, error)


_TAPS: dict[int, _Tap] = {}


def client(url: str, *messages: dict[str, Any], state: Any = None) -> HttpAgent:
    agent = HttpAgent(
        url, thread_id="thread-1", initial_messages=list(messages or [USER]), initial_state=state
    )
    tap = _TAPS[id(agent)] = _Tap()
    agent.use(tap)
    return agent
