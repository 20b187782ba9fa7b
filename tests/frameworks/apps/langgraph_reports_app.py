"""ag-ui-langgraph (the upstream bridge) serving the scripted graphs of the LangGraph reports,
the same graphs ``tests/adapters/test_langgraph_reports.py`` serves through this SDK's adapter,
so that the suite records what the upstream bridge does with each today.

One endpoint per script (a ``ScriptedChatModel`` plays a turn once): ``/whole``,
``/text-tool``, ``/parallel``, ``/parallel-whole``, ``/approval``, ``/tool-approval``,
``/raising``. Runs in the
``langgraph`` framework venv with this SDK's wheel on top (``-ours``), whose
``ag_ui.adapters.langgraph`` provides the scripted chat model; the graphs module is loaded from
its file, so nothing else of the test suite is imported.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from _serve import health, serve
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI

GRAPHS = Path(__file__).resolve().parents[2] / "adapters" / "langgraph_graphs.py"
spec = importlib.util.spec_from_file_location("langgraph_graphs", GRAPHS)
assert spec is not None
assert spec.loader is not None
graphs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(graphs)

ENDPOINTS = {
    "/whole": lambda: graphs.tool_graph(graphs.WHOLE_ARGS),
    "/text-tool": lambda: graphs.tool_graph(graphs.TEXT_THEN_TOOL),
    "/parallel": lambda: graphs.tool_graph(graphs.PARALLEL),
    "/parallel-whole": lambda: graphs.tool_graph(graphs.PARALLEL_WHOLE),
    "/approval": graphs.approval_graph,
    "/tool-approval": graphs.tool_approval_graph,
    "/raising": graphs.raising_graph,
}

app = FastAPI()
for path, build in ENDPOINTS.items():
    agent = LangGraphAgent(
        name=path.strip("/"), graph=build(), emit_interrupt_outcome=True, emit_raw_events=False
    )
    add_langgraph_fastapi_endpoint(app, agent, path)
app.add_api_route("/health", health, methods=["GET"])

if __name__ == "__main__":
    serve(app)
