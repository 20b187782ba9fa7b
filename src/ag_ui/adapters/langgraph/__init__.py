"""A compiled LangGraph graph served by ``ag_ui.server`` (docs/langgraph.md).

>>> from ag_ui.adapters.langgraph import LangGraphAgent  # doctest: +SKIP
>>> app = create_app(LangGraphAgent(graph))  # doctest: +SKIP

Needs the ``langgraph`` extra: ``pip install 'ag-ui-sdk[langgraph]'``.
"""

from __future__ import annotations

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)

try:
    import langchain_core  # noqa: F401
    import langgraph  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.adapters.langgraph needs LangGraph: install the langgraph extra "
        "(pip install 'ag-ui-sdk[langgraph]')"
    ) from exc

from ag_ui.adapters.langgraph._agent import (
    LangGraphAgent,
    client_tools,
    default_resume_value,
    run_input_of,
)
from ag_ui.adapters.langgraph._interrupts import DEFAULT_REASON, to_agui_interrupt
from ag_ui.adapters.langgraph._messages import from_langchain, to_langchain
from ag_ui.adapters.langgraph._scripted import ScriptedChatModel
from ag_ui.adapters.langgraph._threads import CheckpointThreads

__all__ = [
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
