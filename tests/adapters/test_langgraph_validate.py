"""``agui validate``'s scenarios against a graph served by ``LangGraphAgent``: text, multi-turn,
state, a frontend tool (the client's tools reach the graph through ``client_tools``), an
interrupt and its resume, cancellation, protobuf, reconnects (with a run store), concurrency,
malformed requests and capabilities: every one passes."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import interrupt

from ag_ui.adapters.langgraph import LangGraphAgent, client_tools
from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.testing import validate

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Desk(MessagesState):
    turns: int


def reply(text: str) -> AIMessage:
    return AIMessage(content=text, id=f"ai-{uuid.uuid4()}")


def desk(state: Desk, config: RunnableConfig) -> dict[str, Any]:
    """A scripted assistant (no model): answers a tool result, asks before booking, calls the
    client's first tool when asked to, and counts its turns in the state."""
    last = state["messages"][-1]
    turns = state.get("turns", 0) + 1
    if isinstance(last, ToolMessage):
        return {"messages": [reply(f"The tool said {last.content}.")], "turns": turns}
    prompt = str(last.content).lower() if isinstance(last, HumanMessage) else ""
    tools = client_tools(config)
    if "book" in prompt:
        answer = interrupt({"reason": "confirmation", "message": "Book a table for two?"})
        return {"messages": [reply(f"Booking answered: {answer}.")], "turns": turns}
    if tools and "tool" in prompt:
        name = tools[0]["function"]["name"]
        call = {"id": f"call-{uuid.uuid4()}", "name": name, "args": {"text": "ping"}}
        return {"messages": [AIMessage(content="", tool_calls=[call], id=f"ai-{uuid.uuid4()}")]}
    return {"messages": [reply(f"You said: {last.content}")], "turns": turns}


def desk_graph() -> Any:
    builder = StateGraph(Desk)
    builder.add_node("desk", desk)
    builder.add_edge(START, "desk")
    return builder.compile(checkpointer=InMemorySaver())


async def test_every_validate_scenario_passes_or_is_not_exercised() -> None:
    agent = LangGraphAgent(desk_graph())
    app = create_app(agent, store=InMemoryRunStore(), capabilities=agent.capabilities())
    report = await validate(app, messages={"interrupt": "book a table"})
    failed = {
        s.name: [f.message for f in s.findings if f.severity == "error"]
        for s in report.scenarios
        if s.status == "failed"
    }
    assert failed == {}, report.text()
    not_passed = {s.name: s.status for s in report.scenarios if s.status != "passed"}
    assert not_passed == {}, report.text()
    assert len(report.scenarios) == 11
