"""The LangGraph reports' scripts through the upstream bridge, ``ag-ui-langgraph`` 0.0.47, in its
framework venv, recorded with what it does today; ``tests/adapters/test_langgraph_reports.py``
runs the same graphs (``tests/adapters/langgraph_graphs.py``) through ``ag_ui.adapters.langgraph``,
where every one passes the structural check. When upstream fixes one, its row here fails: update
the record.

Measured 2026-12-07 on ag-ui-langgraph 0.0.47 (langgraph 1.2.24, langchain-core 1.8.3), this
SDK's core in the venv (``-ours``: the graphs' scripted model is ``ag_ui.adapters.langgraph``'s):

* whole arguments in the opening chunk (ag-ui #2463): START and END, no ARGS;
* text and a call in one chunk (#1678): both sent, but the call has no ARGS (its arguments
  were whole too);
* parallel calls, argument chunks by index only (#1016): the first call has no ARGS, the
  second gets both calls' argument chunks;
* parallel calls, each whole: only the first call is sent, without ARGS;
* the run id (#1279, #1582) and a raising node (#2531, #2532): right;
* a resume (#2014): with the approval in a node of its own, nothing is sent again; with the
  interrupt inside the tool (``ToolNode``), run 2 sends the call of run 1 again (START, ARGS,
  END) before its result.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.adapters.langgraph_graphs import assert_calls, tool_calls_of
from tests.frameworks.servers import FrameworkServer


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    server = FrameworkServer("langgraph", "ours", module="langgraph_reports_app.py")
    try:
        yield server.base
    finally:
        server.stop()


def post(url: str, thread_id: str, **extra: Any) -> list[dict[str, Any]]:
    body = {
        "threadId": thread_id,
        "runId": extra.pop("runId", "run-1"),
        "messages": [{"id": "u1", "role": "user", "content": "weather?"}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
        **extra,
    }
    answer = httpx.post(url, json=body, timeout=60)
    answer.raise_for_status()
    return [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")]


def call(name: str, args: str) -> dict[str, Any]:
    return {"name": name, "args": args, "ended": True, "starts": 1}


# path -> (the calls upstream sends today, the calls the script made)
RECORDED = {
    "/whole": ({"call_w": call("get_weather", "")}, {"call_w": "get_weather"}),
    "/text-tool": ({"call_t": call("get_weather", "")}, {"call_t": "get_weather"}),
    "/parallel": (
        {
            "call_a": call("get_weather", ""),
            "call_b": call("get_time", '{"city":{"zone":"Rome"}"CET"}'),
        },
        {"call_a": "get_weather", "call_b": "get_time"},
    ),
    "/parallel-whole": (
        {"call_a": call("get_weather", "")},
        {"call_a": "get_weather", "call_b": "get_time"},
    ),
}


@pytest.mark.parametrize("path", sorted(RECORDED))
def test_upstream_tool_calls_today(upstream: str, path: str) -> None:
    events = post(upstream + path, f"thread{path}")
    recorded, scripted = RECORDED[path]
    assert tool_calls_of(events) == recorded
    with pytest.raises(AssertionError):  # what tests/adapters/test_langgraph_reports.py checks
        assert_calls(events, scripted)


def test_upstream_run_id_and_raising_node_today(upstream: str) -> None:
    finished = post(upstream + "/whole", "thread-ids", runId="client-run-7")[-1]
    assert (finished["type"], finished["runId"]) == ("RUN_FINISHED", "client-run-7")
    failed = post(upstream + "/raising", "thread-raising")
    assert [e["type"] for e in failed].count("RUN_ERROR") == 1
    assert failed[-1]["type"] == "RUN_ERROR"


def test_upstream_resume_of_the_approval_script_today(upstream: str) -> None:
    first = post(upstream + "/approval", "thread-hitl")
    [pending] = first[-1]["outcome"]["interrupts"]
    resume = [{"interruptId": pending["id"], "status": "resolved", "payload": "yes"}]
    second = post(upstream + "/approval", "thread-hitl", runId="run-2", resume=resume)
    assert second[-1]["type"] == "RUN_FINISHED"
    assert [e for e in second if e["type"].startswith("TOOL_CALL_")] == []
    assert [e["delta"] for e in second if e["type"] == "TEXT_MESSAGE_CONTENT"] == ["Booked."]


def test_upstream_resume_of_a_tools_own_interrupt_sends_the_call_again(upstream: str) -> None:
    first = post(upstream + "/tool-approval", "thread-tool-hitl")
    [pending] = first[-1]["outcome"]["interrupts"]
    resume = [{"interruptId": pending["id"], "status": "resolved", "payload": "yes"}]
    second = post(upstream + "/tool-approval", "thread-tool-hitl", runId="run-2", resume=resume)
    assert [e["type"] for e in second if e["type"].startswith("TOOL_CALL_")] == [
        "TOOL_CALL_START",  # the call of run 1, sent again
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
    ]
    assert {e["toolCallId"] for e in second if e["type"].startswith("TOOL_CALL_")} == {"call_w"}
