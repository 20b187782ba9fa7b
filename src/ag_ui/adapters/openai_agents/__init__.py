"""An OpenAI Agents SDK agent served by ``ag_ui.server`` (docs/openai-agents.md).

>>> from ag_ui.adapters.openai_agents import OpenAIAgentsAgent  # doctest: +SKIP
>>> app = create_app(OpenAIAgentsAgent(agent))  # doctest: +SKIP

Needs the ``openai-agents`` extra: ``pip install 'ag-ui-sdk[openai-agents]'``.
"""

from __future__ import annotations

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)

try:
    import agents  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.adapters.openai_agents needs the OpenAI Agents SDK: install the openai-agents "
        "extra (pip install 'ag-ui-sdk[openai-agents]')"
    ) from exc

from ag_ui.adapters.openai_agents._agent import (
    AgentFactory,
    OpenAIAgentsAgent,
    frontend_tool,
    input_items,
)
from ag_ui.adapters.openai_agents._approvals import (
    APPROVAL_SCHEMA,
    PendingApprovals,
    PendingRun,
    to_interrupt,
)

__all__ = [
    "APPROVAL_SCHEMA",
    "AgentFactory",
    "OpenAIAgentsAgent",
    "PendingApprovals",
    "PendingRun",
    "frontend_tool",
    "input_items",
    "to_interrupt",
]
