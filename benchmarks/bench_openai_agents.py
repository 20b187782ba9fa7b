"""OpenAI Agents SDK adapter: the server's cost per event serving an Agent through
``OpenAIAgentsAgent``, against a hand-written ``ag_ui.server`` agent emitting the same events
(target: within 1.2x).

A real run of the SDK (``Runner.run_streamed`` over ``OpenAIResponsesModel`` and the tests' local
Responses server: N text deltas, then a tool call in N argument deltas, the tool's result, and a
short answer) is recorded once as its stream events. Then, in one process, best of several
rounds:

* adapter: ``OpenAIAgentsAgent`` with ``Runner.run_streamed`` replaying the recorded events (so
  the SDK's own runtime, the same under any bridge, is not in the measurement), through
  ``run_agent`` (guard, verifier) into an SSE-encoding sink;
* hand-written: an agent that builds the events the adapter produced (validated) and
  ``ctx.emit``s them, through the same ``run_agent`` and sink.

    .venv/bin/python benchmarks/bench_openai_agents.py [--chunks 2000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import agents
from agents import Agent, OpenAIResponsesModel, Runner, function_tool
from openai import AsyncOpenAI

from ag_ui.adapters.openai_agents import OpenAIAgentsAgent
from ag_ui.core import RunAgentInput
from ag_ui.core.decoding import parse_event
from ag_ui.encoder import EventEncoder
from ag_ui.server import run_agent
from tests.adapters import responses_script as script
from tests.providers.fake_provider import RESPONSES, FakeProvider

agents.set_tracing_disabled(True)


@function_tool
def search(q: str) -> str:
    """Search."""
    return "found"


class Replay:
    """What ``Runner.run_streamed`` returns, playing recorded events."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.interruptions: list[Any] = []
        self.final_output = None

    async def stream_events(self) -> Any:
        for event in self.events:
            yield event

    def cancel(self) -> None:
        pass


async def record(chunks: int) -> tuple[Agent[Any], list[Any], float]:
    with FakeProvider() as fake:
        client = AsyncOpenAI(base_url=fake.openai_url, api_key="sk-bench", max_retries=0)
        agent = Agent(
            name="bench", model=OpenAIResponsesModel("gpt-5-mini", client), tools=[search]
        )
        words = [f" word{n}" for n in range(chunks)]
        pieces = ['{"q": "', *("x" for _ in range(chunks)), '"}']
        fake.queue(
            RESPONSES,
            script.response(
                script.text("m1", *words), script.call("fc", "call_1", "search", *pieces)
            ),
            script.response(script.text("m2", "Done.")),
        )
        started = time.perf_counter()
        result = Runner.run_streamed(agent, "go")
        events = [event async for event in result.stream_events()]
        elapsed = time.perf_counter() - started
        await client.close()
    return agent, events, elapsed


async def serve_once(agent: Any, run_input: RunAgentInput) -> list[bytes]:
    encoder = EventEncoder()
    out: list[bytes] = []

    async def sink(events: Any) -> None:
        out.extend(encoder.encode_sse(event) for event in events)

    await run_agent(agent, run_input, sink)
    return out


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()

    agent, recorded, runtime = await record(options.chunks)
    Runner.run_streamed = lambda *args, **kwargs: Replay(recorded)  # type: ignore[method-assign,assignment]
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[{"id": "u1", "role": "user", "content": "go"}],
        state={},
        tools=[],
        context=[],
        forwarded_props={},
    )
    adapter = OpenAIAgentsAgent(agent)
    frames = await serve_once(adapter, run_input)
    events = [json.loads(frame[6:]) for frame in frames]
    models = [parse_event(e) for e in events[1:-1]]
    recipes = [(type(m), {name: getattr(m, name) for name in m.model_fields_set}) for m in models]

    async def hand_written(run_input: RunAgentInput, ctx: Any) -> None:
        for cls, fields in recipes:
            await ctx.emit(cls(**fields))

    assert len(await serve_once(hand_written, run_input)) == len(frames)
    best = {"adapter": float("inf"), "hand-written": float("inf")}
    for _ in range(options.rounds):
        for name, served in (("adapter", adapter), ("hand-written", hand_written)):
            started = time.perf_counter()
            await serve_once(served, run_input)
            best[name] = min(best[name], time.perf_counter() - started)
    count = len(frames)
    print(f"{len(recorded)} Agents SDK stream events -> {count} AG-UI events")
    print(
        "SDK runtime + local HTTP (recording run): "
        f"{runtime / len(recorded) * 1e6:8.2f} us per stream event"
    )
    for name, seconds in best.items():
        print(f"{name:>13}: {seconds / count * 1e6:8.2f} us per event")
    print(f"adapter / hand-written: {best['adapter'] / best['hand-written']:.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    asyncio.run(main())
