"""The dojo's features driven by a model: one ``ModelAgent`` per feature.

Each feature gets instructions that name the tools its dojo page offers (the frontend tools
arrive in ``RunAgentInput.tools``: ``change_background``, ``generate_task_steps``,
``generate_haiku``, ``write_document_local``, ``confirm_changes``), the backend tool
``get_weather`` where the page renders one, and the shared state where the page shares one
(the model changes it with ``update_state``; each change reaches the page as ``STATE_DELTA``).
Any OpenAI-compatible endpoint can sit behind it: a real model, or a mock server replaying
fixtures (the upstream dojo's ``aimock``).
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

from pydantic import Field

from ag_ui.core import RunAgentInput
from ag_ui.demo.dojo import (
    BACKGROUND_TOOL,
    CONFIRM_TOOL,
    DOCUMENT_TOOL,
    DOJO_FEATURES,
    HAIKU_TOOL,
    STEPS_TOOL,
    DojoAgent,
)
from ag_ui.providers import ModelAgent
from ag_ui.server import RunContext

__all__ = ["FEATURE_INSTRUCTIONS", "get_weather", "model_dojo_agents"]

FEATURE_INSTRUCTIONS: dict[str, str] = {
    "agentic_chat": (
        "You are a helpful assistant. When the user asks to change the background, call "
        f"{BACKGROUND_TOOL} with a CSS background value."
    ),
    "backend_tool_rendering": (
        f"You report the weather. Call {'get_weather'} with the city the user names, then "
        "describe the result in one sentence."
    ),
    "human_in_the_loop": (
        f"You plan tasks. For any request, call {STEPS_TOOL} with a list of steps (each "
        '{"description": <imperative, a few words>, "status": "enabled"}). When the user '
        "answers with the steps they kept, carry out exactly those steps and say so briefly."
    ),
    "agentic_generative_ui": (
        "You carry out plans in the open. Write the plan with update_state as "
        '{"steps": [{"description": ..., "status": "pending"}, ...]}, then mark each step '
        '"completed" with update_state, one call per step, and finish with one sentence.'
    ),
    "tool_based_generative_ui": (
        f"You write haiku. Call {HAIKU_TOOL} with three Japanese lines in 'japanese' and their "
        "English translation in 'english'; after the page shows it, say 'Haiku created'."
    ),
    "shared_state": (
        "You are a chef editing the recipe in the shared state (key 'recipe': title, "
        "skill_level, cooking_time, special_preferences, ingredients of {icon, name, amount}, "
        "instructions). Keep what the user wrote, change the recipe with update_state, then "
        "answer in one sentence."
    ),
    "predictive_state_updates": (
        f"You write documents. To write or change the document, call {DOCUMENT_TOOL} with the "
        f"whole text in 'document', then call {CONFIRM_TOOL} for the user to accept it. When the "
        "user has answered, say in one sentence whether the change was kept."
    ),
}
"""Each feature's instructions (the system prompt's first part)."""

_SHARED_STATE = {"agentic_generative_ui", "shared_state"}


def get_weather(
    city: Annotated[str, Field(description="The city, e.g. 'San Francisco'")],
) -> dict[str, Any]:
    """The current weather in a city (fixed demonstration values, the same for every city)."""
    return {
        "city": city,
        "conditions": "sunny",
        "temperature": 20,
        "humidity": 60,
        "wind_speed": 10,
    }


class _Predicting:
    """A ``ModelAgent`` with the ``PredictState`` announcement first, so that the page shows
    the document while the model is still writing it into the tool's arguments."""

    def __init__(self, agent: ModelAgent) -> None:
        self.agent = agent

    async def __call__(self, run_input: RunAgentInput, ctx: RunContext) -> None:
        await ctx.custom(
            "PredictState",
            [{"state_key": "document", "tool": DOCUMENT_TOOL, "tool_argument": "document"}],
        )
        await self.agent(run_input, ctx)

    async def aclose(self) -> None:
        await self.agent.aclose()


def model_dojo_agents(
    model: str, *, base_url: Optional[str] = None, api_key: Optional[str] = None
) -> dict[str, DojoAgent]:
    """Every feature as a ``ModelAgent`` over ``model`` (a ``PROVIDER:MODEL`` spec such as
    ``"openai:gpt-4o-mini"``; ``base_url`` points it at any OpenAI-compatible server). Each has
    ``aclose()`` (its provider client), which ``create_dojo_app``'s lifespan calls."""
    agents: dict[str, DojoAgent] = {}
    for feature in DOJO_FEATURES:
        agent = ModelAgent(
            model,
            system=FEATURE_INSTRUCTIONS[feature],
            tools=[get_weather] if feature == "backend_tool_rendering" else (),
            share_state=feature in _SHARED_STATE,
            base_url=base_url,
            api_key=api_key,
        )
        agents[feature] = _Predicting(agent) if feature == "predictive_state_updates" else agent
    return agents
