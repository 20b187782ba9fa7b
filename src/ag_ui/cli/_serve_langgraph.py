"""``agui serve --langgraph MODULE:ATTRIBUTE``: a LangGraph graph of the user's as the agent.

``MODULE`` is imported as Python imports it (the current directory first, so ``app:graph`` finds
``./app.py``); ``ATTRIBUTE`` is a compiled graph, or a ``StateGraph`` builder, which is compiled
here with an in-memory checkpointer (interrupts and resume work; the memory lasts the process).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["load_langgraph_agent"]


def load_langgraph_agent(spec: str) -> Any:
    """The ``LangGraphAgent`` serving ``spec`` (``MODULE:ATTRIBUTE``); ``ValueError`` saying
    what is wrong, ``ImportError`` naming the extra when LangGraph is missing."""
    from ag_ui.adapters.langgraph import LangGraphAgent

    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(
            f"--langgraph takes MODULE:ATTRIBUTE (e.g. app:graph for the graph in ./app.py), "
            f"not {spec!r}"
        )
    if "" not in sys.path:
        sys.path.insert(0, "")  # as `python -m` does: the current directory's modules
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name.split(".")[0] and exc.name != module_name:
            raise  # the module exists but imports something missing: its own traceback
        raise ValueError(f"--langgraph: no module named {module_name!r}") from None
    try:
        graph = getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"--langgraph: module {module_name!r} has no {attribute!r}") from None
    if not hasattr(graph, "astream") and hasattr(graph, "compile"):
        from langgraph.checkpoint.memory import InMemorySaver

        graph = graph.compile(checkpointer=InMemorySaver())
    try:
        return LangGraphAgent(graph)
    except TypeError as exc:
        raise ValueError(f"--langgraph: {module_name}:{attribute} is not a graph ({exc})") from None
