"""Graphs for the LangGraph adapter's tests, each driven by a ``ScriptedChatModel`` whose script
reproduces one shape a provider streams (and one upstream report about it), plus the checks the
tests share: every call has START, ARGS that join to the scripted arguments, END, all under its
own id."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Optional

from langchain_core.messages import AIMessageChunk, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt

from ag_ui.adapters.langgraph import ScriptedChatModel


def call_chunk(
    call_id: Optional[str], name: Optional[str], args: str, index: Optional[int]
) -> dict[str, Any]:
    return {"id": call_id, "name": name, "args": args, "index": index, "type": "tool_call_chunk"}


# ag-ui #2463: a provider that sends a call's whole arguments in the chunk that opens it.
WHOLE_ARGS = [
    AIMessageChunk(
        content="", tool_call_chunks=[call_chunk("call_w", "get_weather", '{"city":"Paris"}', 0)]
    )
]
# ag-ui #1678: text and the call it leads to in one chunk.
TEXT_THEN_TOOL = [
    AIMessageChunk(
        content="Checking the weather.",
        tool_call_chunks=[call_chunk("call_t", "get_weather", '{"city":"Oslo"}', 0)],
    )
]
# ag-ui #1016: two parallel calls; the argument chunks carry only their index, interleaved.
PARALLEL = [
    AIMessageChunk(content="", tool_call_chunks=[call_chunk("call_a", "get_weather", "", 0)]),
    AIMessageChunk(content="", tool_call_chunks=[call_chunk("call_b", "get_time", "", 1)]),
    AIMessageChunk(content="", tool_call_chunks=[call_chunk(None, None, '{"city":', 0)]),
    AIMessageChunk(content="", tool_call_chunks=[call_chunk(None, None, '{"zone":', 1)]),
    AIMessageChunk(content="", tool_call_chunks=[call_chunk(None, None, '"Rome"}', 0)]),
    AIMessageChunk(content="", tool_call_chunks=[call_chunk(None, None, '"CET"}', 1)]),
]
# The same two calls, each whole in its own chunk (the shape #2463 and #1016 meet in).
PARALLEL_WHOLE = [
    AIMessageChunk(
        content="",
        tool_call_chunks=[
            call_chunk("call_a", "get_weather", '{"city":"Rome"}', 0),
            call_chunk("call_b", "get_time", '{"zone":"CET"}', 1),
        ],
    )
]
SCRIPTED_ARGS = {
    "call_w": {"city": "Paris"},
    "call_t": {"city": "Oslo"},
    "call_a": {"city": "Rome"},
    "call_b": {"zone": "CET"},
}


def tool_graph(first_turn: Sequence[AIMessageChunk], *, answer: str = "Done.") -> Any:
    """chat -> (tool calls) -> tools -> chat: the model's first turn is ``first_turn``; the
    tools node answers every call; the second turn is ``answer``."""
    # loop: an endpoint serving the graph answers any number of runs (each plays both turns)
    model = ScriptedChatModel(turns=[list(first_turn), answer], loop=True)

    async def chat(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def tools(state: MessagesState) -> dict[str, Any]:
        calls = state["messages"][-1].tool_calls  # type: ignore[attr-defined]
        return {
            "messages": [
                ToolMessage(content=json.dumps(c["args"]), tool_call_id=c["id"]) for c in calls
            ]
        }

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_node("tools", tools)
    builder.add_edge(START, "chat")
    builder.add_conditional_edges("chat", _route, ["tools", END])
    builder.add_edge("tools", "chat")
    return builder.compile(checkpointer=InMemorySaver())


def _route(state: MessagesState) -> str:
    return "tools" if getattr(state["messages"][-1], "tool_calls", None) else END


def approval_graph() -> Any:
    """ag-ui #2014: the model proposes a call, a node asks for approval (``interrupt``), the
    resumed run answers it and the model replies."""
    model = ScriptedChatModel(turns=[list(WHOLE_ARGS), "Booked."], loop=True)

    async def chat(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def approve(state: MessagesState) -> dict[str, Any]:
        call = state["messages"][-1].tool_calls[0]  # type: ignore[attr-defined]
        answer = interrupt(
            {"reason": "tool_call", "toolCallId": call["id"], "message": "Run get_weather?"}
        )
        return {"messages": [ToolMessage(content=f"approved: {answer}", tool_call_id=call["id"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_node("approve", approve)
    builder.add_edge(START, "chat")
    builder.add_conditional_edges("chat", _route, {"tools": "approve", END: END})
    builder.add_edge("approve", "chat")
    return builder.compile(checkpointer=InMemorySaver())


def tool_approval_graph() -> Any:
    """ag-ui #2014, the other shape: the tool itself asks (``interrupt`` inside a tool run by
    LangGraph's ``ToolNode``); on resume the tools node runs the tool again, which answers."""

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        answer = interrupt({"reason": "confirmation", "message": f"Look up {city}?"})
        return f"sunny in {city} ({answer})"

    model = ScriptedChatModel(turns=[list(WHOLE_ARGS), "Sunny."], loop=True)

    async def chat(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_node("tools", ToolNode([get_weather]))
    builder.add_edge(START, "chat")
    builder.add_conditional_edges("chat", _route, ["tools", END])
    builder.add_edge("tools", "chat")
    return builder.compile(checkpointer=InMemorySaver())


def raising_graph() -> Any:
    """ag-ui #2531/#2532: a node raises after the model streamed part of a reply."""
    model = ScriptedChatModel(turns=[[AIMessageChunk(content="Half a")]], loop=True)

    async def chat(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def explode(state: MessagesState) -> dict[str, Any]:
        raise RuntimeError("the database is down")

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_node("explode", explode)
    builder.add_edge(START, "chat")
    builder.add_edge("chat", "explode")
    return builder.compile(checkpointer=InMemorySaver())


def tool_calls_of(events: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each tool call in a wire event list: name, joined arguments, whether it ended, and the
    number of STARTs it had (a call sent twice shows 2)."""
    calls: dict[str, dict[str, Any]] = {}
    for event in events:
        kind = event["type"]
        if kind == "TOOL_CALL_START":
            call = calls.setdefault(
                event["toolCallId"], {"name": event["toolCallName"], "args": "", "ended": False}
            )
            call["starts"] = call.get("starts", 0) + 1
        elif kind == "TOOL_CALL_ARGS":
            calls[event["toolCallId"]]["args"] += event["delta"]
        elif kind == "TOOL_CALL_END":
            calls[event["toolCallId"]]["ended"] = True
    return calls


def assert_calls(events: Sequence[dict[str, Any]], expected: dict[str, str]) -> None:
    """Every expected call (id -> name) has one START, ARGS joining to its scripted arguments,
    and END, under its own id; no other call was sent."""
    calls = tool_calls_of(events)
    assert set(calls) == set(expected), calls
    for call_id, name in expected.items():
        call = calls[call_id]
        assert call["name"] == name, (call_id, call)
        assert call["starts"] == 1, (call_id, call)
        assert call["ended"], (call_id, call)
        try:
            arguments = json.loads(call["args"])
        except ValueError:
            raise AssertionError(f"{call_id}: arguments are not JSON: {call['args']!r}") from None
        assert arguments == SCRIPTED_ARGS[call_id], (call_id, call)
