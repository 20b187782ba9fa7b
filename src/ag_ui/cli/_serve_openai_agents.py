"""``agui serve --openai-agents MODULE:ATTRIBUTE``: an OpenAI Agents SDK agent of the user's.

``ATTRIBUTE`` is an ``agents.Agent``, or a function building one from the run's input (sync or
async: ``OpenAIAgentsAgent``'s factory). Its model reaches its provider as the SDK's default
client does (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``), or however the module set it up. How the
module is found: ``_user_module``.
"""

from __future__ import annotations

from typing import Any

from ag_ui.cli._user_module import load_attribute

__all__ = ["load_openai_agents_agent"]


def load_openai_agents_agent(spec: str) -> Any:
    """The ``OpenAIAgentsAgent`` serving ``spec`` (``MODULE:ATTRIBUTE``); ``ValueError`` saying
    what is wrong, ``ImportError`` naming the extra when the Agents SDK is missing."""
    from ag_ui.adapters.openai_agents import OpenAIAgentsAgent  # names the extra when missing

    found = load_attribute("--openai-agents", spec, "app:agent for the agent in ./app.py")
    try:
        if isinstance(found, type):  # a class is callable, but not a factory of agents
            raise TypeError(f"got the class {found.__name__}")
        return OpenAIAgentsAgent(found)
    except TypeError as exc:
        raise ValueError(
            f"--openai-agents: {spec} is not an agents.Agent or a function building one from "
            f"the run input ({exc})"
        ) from None
