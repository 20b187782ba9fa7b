"""An Agents SDK agent on the fake provider's Responses API, served by a real uvicorn, read by
our ``HttpAgent``: the pieces the OpenAI Agents adapter tests share."""

from __future__ import annotations

from typing import Any

from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    function_tool,
    set_tracing_disabled,
)
from openai import AsyncOpenAI

from ag_ui.adapters.openai_agents import OpenAIAgentsAgent
from ag_ui.client import HttpAgent
from ag_ui.core import BaseEvent, RunError
from ag_ui.verify import EventVerifier
from tests.providers.fake_provider import FakeProvider

set_tracing_disabled(True)  # no trace export: the tests reach nothing but 127.0.0.1


_CLIENTS: list[AsyncOpenAI] = []


def model(fake: FakeProvider) -> OpenAIResponsesModel:
    client = AsyncOpenAI(base_url=fake.openai_url, api_key="sk-test", max_retries=0)
    _CLIENTS.append(client)
    return OpenAIResponsesModel("gpt-5-mini", client)


def chat_model(fake: FakeProvider) -> OpenAIChatCompletionsModel:
    """The SDK's Chat Completions model on the fake provider (any compatible server's way)."""
    client = AsyncOpenAI(base_url=fake.openai_url, api_key="sk-test", max_retries=0)
    _CLIENTS.append(client)
    return OpenAIChatCompletionsModel("gpt-4o-mini", client)


class Served(OpenAIAgentsAgent):
    """The adapter, closing the model clients made so far when its server stops: on the
    server's event loop, where their connections live (closed later from the test's loop,
    they fail with "Event loop is closed")."""

    async def aclose(self) -> None:
        while _CLIENTS:
            await _CLIENTS.pop().close()


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}."


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@function_tool(failure_error_function=None)
def explode(reason: str) -> str:
    """A tool that fails."""
    raise ValueError(f"secret detail: {reason}")


def weather_agent(fake: FakeProvider, **options: Any) -> Agent[Any]:
    return Agent(
        name="assistant",
        instructions="Be brief.",
        model=model(fake),
        tools=[get_weather, delete_file, explode],
        **options,
    )


def shape(events: list[BaseEvent]) -> list[tuple[Any, ...]]:
    """Each event as (type, its ids and payload), RUN_STARTED/RUN_FINISHED without input."""
    rows: list[tuple[Any, ...]] = []
    for event in events:
        wire = event.model_dump(by_alias=True, mode="json", exclude_none=True)
        kind = wire.pop("type")
        wire.pop("timestamp", None)
        wire.pop("input", None)
        wire.pop("protocolVersion", None)
        rows.append((kind, wire))
    return rows


class Tap:
    """A client middleware keeping the current run's events, as received."""

    def __init__(self) -> None:
        self.events: list[BaseEvent] = []

    async def __call__(self, input: Any, next: Any) -> Any:
        async for event in next.run(input):
            self.events.append(event)
            yield event


def verify(events: list[BaseEvent]) -> None:
    verifier = EventVerifier()
    for event in events:
        verifier.feed(event)
    verifier.finish()


async def run(agent: HttpAgent, tap: Tap, **options: Any) -> tuple[list[BaseEvent], Any]:
    """One run: its events (verified with a strict end) and the result, or the ``RunError``."""
    tap.events = []
    outcome: Any
    try:
        outcome = await agent.run_agent(**options)
    except RunError as exc:
        outcome = exc
    verify(tap.events)
    return list(tap.events), outcome


def client(url: str, text: str = "What is the weather in Paris?") -> tuple[HttpAgent, Tap]:
    agent = HttpAgent(
        url,
        thread_id="thread-1",
        initial_messages=[{"id": "user-1", "role": "user", "content": text}],
    )
    tap = Tap()
    agent.use(tap)
    return agent, tap
