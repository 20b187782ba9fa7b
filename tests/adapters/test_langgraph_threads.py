"""The checkpointer as the thread history source: a reload (``HttpAgent.load_thread``, which
reads ``GET <path>/connect?threadId=``) restores the graph's own conversation, across a server
restart, and the next run continues it without sending anything twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

from ag_ui.adapters.langgraph import CheckpointThreads, LangGraphAgent, ScriptedChatModel
from ag_ui.client import HttpAgent
from ag_ui.core import UserMessage
from ag_ui.server import create_app
from ag_ui.store import InMemoryThreadStore, SqliteThreadStore
from ag_ui.testing import serve

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Trip(MessagesState):
    city: str


def trip_graph(checkpointer: InMemorySaver) -> Any:
    model = ScriptedChatModel(turns=["Paris is sunny.", "Oslo is cold."])

    async def chat(state: Trip) -> dict[str, Any]:
        reply = await model.ainvoke(state["messages"])
        return {"messages": [reply], "city": "Oslo" if "Oslo" in str(reply.content) else "Paris"}

    builder = StateGraph(Trip)
    builder.add_node("chat", chat)
    builder.add_edge(START, "chat")
    return builder.compile(checkpointer=checkpointer)


def app_for(graph: Any, db: Path) -> Any:
    agent = LangGraphAgent(graph)
    threads = CheckpointThreads(agent, SqliteThreadStore(db))
    return create_app(agent, threads=threads, public_thread_history=True)


async def test_a_reload_after_a_restart_restores_the_checkpoint(tmp_path: Path) -> None:
    # The checkpointer outlives the servers, as a database's would (InMemorySaver stands in).
    checkpointer = InMemorySaver()
    graph = trip_graph(checkpointer)
    db = tmp_path / "threads.db"
    with serve(app_for(graph, db)) as server:
        first = HttpAgent(server.url + "/agent", thread_id="trip")
        first.add_message({"id": "u1", "role": "user", "content": "weather in Paris"})
        await first.run_agent(run_id="run-1")
    # Between the runs the application edits the graph's state (a note, a state key): no stream
    # ever carried them, only the checkpoint has them.
    config = {"configurable": {"thread_id": "trip"}}
    await graph.aupdate_state(config, {"messages": [AIMessage("Pack an umbrella.", id="note-1")]})

    with serve(app_for(graph, db)) as server:  # the server restarted
        reloaded = HttpAgent(server.url + "/agent")
        await reloaded.load_thread("trip")
        assert [(m.role, m.content) for m in reloaded.messages] == [
            ("user", "weather in Paris"),
            ("assistant", "Paris is sunny."),
            ("assistant", "Pack an umbrella."),
        ]
        assert reloaded.state == {"city": "Paris"}
        reloaded.add_message({"id": "u2", "role": "user", "content": "and in Oslo?"})
        result = await reloaded.run_agent(run_id="run-2")
    assert [m.content for m in result.new_messages] == ["Oslo is cold."]
    assert reloaded.state == {"city": "Oslo"}
    history = (await graph.aget_state(config)).values["messages"]
    # The graph got only the new message: nothing of the restored history twice.
    assert [m.content for m in history] == [
        "weather in Paris",
        "Paris is sunny.",
        "Pack an umbrella.",
        "and in Oslo?",
        "Oslo is cold.",
    ]


async def test_a_thread_the_checkpointer_lacks_loads_as_the_store_has_it() -> None:
    store = InMemoryThreadStore()
    graph = trip_graph(InMemorySaver())
    threads = CheckpointThreads(LangGraphAgent(graph), store)
    await store.save("old", owner=None, messages=[UserMessage(id="m1", content="hi")], state={})
    loaded = await threads.load("old", owner=None)
    assert [m.id for m in loaded.messages] == ["m1"]


async def test_deleting_a_thread_forgets_the_checkpoint_too() -> None:
    checkpointer = InMemorySaver()
    graph = trip_graph(checkpointer)
    agent = LangGraphAgent(graph)
    threads = CheckpointThreads(agent, InMemoryThreadStore())
    with serve(create_app(agent, threads=threads, public_thread_history=True)) as server:
        client = HttpAgent(server.url + "/agent", thread_id="gone")
        client.add_message({"id": "u1", "role": "user", "content": "hi"})
        await client.run_agent()
    assert (await agent.checkpoint("gone")).values
    await threads.delete("gone", owner=None)
    assert not (await agent.checkpoint("gone")).values
