"""LangGraph adapter: the server's cost per event serving a graph through ``LangGraphAgent``,
against a hand-written ``ag_ui.server`` agent emitting the same events (target: within 1.2x).

A real graph (a ``ScriptedChatModel`` streaming N text chunks, then a tool call in N argument
chunks, the tool's result, and a short answer) is run once with
``stream_mode=["messages", "updates", "values", "custom"], subgraphs=True`` and its stream parts
recorded. Then, in one process, best of several rounds:

* adapter: ``LangGraphAgent`` over a stand-in graph that replays the recorded parts (so
  LangGraph's own runtime, the same under any bridge, is not in the measurement), through
  ``run_agent`` (guard, verifier) into an SSE-encoding sink;
* hand-written: an agent that builds the events the adapter produced (validated, as
  ``TextMessageContentEvent(...)`` does) and ``ctx.emit``s them, through the same ``run_agent``
  and sink.

The ratio (adapter / hand-written) is what to read; the LangGraph runtime's own time per part
is printed beside it for scale.

    .venv/bin/python benchmarks/bench_langgraph.py [--chunks 2000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from langchain_core.messages import AIMessageChunk, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph

from ag_ui.adapters.langgraph import LangGraphAgent, ScriptedChatModel
from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui.server import run_agent

MODES = ["messages", "updates", "values", "custom"]


def build_graph(chunks: int) -> Any:
    text = [AIMessageChunk(content=f" word{n}") for n in range(chunks)]
    call = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"id": "call_1", "name": "search", "args": '{"q": "', "index": 0}],
        ),
        *(
            AIMessageChunk(
                content="", tool_call_chunks=[{"id": None, "name": None, "args": "x", "index": 0}]
            )
            for _ in range(chunks)
        ),
        AIMessageChunk(
            content="", tool_call_chunks=[{"id": None, "name": None, "args": '"}', "index": 0}]
        ),
    ]
    model = ScriptedChatModel(turns=[text + call, "Done."], loop=True)

    async def chat(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def tools(state: MessagesState) -> dict[str, Any]:
        return {"messages": [ToolMessage(content="found", tool_call_id="call_1")]}

    def route(state: MessagesState) -> str:
        return "tools" if getattr(state["messages"][-1], "tool_calls", None) else END

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_node("tools", tools)
    builder.add_edge(START, "chat")
    builder.add_conditional_edges("chat", route, ["tools", END])
    builder.add_edge("tools", "chat")
    return builder.compile()


class Replay:
    """A stand-in compiled graph that streams recorded parts (no checkpointer)."""

    checkpointer = None

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts
        self.channels: dict[str, Any] = {}

    async def astream(self, *args: Any, **kwargs: Any) -> Any:
        for part in self.parts:
            yield part

    async def aget_state(self, config: Any) -> Any:
        return None


async def record(graph: Any) -> tuple[list[Any], float]:
    started = time.perf_counter()
    parts = [
        part
        async for part in graph.astream(
            {"messages": [{"role": "user", "content": "go", "id": "u1"}]},
            stream_mode=MODES,
            subgraphs=True,
        )
    ]
    return parts, time.perf_counter() - started


async def serve_once(agent: Any, run_input: RunAgentInput) -> list[bytes]:
    encoder = EventEncoder()
    out: list[bytes] = []

    async def sink(events: Any) -> None:  # the guard hands over what it admitted, as a list
        out.extend(encoder.encode_sse(event) for event in events)

    await run_agent(agent, run_input, sink)
    return out


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()

    parts, runtime = await record(build_graph(options.chunks))
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[{"id": "u1", "role": "user", "content": "go"}],
        state={},
        tools=[],
        context=[],
        forwarded_props={},
    )
    adapter = LangGraphAgent(Replay(parts))
    frames = await serve_once(adapter, run_input)
    events = [json.loads(frame[6:]) for frame in frames]
    from ag_ui.core.decoding import parse_event

    # What a hand-written agent does per event: build it (validated), then emit it. The
    # server adds RUN_STARTED and RUN_FINISHED itself.
    models = [parse_event(e) for e in events[1:-1]]
    recipes = [(type(m), {name: getattr(m, name) for name in m.model_fields_set}) for m in models]

    async def hand_written(run_input: RunAgentInput, ctx: Any) -> None:
        for cls, fields in recipes:
            await ctx.emit(cls(**fields))

    assert len(await serve_once(hand_written, run_input)) == len(frames)
    best = {"adapter": float("inf"), "hand-written": float("inf")}
    for _ in range(options.rounds):
        for name, agent in (("adapter", adapter), ("hand-written", hand_written)):
            started = time.perf_counter()
            await serve_once(agent, run_input)
            best[name] = min(best[name], time.perf_counter() - started)
    count = len(frames)
    print(f"{len(parts)} LangGraph stream parts -> {count} AG-UI events")
    print(f"LangGraph runtime (recording run): {runtime / len(parts) * 1e6:8.2f} us per part")
    for name, seconds in best.items():
        print(f"{name:>13}: {seconds / count * 1e6:8.2f} us per event")
    print(f"adapter / hand-written: {best['adapter'] / best['hand-written']:.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    asyncio.run(main())
