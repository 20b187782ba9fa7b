"""pydantic-ai's AG-UI adapter (``AGUIAdapter``) serving an agent with a scripted ``FunctionModel``.

POST /agent (AG-UI), GET /health. Deterministic: the model reacts to the last user message, the
way a conformance grader can drive it:

* ``weather ...``: the backend tool ``get_weather`` ({"city": "Paris"}), then text;
* ``frontend ...``: calls the first tool the client offered in ``RunAgentInput.tools`` with
  ``{"value": "blue"}`` (the run ends with the call pending); once the client posts the tool
  result, text quoting it;
* ``state ...``: the backend tool ``bump_counter`` increments ``state.counter`` and sends a
  ``STATE_SNAPSHOT``, then text;
* ``book ...``: the tool ``book_table`` requires approval: the run ends with an interrupt
  outcome; resumed with ``{"approved": true}`` it books, then text;
* anything else: ``Hello from pydantic-ai!`` in three pieces.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from _serve import health, serve
from pydantic import BaseModel, ConfigDict
from pydantic_ai import Agent, DeferredToolRequests, RunContext, ToolReturn
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.ui import StateDeps
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ag_ui.core import EventType, StateSnapshotEvent

BACKEND_TOOLS = {"get_weather", "bump_counter", "book_table"}


class SharedState(BaseModel):
    model_config = ConfigDict(extra="allow")
    counter: int = 0


def _last_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content.strip().lower()
    return ""


def _tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    last = messages[-1] if messages else None
    if not isinstance(last, ModelRequest):
        return []
    return [part for part in last.parts if isinstance(part, ToolReturnPart)]


def _call(name: str, arguments: dict[str, Any], call_id: str) -> DeltaToolCalls:
    return {0: DeltaToolCall(name=name, json_args=json.dumps(arguments), tool_call_id=call_id)}


async def scripted(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    prompt = _last_prompt(messages)
    returns = _tool_returns(messages)
    if returns:
        content = returns[-1].model_response_str()
        for piece in ("The tool ", f"{returns[-1].tool_name} said: ", content):
            yield piece
        return
    if prompt.startswith("weather"):
        yield _call("get_weather", {"city": "Paris"}, "call-weather")
    elif prompt.startswith("frontend"):
        offered = [t.name for t in info.function_tools if t.name not in BACKEND_TOOLS]
        if not offered:
            yield "No frontend tool was offered."
            return
        yield _call(offered[0], {"value": "blue"}, "call-frontend")
    elif prompt.startswith("state"):
        yield _call("bump_counter", {}, "call-state")
    elif prompt.startswith("book"):
        yield _call("book_table", {"people": 2}, "call-book")
    else:
        for piece in ("Hello ", "from ", "pydantic-ai!"):
            yield piece


agent: Agent[StateDeps[SharedState], str | DeferredToolRequests] = Agent(
    FunctionModel(stream_function=scripted),
    deps_type=StateDeps[SharedState],
    output_type=[str, DeferredToolRequests],  # approval-required tools end the run as interrupts
)


@agent.tool_plain
def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "conditions": "sunny", "temperature_c": 21}


@agent.tool
def bump_counter(ctx: RunContext[StateDeps[SharedState]]) -> ToolReturn:
    """Adds one to the shared counter."""
    ctx.deps.state.counter += 1
    snapshot = StateSnapshotEvent(
        type=EventType.STATE_SNAPSHOT, snapshot=ctx.deps.state.model_dump()
    )
    return ToolReturn(return_value=f"counter={ctx.deps.state.counter}", metadata=[snapshot])


@agent.tool_plain(requires_approval=True)
def book_table(people: int) -> str:
    """Books a table (needs the user's approval)."""
    return f"booked a table for {people}"


async def run(request: Request) -> Response:
    return await AGUIAdapter.dispatch_request(request, agent=agent, deps=StateDeps(SharedState()))


app = Starlette(
    routes=[Route("/agent", run, methods=["POST"]), Route("/health", health, methods=["GET"])]
)

if __name__ == "__main__":
    serve(app)
