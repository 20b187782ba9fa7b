"""The AG-UI dojo's features, scripted (no model), one agent per feature.

The dojo (``ag-ui-protocol/ag-ui`` ``apps/dojo``) reaches the "server starter, all features"
integration at ``<base>/<feature>``; ``create_dojo_app`` serves each agent below at that path
(``POST /agentic_chat`` ...), built only on ``ag_ui.server``'s toolkit. Each agent reacts to the
conversation the way a CopilotKit page drives it:

* ``agentic_chat``: a message naming a background (``"change the background to blue"``) calls
  the frontend tool ``change_background``; the page's answer (a tool message) gets a short
  confirmation; any other message streams ``counting down: 10 9 ... 1 ✓``;
* ``backend_tool_rendering``: the backend tool ``get_weather`` (arguments streamed, then its
  result), then a sentence about the weather, for the page to render the call;
* ``human_in_the_loop``: the frontend tool ``generate_task_steps`` with ten steps streamed
  into its arguments; the user's answer (the steps they kept) makes the agent carry on with
  exactly those steps;
* ``agentic_generative_ui``: a plan as ``STATE_SNAPSHOT``, each step completed by a
  ``STATE_DELTA``;
* ``tool_based_generative_ui``: the frontend tool ``generate_haiku`` (Japanese and English
  lines), answered by the page's rendering;
* ``shared_state``: the recipe in the shared state: the agent reads what the page holds (what
  the user edited), completes it and sends the result as ``STATE_SNAPSHOT`` (``_commit`` says
  why not as a delta), and lists every ingredient back in text;
* ``predictive_state_updates``: ``CUSTOM`` ``PredictState`` tells the page that the
  ``document`` argument of ``write_document_local`` is the state's ``document``; the story is
  streamed into that argument (a new dog each time the state already holds a story), then
  ``confirm_changes`` asks the user; an accepted change is committed to the state.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Optional

import anyio

from ag_ui.core import Message, RunAgentInput, StateDeltaEvent, ToolMessage
from ag_ui.server import RunContext

__all__ = [
    "BACKGROUND_TOOL",
    "CONFIRM_TOOL",
    "DEFAULT_RECIPE",
    "DOCUMENT_TOOL",
    "DOJO_FEATURES",
    "HAIKU",
    "HAIKU_TOOL",
    "STEPS_TOOL",
    "WEATHER_TOOL",
    "scripted_dojo_agents",
]

DojoAgent = Callable[[RunAgentInput, RunContext], Awaitable[None]]

DOJO_FEATURES = (
    "agentic_chat",
    "backend_tool_rendering",
    "human_in_the_loop",
    "agentic_generative_ui",
    "tool_based_generative_ui",
    "shared_state",
    "predictive_state_updates",
)
"""The features, in the dojo's menu order; each is served at ``/<feature>``."""

BACKGROUND_TOOL = "change_background"
WEATHER_TOOL = "get_weather"
STEPS_TOOL = "generate_task_steps"
HAIKU_TOOL = "generate_haiku"
DOCUMENT_TOOL = "write_document_local"
CONFIRM_TOOL = "confirm_changes"

HAIKU: dict[str, list[str]] = {
    "japanese": ["古池や", "蛙飛び込む", "水の音"],
    "english": ["An old silent pond", "A frog jumps into the pond", "Splash! Silence again."],
}
"""Bashō's frog, the haiku the scripted ``generate_haiku`` call writes."""

DEFAULT_RECIPE: dict[str, Any] = {
    "title": "Spicy lettuce wraps",
    "skill_level": "Advanced",
    "special_preferences": ["Low Carb", "Spicy"],
    "cooking_time": "15 min",
    "ingredients": [
        {"icon": "🍗", "name": "chicken breast", "amount": "1"},
        {"icon": "🌶️", "name": "chili powder", "amount": "1 tsp"},
        {"icon": "🧂", "name": "Salt", "amount": "a pinch"},
        {"icon": "🥬", "name": "Lettuce leaves", "amount": "handful"},
    ],
    "instructions": [
        "Season chicken with chili powder and salt.",
        "Sear until fully cooked.",
        "Slice and wrap in lettuce.",
    ],
}
"""What the scripted chef cooks: the ingredients it adds to whatever the page holds."""

_STEP_COUNT = 10
_NAMED_COLOURS = (
    "red",
    "orange",
    "yellow",
    "green",
    "blue",
    "purple",
    "pink",
    "black",
    "white",
    "gray",
    "teal",
)
_GRADIENT = "linear-gradient(135deg, #667eea 0%, #764ba2 100%)"
_DOG_NAMES = ("Rex", "Buddy", "Max", "Charlie")


def _last_message(run_input: RunAgentInput) -> Optional[Message]:
    return run_input.messages[-1] if run_input.messages else None


def _answered_tool(run_input: RunAgentInput) -> Optional[ToolMessage]:
    """The tool message the run continues from, when the conversation ends with one."""
    last = _last_message(run_input)
    return last if isinstance(last, ToolMessage) else None


def _tool_payload(message: ToolMessage) -> Any:
    """A tool message's content as JSON when it is JSON, else the text."""
    content = message.content if isinstance(message.content, str) else ""
    try:
        return json.loads(content)
    except ValueError:
        return content


async def _pieces(pieces: list[str], delay: float) -> AsyncIterator[str]:
    """``pieces`` one by one, ``delay`` seconds apart (so a browser sees them arrive)."""
    for index, piece in enumerate(pieces):
        if index and delay:
            await anyio.sleep(delay)
        yield piece


def _background(text: str) -> Optional[str]:
    """The CSS background a message asks for, or ``None`` when it asks for none."""
    lowered = text.lower()
    if "background" not in lowered and lowered.strip() != "tool":
        return None
    hex_colour = re.search(r"#[0-9a-f]{3,8}\b", lowered)
    if hex_colour:
        return hex_colour.group(0)
    for colour in _NAMED_COLOURS:
        if re.search(rf"\b{colour}\b", lowered):
            return colour
    return _GRADIENT


def make_agentic_chat(delay: float) -> DojoAgent:
    async def agentic_chat(run_input: RunAgentInput, ctx: RunContext) -> None:
        if _answered_tool(run_input) is not None:
            await ctx.say(["background changed ", "✓"])
            return
        background = _background(ctx.last_user_text())
        if background is not None:
            await ctx.call_tool(BACKGROUND_TOOL, {"background": background})
            return
        countdown = ["counting down: "] + [f"{n}  " for n in range(10, 0, -1)] + ["✓"]
        await ctx.say(_pieces(countdown, delay))

    return agentic_chat


def _city(text: str) -> str:
    match = re.search(r"\b(?:in|for|at)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)", text)
    return match.group(1) if match else "San Francisco"


def make_backend_tool_rendering(delay: float) -> DojoAgent:
    async def backend_tool_rendering(run_input: RunAgentInput, ctx: RunContext) -> None:
        city = _city(ctx.last_user_text())
        arguments = json.dumps({"city": city})
        half = len(arguments) // 2
        call_id = await ctx.call_tool(
            WEATHER_TOOL, _pieces([arguments[:half], arguments[half:]], delay)
        )
        if delay:
            await anyio.sleep(delay)
        weather = {
            "city": city,
            "conditions": "sunny",
            "temperature": 20,
            "humidity": 60,
            "wind_speed": 10,
            "feels_like": 21,
        }
        await ctx.tool_result(call_id, weather)
        await ctx.say([f"It is sunny in {city}: ", "20 °C, humidity 60%, wind 10 km/h."])

    return backend_tool_rendering


def _kept_steps(payload: Any) -> Optional[list[str]]:
    """The step descriptions the user kept, from the page's answer to ``generate_task_steps``
    (``{"accepted": true, "steps": [{"description", "status"}...]}``, or the list itself);
    ``None`` when the answer is not a list of steps (the user rejected the plan, or answered in
    words)."""
    if isinstance(payload, Mapping) and payload.get("accepted") is False:
        return None
    steps = payload.get("steps") if isinstance(payload, Mapping) else payload
    if not isinstance(steps, list):
        return None
    kept: list[str] = []
    for step in steps:
        if isinstance(step, Mapping) and step.get("status", "enabled") == "enabled":
            kept.append(str(step.get("description", "")))
        elif isinstance(step, str):
            kept.append(step)
    return kept


def make_human_in_the_loop(delay: float) -> DojoAgent:
    async def human_in_the_loop(run_input: RunAgentInput, ctx: RunContext) -> None:
        answer = _answered_tool(run_input)
        if answer is not None:
            kept = _kept_steps(_tool_payload(answer))
            if kept is None:
                await ctx.say(["Understood: ", "I will not carry out that plan."])
            elif not kept:
                await ctx.say(["You kept no steps, ", "so there is nothing to do."])
            else:
                listed = ", ".join(kept)
                await ctx.say(
                    _pieces(
                        [f"Ok! I'm working on it: {len(kept)} steps ", f"({listed}).", " Done ✓"],
                        delay,
                    )
                )
            return
        pieces = ['{"steps":[']
        for index in range(_STEP_COUNT):
            step = json.dumps({"description": f"Step {index + 1}", "status": "enabled"})
            pieces.append(step + ("," if index < _STEP_COUNT - 1 else ""))
        pieces.append("]}")
        await ctx.call_tool(STEPS_TOOL, _pieces(pieces, delay))

    return human_in_the_loop


def make_agentic_generative_ui(delay: float) -> DojoAgent:
    async def agentic_generative_ui(run_input: RunAgentInput, ctx: RunContext) -> None:
        steps = [
            {"description": f"Step {index + 1}", "status": "pending"}
            for index in range(_STEP_COUNT)
        ]
        await ctx.state.snapshot({"steps": steps})
        for index in range(_STEP_COUNT):
            if delay:
                await anyio.sleep(delay)
            # One operation naming the one status that changed (a diff of the lists would
            # replace the whole list), as a page animating one step at a time expects.
            change = {"op": "replace", "path": f"/steps/{index}/status", "value": "completed"}
            await ctx.emit(StateDeltaEvent(delta=[change]))
        await ctx.say([f"All {_STEP_COUNT} steps ", "are completed ✓"])

    return agentic_generative_ui


def make_tool_based_generative_ui(delay: float) -> DojoAgent:
    async def tool_based_generative_ui(run_input: RunAgentInput, ctx: RunContext) -> None:
        if _answered_tool(run_input) is not None:
            await ctx.say(["Haiku created"])
            return
        arguments = json.dumps(HAIKU, ensure_ascii=False)
        cut = arguments.index('"english"')
        await ctx.call_tool(HAIKU_TOOL, _pieces([arguments[:cut], arguments[cut:]], delay))

    return tool_based_generative_ui


def _merged_recipe(current: Any) -> dict[str, Any]:
    """The page's recipe with the chef's ingredients added (the user's own are kept, by name)
    and the chef's method; the fields the page left empty take the chef's values."""
    recipe = dict(current) if isinstance(current, Mapping) else {}
    merged: dict[str, Any] = dict(DEFAULT_RECIPE)
    merged.update({key: value for key, value in recipe.items() if value not in (None, "", [])})
    ingredients = [dict(item) for item in recipe.get("ingredients") or [] if isinstance(item, dict)]
    names = {str(item.get("name", "")).strip().lower() for item in ingredients}
    for item in DEFAULT_RECIPE["ingredients"]:
        if item["name"].lower() not in names:
            ingredients.append(dict(item))
    merged["ingredients"] = ingredients
    merged["instructions"] = list(DEFAULT_RECIPE["instructions"])
    return merged


async def _commit(ctx: RunContext, changes: Mapping[str, Any]) -> None:
    """Merge ``changes`` into the state the page sent and send the result as STATE_SNAPSHOT
    (nothing when nothing changed). Not as a STATE_DELTA, though one would be legal: the
    CopilotKit runtime (1.75, its default in-memory runner) compacts each run's state events
    starting from ``{}`` rather than from the run's input state, and a delta that replaces a
    key the page sent throws there and stops the runtime's Node process."""
    state = ctx.state.current
    base = dict(state) if isinstance(state, Mapping) else {}
    merged = {**base, **changes}
    if merged != state:
        await ctx.state.snapshot(merged)


def make_shared_state(delay: float) -> DojoAgent:
    async def shared_state(run_input: RunAgentInput, ctx: RunContext) -> None:
        state = ctx.state.current
        current = state.get("recipe") if isinstance(state, Mapping) else None
        recipe = _merged_recipe(current)
        await _commit(ctx, {"recipe": recipe})
        names = [str(item.get("name", "")) for item in recipe["ingredients"]]
        await ctx.say(
            _pieces([f"Your recipe has {len(names)} ingredients: ", ", ".join(names) + "."], delay)
        )

    return shared_state


def _story(run_input: RunAgentInput, current: Any) -> str:
    """The story to write: about the next dog after the one of the document the state holds
    (so "change the dog's name" changes it), else about the thread's dog."""
    document = current.get("document") if isinstance(current, Mapping) else None
    named = re.search(r"a dog named (\w+)", document) if isinstance(document, str) else None
    if named and named.group(1) in _DOG_NAMES:
        name = _DOG_NAMES[(_DOG_NAMES.index(named.group(1)) + 1) % len(_DOG_NAMES)]
    else:
        name = _DOG_NAMES[sum(map(ord, run_input.thread_id)) % len(_DOG_NAMES)]
    return f"Once upon a time, there was a dog named {name}. {name} was a very good dog."


def _accepted(payload: Any) -> bool:
    """Whether the page's answer to ``confirm_changes`` accepts the document."""
    if isinstance(payload, Mapping):
        return bool(payload.get("accepted", payload.get("approved", False)))
    if isinstance(payload, bool):
        return payload
    return str(payload).strip().lower() in ("accepted", "approved", "yes", "true", "confirmed")


def _written_document(run_input: RunAgentInput) -> Optional[str]:
    """The document the last ``write_document_local`` call of the conversation wrote."""
    for message in reversed(run_input.messages):
        for call in getattr(message, "tool_calls", None) or []:
            if call.function.name == DOCUMENT_TOOL:
                try:
                    arguments = json.loads(call.function.arguments)
                except ValueError:
                    return None
                document = arguments.get("document") if isinstance(arguments, dict) else None
                return document if isinstance(document, str) else None
    return None


def _answer_to(run_input: RunAgentInput, tool_name: str) -> Optional[ToolMessage]:
    """The tool message answering the conversation's last call of ``tool_name``. A client may
    answer several calls of one turn (CopilotKit closes a call the page did not answer with
    a result of its own), so the answer is found by the call's id, not by its place."""
    call_ids = [
        call.id
        for message in run_input.messages
        for call in getattr(message, "tool_calls", None) or []
        if call.function.name == tool_name
    ]
    if not call_ids:
        return None
    for message in reversed(run_input.messages):
        if isinstance(message, ToolMessage) and message.tool_call_id == call_ids[-1]:
            return message
    return None


def make_predictive_state_updates(delay: float) -> DojoAgent:
    async def predictive_state_updates(run_input: RunAgentInput, ctx: RunContext) -> None:
        answer = _answered_tool(run_input)
        if answer is not None:
            answer = _answer_to(run_input, CONFIRM_TOOL) or answer
            document = _written_document(run_input)
            if _accepted(_tool_payload(answer)) and document is not None:
                await _commit(ctx, {"document": document})
                await ctx.say(["Ok! ", "The document is saved."])
            else:
                await ctx.say(["Ok! ", "I left the document as it was."])
            return
        await ctx.custom(
            "PredictState",
            [{"state_key": "document", "tool": DOCUMENT_TOOL, "tool_argument": "document"}],
        )
        story = _story(run_input, ctx.state.current)
        # The escaped story is cut at its spaces, so every piece is a run of whole JSON text.
        words = json.dumps(story)[1:-1].split(" ")
        pieces = ['{"document":"'] + [word + " " for word in words[:-1]] + [words[-1], '"}']
        await ctx.call_tool(DOCUMENT_TOOL, _pieces(pieces, delay))
        await ctx.call_tool(CONFIRM_TOOL, {})

    return predictive_state_updates


_FACTORIES: dict[str, Callable[[float], DojoAgent]] = {
    "agentic_chat": make_agentic_chat,
    "backend_tool_rendering": make_backend_tool_rendering,
    "human_in_the_loop": make_human_in_the_loop,
    "agentic_generative_ui": make_agentic_generative_ui,
    "tool_based_generative_ui": make_tool_based_generative_ui,
    "shared_state": make_shared_state,
    "predictive_state_updates": make_predictive_state_updates,
}


def scripted_dojo_agents(*, delay: float = 0.0) -> dict[str, DojoAgent]:
    """Every feature's scripted agent, by feature name; ``delay`` seconds between pieces."""
    if delay < 0:
        raise ValueError(f"delay must be at least 0 seconds, got {delay}")
    return {feature: _FACTORIES[feature](delay) for feature in DOJO_FEATURES}
