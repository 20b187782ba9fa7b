"""Each LangGraph report filed against ``ag-ui-langgraph`` as a test: a scripted chat model
reproduces the provider shape, the graph is served by ``LangGraphAgent`` on a real uvicorn at
127.0.0.1 and read by ``HttpAgent``, and the stream is checked structurally (a verifier accepts
a call without ARGS and a resume that sends a call again; these checks do not)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Optional

import pytest

from ag_ui.adapters.langgraph import LangGraphAgent
from ag_ui.client import HttpAgent
from ag_ui.server import create_app
from ag_ui.testing import LiveServer, serve
from tests.adapters.langgraph_graphs import (
    PARALLEL,
    PARALLEL_WHOLE,
    TEXT_THEN_TOOL,
    WHOLE_ARGS,
    approval_graph,
    assert_calls,
    raising_graph,
    tool_approval_graph,
    tool_graph,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def served(graph: Any) -> AbstractContextManager[LiveServer]:
    return serve(create_app(LangGraphAgent(graph)))


async def run(
    url: str,
    *,
    thread_id: str = "thread-1",
    run_id: str = "run-1",
    text: Optional[str] = "weather?",
    resume: Optional[Sequence[dict[str, Any]]] = None,
    agent: Optional[HttpAgent] = None,
) -> tuple[HttpAgent, list[dict[str, Any]]]:
    """One run through ``HttpAgent`` (which verifies the stream); its events as wire JSON."""
    agent = agent or HttpAgent(url + "/agent", thread_id=thread_id)
    if text is not None:
        agent.add_message({"id": f"user-{run_id}", "role": "user", "content": text})
    events: list[dict[str, Any]] = []
    await read_into(events, agent, run_id=run_id, resume=resume)
    return agent, events


async def read_into(events: list[dict[str, Any]], agent: HttpAgent, **options: Any) -> None:
    async with agent.stream(**options) as stream:
        async for event in stream:
            events.append(event.model_dump(mode="json", by_alias=True, exclude_none=True))


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        pytest.param(WHOLE_ARGS, {"call_w": "get_weather"}, id="2463-whole-arguments"),
        pytest.param(TEXT_THEN_TOOL, {"call_t": "get_weather"}, id="1678-text-to-tool"),
        pytest.param(PARALLEL, {"call_a": "get_weather", "call_b": "get_time"}, id="1016-parallel"),
        pytest.param(
            PARALLEL_WHOLE,
            {"call_a": "get_weather", "call_b": "get_time"},
            id="2463-1016-parallel-whole",
        ),
    ],
)
async def test_every_call_has_start_args_and_end_under_its_own_id(
    script: Any, expected: dict[str, str]
) -> None:
    with served(tool_graph(script)) as server:
        agent, events = await run(server.url)
    assert_calls(events, expected)
    # Each call's result is sent against the call's own id, and the conversation the client
    # reduced holds the calls with their whole arguments.
    results = {e["toolCallId"] for e in of_type(events, "TOOL_CALL_RESULT")}
    assert results == set(expected)
    assistant_calls = {
        call.id: call.function.arguments
        for message in agent.messages
        if message.role == "assistant"
        for call in message.tool_calls or []
    }
    assert set(assistant_calls) == set(expected)
    assert events[-1]["type"] == "RUN_FINISHED"


async def test_text_and_the_call_in_one_chunk_keep_both() -> None:
    """#1678: the text before the call is a message of its own, closed before the call opens."""
    with served(tool_graph(TEXT_THEN_TOOL)) as server:
        _, events = await run(server.url)
    kinds = [e["type"] for e in events]
    first_text = of_type(events, "TEXT_MESSAGE_CONTENT")[0]
    assert first_text["delta"] == "Checking the weather."
    assert kinds.index("TEXT_MESSAGE_END") < kinds.index("TOOL_CALL_START")
    start = of_type(events, "TOOL_CALL_START")[0]
    assert start["parentMessageId"] == first_text["messageId"]


async def test_run_finished_carries_the_inputs_run_id() -> None:
    """#1279/#1582: RUN_STARTED and RUN_FINISHED carry the input's ids, never LangGraph's."""
    with served(tool_graph(WHOLE_ARGS)) as server:
        _, events = await run(server.url, thread_id="thread-ids", run_id="client-run-7")
    started, finished = events[0], events[-1]
    assert (started["type"], started["threadId"], started["runId"]) == (
        "RUN_STARTED",
        "thread-ids",
        "client-run-7",
    )
    assert (finished["type"], finished["threadId"], finished["runId"]) == (
        "RUN_FINISHED",
        "thread-ids",
        "client-run-7",
    )
    assert len([e for e in events if e["type"] in ("RUN_FINISHED", "RUN_ERROR")]) == 1


async def test_a_raising_node_ends_the_run_with_run_error() -> None:
    """#2531/#2532: the exception becomes one RUN_ERROR, after the open text is closed."""
    from ag_ui.core.errors import RunError

    with served(raising_graph()) as server:
        agent = HttpAgent(server.url + "/agent", thread_id="thread-err")
        agent.add_message({"id": "u1", "role": "user", "content": "go"})
        events: list[dict[str, Any]] = []

        with pytest.raises(RunError) as caught:
            await read_into(events, agent, run_id="run-err")
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "RUN_ERROR"
    assert "RUN_FINISHED" not in kinds
    assert kinds.index("TEXT_MESSAGE_END") < kinds.index("RUN_ERROR")
    # The error's text stays in the server log (it may hold secrets); the client gets the code.
    assert "database" not in events[-1]["message"]
    assert caught.value.code == "agent_error"


async def test_a_resumed_interrupt_sends_nothing_already_sent() -> None:
    """#2014: run 1 proposes the call and ends on the interrupt; run 2 answers it and sends only
    the result and the reply: no START, ARGS or text of run 1 again."""
    with served(approval_graph()) as server:
        agent, first = await run(server.url, thread_id="thread-hitl", run_id="run-1")
        outcome = first[-1]["outcome"]
        assert outcome["type"] == "interrupt"
        [pending] = outcome["interrupts"]
        assert pending["reason"] == "tool_call"
        assert pending["toolCallId"] == "call_w"
        assert_calls(first, {"call_w": "get_weather"})
        resume = [{"interruptId": pending["id"], "status": "resolved", "payload": "yes"}]
        agent, second = await run(server.url, run_id="run-2", text=None, resume=resume, agent=agent)
    assert second[-1]["type"] == "RUN_FINISHED"
    assert second[-1]["runId"] == "run-2"
    assert "outcome" not in second[-1] or second[-1]["outcome"]["type"] == "success"
    assert of_type(second, "TOOL_CALL_START") == []
    assert of_type(second, "TOOL_CALL_ARGS") == []
    sent_before = {e.get("messageId") for e in first if "messageId" in e}
    sent_now = {e.get("messageId") for e in second if e["type"] == "TEXT_MESSAGE_START"}
    assert sent_before.isdisjoint(sent_now)
    [result] = of_type(second, "TOOL_CALL_RESULT")
    assert (result["toolCallId"], result["content"]) == ("call_w", "approved: yes")
    assert [e["delta"] for e in of_type(second, "TEXT_MESSAGE_CONTENT")] == ["Booked."]


async def test_a_tools_own_interrupt_resumed_sends_only_the_result() -> None:
    """#2014 as ag-ui-langgraph 0.0.47 still shows it: the tool run by ``ToolNode`` asks
    (``interrupt``); on resume the tools node runs again, and the call of run 1 must not be
    sent a second time: run 2 has its result and the answer only."""
    with served(tool_approval_graph()) as server:
        agent, first = await run(server.url, thread_id="thread-tool-hitl", run_id="run-1")
        assert_calls(first, {"call_w": "get_weather"})
        [pending] = first[-1]["outcome"]["interrupts"]
        assert pending["message"] == "Look up Paris?"
        resume = [{"interruptId": pending["id"], "status": "resolved", "payload": "yes"}]
        agent, second = await run(server.url, run_id="run-2", text=None, resume=resume, agent=agent)
    assert [e["type"] for e in second if e["type"].startswith("TOOL_CALL")] == ["TOOL_CALL_RESULT"]
    [result] = of_type(second, "TOOL_CALL_RESULT")
    assert (result["toolCallId"], result["content"]) == ("call_w", "sunny in Paris (yes)")
    assert [e["delta"] for e in of_type(second, "TEXT_MESSAGE_CONTENT")] == ["Sunny."]
    # The client's conversation holds the call once, answered once.
    calls = [c.id for m in agent.messages if m.role == "assistant" for c in m.tool_calls or []]
    assert calls == ["call_w"]
