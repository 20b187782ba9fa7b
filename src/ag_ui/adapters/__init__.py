"""Frameworks' agents served by ``ag_ui.server``, with every guarantee of its endpoints.

Each framework has its own subpackage and extra; importing one without its extra raises
``ImportError`` naming the extra to install:

* ``ag_ui.adapters.langgraph`` (``pip install 'ag-ui-sdk[langgraph]'``): a compiled LangGraph
  graph as an agent (docs/langgraph.md).
* ``ag_ui.adapters.openai_agents`` (``pip install 'ag-ui-sdk[openai-agents]'``): an OpenAI
  Agents SDK ``Agent`` as an agent (docs/openai-agents.md).

This package imports nothing itself, so ``import ag_ui.adapters`` works without any extra.
"""

from __future__ import annotations

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)

__all__: list[str] = []
