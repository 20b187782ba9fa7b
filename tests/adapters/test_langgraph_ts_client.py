"""The official TypeScript client (``@ag-ui/client`` in Node, which verifies every stream itself)
reads graphs served by ``LangGraphAgent`` on a real uvicorn: the parallel calls whose whole
arguments came in one chunk (ag-ui #2463 with #1016) end up in its conversation under their own
ids with their arguments, and an ``interrupt()`` is its pending interrupt."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from ag_ui.adapters.langgraph import LangGraphAgent
from ag_ui.server import create_app
from ag_ui.testing import serve
from tests.adapters.langgraph_graphs import (
    PARALLEL_WHOLE,
    SCRIPTED_ARGS,
    approval_graph,
    tool_graph,
)

INTEROP = Path(__file__).resolve().parents[1] / "interop"
USER = [{"id": "u1", "role": "user", "content": "weather and time in Rome?"}]


def ts_run(graph: Any) -> dict[str, Any]:
    """One run of ``ts_client_run.mjs`` (thread ``thread-1``, run ``run-1``) against the graph."""
    with serve(create_app(LangGraphAgent(graph))) as server:
        done = subprocess.run(
            ["node", str(INTEROP / "ts_client_run.mjs"), f"{server.url}/agent", json.dumps(USER)],
            capture_output=True,
            check=True,
            timeout=60,
            cwd=INTEROP,
            text=True,
        )
    return dict(json.loads(done.stdout))


def test_the_ts_client_keeps_parallel_whole_arguments_under_their_ids() -> None:
    outcome = ts_run(tool_graph(PARALLEL_WHOLE))
    assert outcome["error"] is None
    assert outcome["runError"] is None
    calls = {
        call["id"]: (call["function"]["name"], json.loads(call["function"]["arguments"]))
        for message in outcome["messages"]
        if message["role"] == "assistant"
        for call in message.get("toolCalls") or []
    }
    assert calls == {
        "call_a": ("get_weather", SCRIPTED_ARGS["call_a"]),
        "call_b": ("get_time", SCRIPTED_ARGS["call_b"]),
    }
    results = {m["toolCallId"] for m in outcome["messages"] if m["role"] == "tool"}
    assert results == {"call_a", "call_b"}
    assert outcome["messages"][-1] == {
        "id": outcome["messages"][-1]["id"],
        "role": "assistant",
        "content": "Done.",
    }


def test_the_ts_client_sees_the_interrupt_as_pending() -> None:
    outcome = ts_run(approval_graph())
    assert outcome["error"] is None
    [pending] = outcome["pendingInterrupts"]
    assert (pending["reason"], pending["toolCallId"]) == ("tool_call", "call_w")
    assert pending["message"] == "Run get_weather?"
