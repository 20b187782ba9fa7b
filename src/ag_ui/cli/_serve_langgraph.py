"""``agui serve --langgraph MODULE:ATTRIBUTE``: a LangGraph graph of the user's as the agent.

``ATTRIBUTE`` is a compiled graph, or a ``StateGraph`` builder, which is compiled here with an
in-memory checkpointer (interrupts and resume work; the memory lasts the process). How the module
is found: ``_user_module``.
"""

from __future__ import annotations

from typing import Any

from ag_ui.cli._user_module import load_attribute

__all__ = ["load_langgraph_agent"]


def load_langgraph_agent(spec: str) -> Any:
    """The ``LangGraphAgent`` serving ``spec`` (``MODULE:ATTRIBUTE``); ``ValueError`` saying
    what is wrong, ``ImportError`` naming the extra when LangGraph is missing."""
    from ag_ui.adapters.langgraph import LangGraphAgent

    graph = load_attribute("--langgraph", spec, "app:graph for the graph in ./app.py")
    if not hasattr(graph, "astream") and hasattr(graph, "compile"):
        from langgraph.checkpoint.memory import InMemorySaver

        graph = graph.compile(checkpointer=InMemorySaver())
    try:
        return LangGraphAgent(graph)
    except TypeError as exc:
        raise ValueError(f"--langgraph: {spec} is not a graph ({exc})") from None
