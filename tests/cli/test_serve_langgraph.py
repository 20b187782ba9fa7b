"""``agui serve --langgraph MODULE:GRAPH``: a graph of the user's, served with threads kept in
its checkpoint; ``agui run`` talks to it; a wrong spec is one line and exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ag_ui.cli import main

AGUI = [sys.executable, "-m", "ag_ui"]

GRAPH_MODULE = textwrap.dedent(
    """\
    from langgraph.graph import START, MessagesState, StateGraph

    from ag_ui.adapters.langgraph import ScriptedChatModel

    model = ScriptedChatModel(turns=["Hello from ", "the graph."], loop=True)


    async def chat(state: MessagesState) -> dict:
        return {"messages": [await model.ainvoke(state["messages"])]}


    builder = StateGraph(MessagesState)  # not compiled: agui serve compiles it
    builder.add_node("chat", chat)
    builder.add_edge(START, "chat")
    graph = builder.compile()
    """
)


def test_agui_run_talks_to_a_served_graph(tmp_path: Path) -> None:
    (tmp_path / "my_graph.py").write_text(GRAPH_MODULE)
    server = subprocess.Popen(
        [*AGUI, "serve", "--langgraph", "my_graph:builder", "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "AGUI_DATA_DIR": str(tmp_path / "data")},
    )
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()
        assert "LangGraph graph my_graph:builder on http://127.0.0.1:" in ready, (
            server.stderr.read() if server.stderr else ready
        )
        url = ready.split(" on ", 1)[1].split(". ", 1)[0]
        assert server.stdout.readline().strip() == f"Capabilities: {url}/capabilities"
        done = subprocess.run(
            [*AGUI, "run", url, "-m", "hi"], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert "Hello from " in done.stdout
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("my_graph", "agui serve: --langgraph takes MODULE:ATTRIBUTE"),
        ("no_such_module:graph", "agui serve: --langgraph: no module named 'no_such_module'"),
        ("my_graph:nothing", "agui serve: --langgraph: module 'my_graph' has no 'nothing'"),
        ("my_graph:model", "agui serve: --langgraph: my_graph:model is not a graph"),
    ],
)
def test_a_wrong_graph_is_one_line_and_exit_2(
    spec: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "my_graph.py").write_text(GRAPH_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["serve", "--langgraph", spec, "--no-threads", "--port", "0"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(message)


def test_model_and_langgraph_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--model", "openai:x", "--langgraph", "app:graph"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
