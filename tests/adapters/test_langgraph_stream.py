"""The LangGraph adapter's mapping, run in process (``AgentClient``, which grades every stream):
state as STATE_SNAPSHOT then STATE_DELTAs, subgraphs as subagents, ``custom`` writes as CUSTOM,
no RAW unless asked, messages nodes return whole, interrupts and the resume checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict

import ag_ui.adapters.langgraph
from ag_ui.adapters.langgraph import (
    LangGraphAgent,
    ScriptedChatModel,
    from_langchain,
    to_agui_interrupt,
    to_langchain,
)
from ag_ui.core import AssistantMessage, FunctionCall, ToolCall, ToolMessage, UserMessage
from ag_ui.server import create_app
from ag_ui.testing import AgentClient, RunResult
from tests.adapters.langgraph_graphs import call_chunk, tool_calls_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def wire(result: RunResult) -> list[dict[str, Any]]:
    assert result.verification.ok, result.verification
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in result.events]


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_public_surface_is_pinned() -> None:
    assert ag_ui.adapters.langgraph.__all__ == [
        "CheckpointThreads",
        "DEFAULT_REASON",
        "LangGraphAgent",
        "ScriptedChatModel",
        "client_tools",
        "default_resume_value",
        "from_langchain",
        "run_input_of",
        "to_agui_interrupt",
        "to_langchain",
    ]


def test_a_non_graph_is_refused_with_what_to_pass() -> None:
    with pytest.raises(TypeError, match=r"compiled graph \(StateGraph\(\.\.\.\)\.compile\(\)\)"):
        LangGraphAgent(object())


class Research(MessagesState):
    notes: list[str]
    step: int


def research_graph() -> Any:
    """An outer graph whose ``researcher`` node is a compiled subgraph that writes ``custom``."""
    model = ScriptedChatModel(turns=["Researching.", "Summary."])

    async def research(state: Research) -> dict[str, Any]:
        get_stream_writer()({"name": "progress", "value": {"done": 1}})
        get_stream_writer()("plain write")
        return {"messages": [await model.ainvoke(state["messages"])], "notes": ["n1"]}

    inner = StateGraph(Research)
    inner.add_node("research", research)
    inner.add_edge(START, "research")

    async def write(state: Research) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])], "step": state["step"] + 1}

    outer = StateGraph(Research)
    outer.add_node("researcher", inner.compile())
    outer.add_node("write", write)
    outer.add_edge(START, "researcher")
    outer.add_edge("researcher", "write")
    return outer.compile(checkpointer=InMemorySaver())


async def test_state_subgraphs_and_custom_writes() -> None:
    client = AgentClient(create_app(LangGraphAgent(research_graph())))
    # "unknown" is no channel of the graph: it does not reach the graph (nor its state).
    result = await client.run("go", thread_id="t", run_id="r", state={"step": 5, "unknown": 1})
    events = wire(result)
    assert events[1] == {"type": "STATE_SNAPSHOT", "snapshot": {"step": 5}}
    deltas = [e["delta"] for e in events if e["type"] == "STATE_DELTA"]
    assert deltas == [
        [{"op": "add", "path": "/notes", "value": ["n1"]}],
        [{"op": "replace", "path": "/step", "value": 6}],
    ]
    assert result.agent_state.state == {"step": 6, "notes": ["n1"]}
    started = next(e for e in events if e["type"] == "SUBAGENT_STARTED")
    sub = started["subagentRunId"]
    assert started["name"] == "researcher"
    customs = [e for e in events if e["type"] == "CUSTOM"]
    assert customs == [
        {"type": "CUSTOM", "subagentRunId": sub, "name": "progress", "value": {"done": 1}},
        {
            "type": "CUSTOM",
            "subagentRunId": sub,
            "name": "langgraph.custom",
            "value": "plain write",
        },
    ]
    texts = [e for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert [(e.get("subagentRunId"), e["delta"]) for e in texts] == [
        (sub, "Researching."),
        (None, "Summary."),
    ]
    # The subagent finished when its node did, before the outer graph's reply began.
    finished = events.index({"type": "SUBAGENT_FINISHED", "subagentRunId": sub})
    assert finished < events.index(texts[1])
    assert events.index(texts[0]) < finished
    order = kinds(events)
    assert "RAW" not in order  # RAW carries prompts: off by default


async def test_raw_only_when_asked() -> None:
    client = AgentClient(create_app(LangGraphAgent(research_graph(), emit_raw=True)))
    events = wire(await client.run("go", state={"step": 0}))
    raws = [e for e in events if e["type"] == "RAW"]
    assert raws
    assert {e["source"] for e in raws} == {"langgraph"}


def node_graph(reply: AIMessage) -> Any:
    """A node that returns a message whole, without a chat model."""

    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [reply]}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    return builder.compile()


async def test_a_message_a_node_returns_whole_is_sent_whole() -> None:
    reply = AIMessage(
        content="Calling.",
        id="ai-1",
        tool_calls=[{"id": "c1", "name": "lookup", "args": {"q": "x"}, "type": "tool_call"}],
    )
    events = wire(await AgentClient(create_app(LangGraphAgent(node_graph(reply)))).run("hi"))
    assert tool_calls_of(events) == {
        "c1": {"name": "lookup", "args": '{"q":"x"}', "ended": True, "starts": 1}
    }
    assert [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"] == ["Calling."]


def chunk_graph(chunks: list[AIMessageChunk]) -> Any:
    model = ScriptedChatModel(turns=[chunks])

    async def chat(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_edge(START, "chat")
    return builder.compile()


async def test_a_call_whose_arguments_never_come_gets_an_empty_object() -> None:
    graph = chunk_graph(
        [AIMessageChunk(content="", tool_call_chunks=[call_chunk("c0", "now", "", 0)])]
    )
    events = wire(await AgentClient(create_app(LangGraphAgent(graph))).run("hi"))
    assert tool_calls_of(events)["c0"]["args"] == "{}"


async def test_text_after_a_call_is_a_segment_of_its_own() -> None:
    """text, call, text in one model message: the second text is a new message id, after the
    call ended; the call's chunks without index or id continue the call they follow."""
    graph = chunk_graph(
        [
            AIMessageChunk(content="Looking.", id="m1"),
            AIMessageChunk(
                content="", id="m1", tool_call_chunks=[call_chunk("c1", "find", '{"a"', None)]
            ),
            AIMessageChunk(
                content="", id="m1", tool_call_chunks=[call_chunk(None, None, ":1}", None)]
            ),
            AIMessageChunk(content="Found it.", id="m1"),
        ]
    )
    events = wire(await AgentClient(create_app(LangGraphAgent(graph))).run("hi"))
    starts = [e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START"]
    assert starts == ["m1", "m1-2"]
    assert json.loads(tool_calls_of(events)["c1"]["args"]) == {"a": 1}
    order = kinds(events)
    assert order.index("TOOL_CALL_END") < order.index(
        "TEXT_MESSAGE_START", order.index("TOOL_CALL_START")
    )


def asking_graph(value: Any) -> Any:
    def ask(state: MessagesState) -> dict[str, Any]:
        answer = interrupt(value)
        return {"messages": [AIMessage(content=f"got {answer!r}", id="answer-1")]}

    builder = StateGraph(MessagesState)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    return builder.compile(checkpointer=InMemorySaver())


async def test_interrupt_values_map_to_the_protocols_interrupt() -> None:
    client = AgentClient(create_app(LangGraphAgent(asking_graph("Which city?"))))
    events = wire(await client.run("hi", thread_id="t"))
    [pending] = events[-1]["outcome"]["interrupts"]
    assert pending["reason"] == "langgraph:interrupt"
    assert pending["message"] == "Which city?"
    assert pending["metadata"] == {"value": "Which city?"}
    schema = {"type": "object", "properties": {"approved": {"type": "boolean"}}}
    typed = to_agui_interrupt(
        type("I", (), {"id": "i1", "value": {"reason": "confirmation", "responseSchema": schema}})
    )
    assert (typed.reason, typed.response_schema) == ("confirmation", schema)


async def test_resume_checks() -> None:
    client = AgentClient(create_app(LangGraphAgent(asking_graph({"message": "Sure?"}))))
    first = wire(await client.run("hi", thread_id="t"))
    [pending] = first[-1]["outcome"]["interrupts"]

    # A new message while the interrupt is open: the protocol's RUN_ERROR, naming the interrupt.
    refused = wire(await client.run("hello again", thread_id="t"))
    assert refused[-1]["type"] == "RUN_ERROR"
    assert refused[-1]["code"] == "interrupt_pending"
    assert pending["id"] in refused[-1]["message"]
    wrong = wire(
        await client.run(thread_id="t", resume=[{"interruptId": "nope", "status": "resolved"}])
    )
    assert wrong[-1]["code"] == "unknown_interrupt"

    # A cancelled answer resumes with None (default_resume_value).
    done = wire(
        await client.run(
            thread_id="t", resume=[{"interruptId": pending["id"], "status": "cancelled"}]
        )
    )
    assert [e["delta"] for e in done if e["type"] == "TEXT_MESSAGE_CONTENT"] == ["got None"]
    again = wire(
        await client.run(
            thread_id="t", resume=[{"interruptId": pending["id"], "status": "resolved"}]
        )
    )
    assert again[-1]["code"] == "no_open_interrupt"


def test_messages_convert_both_ways_with_their_ids() -> None:
    messages = [
        UserMessage(id="u1", content="hi"),
        AssistantMessage(
            id="a1",
            content="Calling.",
            tool_calls=[ToolCall(id="c1", function=FunctionCall(name="f", arguments='{"x":1}'))],
        ),
        ToolMessage(id="t1", content="42", tool_call_id="c1"),
    ]
    converted = to_langchain(messages)
    assert [m.id for m in converted] == ["u1", "a1", "t1"]
    assert converted[1].tool_calls[0]["args"] == {"x": 1}  # type: ignore[attr-defined]
    assert from_langchain([*converted, SystemMessage("be brief", id="s1")]) == [
        *messages,
        from_langchain([SystemMessage("be brief", id="s1")])[0],
    ]


def nested_asking_graph() -> Any:
    """``planner`` is a subgraph whose node interrupts; ``after`` runs once it is answered."""

    def ask(state: MessagesState) -> dict[str, Any]:
        city = interrupt("Which city?")
        return {"messages": [AIMessage(content=f"city={city}", id="inner-1")]}

    inner = StateGraph(MessagesState)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")

    def after(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content="planned", id="outer-1")]}

    outer = StateGraph(MessagesState)
    outer.add_node("planner", inner.compile())
    outer.add_node("after", after)
    outer.add_edge(START, "planner")
    outer.add_edge("planner", "after")
    return outer.compile(checkpointer=InMemorySaver())


async def test_a_subgraphs_interrupt_suspends_its_subagent_and_names_it() -> None:
    client = AgentClient(create_app(LangGraphAgent(nested_asking_graph())))
    first = wire(await client.run("plan", thread_id="t", run_id="r1"))
    [pending] = first[-1]["outcome"]["interrupts"]
    started = next(e for e in first if e["type"] == "SUBAGENT_STARTED")
    assert started["name"] == "planner"
    assert pending["subagentRunId"] == started["subagentRunId"]
    finished = next(e for e in first if e["type"] == "SUBAGENT_FINISHED")
    assert finished["outcome"] == {"type": "suspended", "interruptIds": [pending["id"]]}

    resume = [{"interruptId": pending["id"], "status": "resolved", "payload": "Oslo"}]
    second = wire(await client.run(thread_id="t", run_id="r2", resume=resume))
    texts = [
        (e.get("subagentRunId") is not None, e["delta"])
        for e in second
        if e["type"] == "TEXT_MESSAGE_CONTENT"
    ]
    assert texts == [(True, "city=Oslo"), (False, "planned")]
    assert second[-1] == {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"}


@pytest.mark.parametrize(
    "thinking",
    [
        pytest.param(
            [
                AIMessageChunk(content=[{"type": "thinking", "thinking": "Rain ", "index": 0}]),
                AIMessageChunk(content=[{"type": "thinking", "thinking": "likely.", "index": 0}]),
            ],
            id="anthropic-thinking-blocks",
        ),
        pytest.param(
            [
                AIMessageChunk(content="", additional_kwargs={"reasoning_content": "Rain "}),
                AIMessageChunk(content="", additional_kwargs={"reasoning_content": "likely."}),
            ],
            id="openai-compatible-reasoning-content",
        ),
    ],
)
async def test_reasoning_is_a_reasoning_message_before_the_text(
    thinking: list[AIMessageChunk],
) -> None:
    answer = AIMessageChunk(content="Take an umbrella.")
    if not isinstance(thinking[0].content, str):  # one content shape per message, as providers do
        answer = AIMessageChunk(content=[{"type": "text", "text": "Take an umbrella.", "index": 1}])
    events = wire(
        await AgentClient(create_app(LangGraphAgent(chunk_graph([*thinking, answer])))).run("?")
    )
    reasoning = [e for e in events if e["type"].startswith("REASONING")]
    assert [e["type"] for e in reasoning] == [
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
    ]
    assert "".join(e.get("delta", "") for e in reasoning) == "Rain likely."
    order = kinds(events)
    assert order.index("REASONING_END") < order.index("TEXT_MESSAGE_START")
    assert [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"] == [
        "Take an umbrella."
    ]


class Counter(TypedDict):
    count: int


async def test_a_graph_without_messages_gets_only_its_state() -> None:
    def bump(state: Counter) -> dict[str, Any]:
        return {"count": state["count"] + 1}

    builder = StateGraph(Counter)
    builder.add_node("bump", bump)
    builder.add_edge(START, "bump")
    client = AgentClient(create_app(LangGraphAgent(builder.compile())))
    result = await client.run("count", state={"count": 41})
    wire(result)
    assert result.agent_state.state == {"count": 42}
