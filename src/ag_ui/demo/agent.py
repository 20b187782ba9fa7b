"""The demo agent: deterministic, offline, built only on ``ag_ui.server``'s public toolkit.

It reacts to the last user message:

* ``weather in <city>``: reasoning, a step with activity progress, the backend tool
  ``get_weather`` (streamed arguments, then its result), a state delta, a streamed answer;
* ``book <anything>``: the frontend tool ``confirm_booking``; the run ends with an interrupt
  and the next run resumes it (``resume`` = ``{"approved": true|false}``, or cancelled). A
  client that ignores interrupts and runs the tool itself (Microsoft Agent Framework's does)
  answers with a tool message instead: ``{"approved": true|false}`` (or ``true``/``false``) is
  taken as the answer; any other content ends the run with ``RUN_ERROR`` ``resume_required``,
  so such a client never books again in a loop;
* ``where am I``: the frontend tool ``get_location``, when the client offers it (in
  ``RunAgentInput.tools``; ``HttpAgent``'s client-side tools, ``agui chat --tool
  get_location``): the run ends with the call pending; the client's tool message (the city, as
  text or ``{"city": ...}``) continues the thread with the weather there (a tool message with
  ``error`` set gets an apology). Without the tool offered, it says how to offer it;
* ``call the <name> tool with {...}``: any frontend tool the client offers, called with those
  JSON arguments (``{}`` without them); the run ends with the call pending, and the client's
  tool message continues the thread with what the tool returned (the call is not made again;
  a user message sent with the result is answered after it, as usual).
  A tool the client did not offer, or arguments that are not a JSON object, get an answer
  saying so. This is how ``agui validate``'s ``tools`` scenario is answered;
* ``research <topic>``: a subagent that reasons and reports back;
* ``crash``: the agent raises, to show the safe ``RUN_ERROR``;
* anything else: a streamed greeting listing these.

Every run counts ``turns`` in the shared state (sent as JSON Patch deltas).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio

from ag_ui.core import (
    AssistantMessage,
    Interrupt,
    Message,
    ResumeEntry,
    RunAgentInput,
    RunError,
    Tool,
    ToolMessage,
    UserMessage,
)
from ag_ui.server import RunContext

__all__ = [
    "BOOKING_TOOL",
    "LOCATION_TOOL",
    "LOCATION_TOOL_DEFINITION",
    "WEATHER_TOOL",
    "DemoAgent",
    "booking_interrupt_id",
    "demo_agent",
    "lookup_weather",
    "make_demo_agent",
    "pending_booking_calls",
]

WEATHER_TOOL = "get_weather"
BOOKING_TOOL = "confirm_booking"
LOCATION_TOOL = "get_location"
LOCATION_TOOL_DEFINITION = Tool(
    name=LOCATION_TOOL,
    description="The user's current city, as the user's device knows it",
    parameters={"type": "object", "properties": {}},
)
"""The frontend tool the demo agent calls for ``where am I`` (the client answers it)."""
_INTERRUPT_PREFIX = "confirm-"
_CONDITIONS = ("sunny", "cloudy", "rainy", "windy", "foggy", "snowy")

DemoAgent = Callable[[RunAgentInput, RunContext], Awaitable[None]]

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}},
    "required": ["approved"],
}


def lookup_weather(city: str) -> dict[str, Any]:
    """The demo's weather "service": the same city always gets the same weather."""
    seed = sum(ord(char) for char in city.lower())
    return {
        "city": city,
        "temperature_c": 5 + seed % 25,
        "conditions": _CONDITIONS[seed % len(_CONDITIONS)],
    }


def booking_interrupt_id(tool_call_id: str) -> str:
    """The interrupt id for a booking tool call (the id carries the call, so no server state)."""
    return _INTERRUPT_PREFIX + tool_call_id


def pending_booking_calls(messages: list[Message]) -> list[str]:
    """Booking tool calls in the conversation that no tool message answers yet."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [
        call.id
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or []
        if call.function.name == BOOKING_TOOL and call.id not in answered
    ]


def _tool_answer(messages: list[Message], tool: str) -> ToolMessage | None:
    """The tool message answering a call of ``tool``, when it is the conversation's last
    message: how a client answers a tool it runs itself (``get_location``), or a booking when
    it ignores interrupts (it runs ``confirm_booking`` and posts the result without
    ``resume``)."""
    if not messages or not isinstance(messages[-1], ToolMessage):
        return None
    answer = messages[-1]
    calls = {
        call.id
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or []
        if call.function.name == tool
    }
    return answer if answer.tool_call_id in calls else None


def _city_of(content: object) -> str:
    """The city in a ``get_location`` answer: ``{"city": ...}`` JSON or the text itself."""
    text = content if isinstance(content, str) else ""
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    if isinstance(value, dict):
        value = value.get("city", "")
    return str(value).strip(" \t\n.") if value else ""


def _approval(content: object) -> bool | None:
    """``{"approved": bool}`` or a bare JSON boolean as a decision; None for anything else."""
    if not isinstance(content, str):
        return None
    try:
        value = json.loads(content)
    except ValueError:
        return None
    if isinstance(value, dict):
        value = value.get("approved")
    return value if isinstance(value, bool) else None


_CALL_REQUEST = re.compile(
    r"\bcall\s+(?:the\s+)?(?P<name>[A-Za-z_][\w.-]*)\s+tool\b(?:\s+with\s+(?P<args>\{.*\}))?",
    re.IGNORECASE | re.DOTALL,
)


def _client_tool_answers(
    messages: list[Message], own: set[str]
) -> tuple[list[tuple[str, ToolMessage]], bool]:
    """The tool messages that came back since the agent last spoke, answering calls of client
    tools (not the demo's own, in ``own``: those have their handlers), each with the tool's
    name; and whether a user message came with them (``agui validate`` sends one)."""
    newest = len(messages)
    while newest and isinstance(messages[newest - 1], UserMessage):
        newest -= 1
    first = newest
    while first and isinstance(messages[first - 1], ToolMessage):
        first -= 1
    names = {
        call.id: call.function.name
        for message in messages[:first]
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or []
    }
    answers: list[tuple[str, ToolMessage]] = []
    for message in messages[first:newest]:
        name = names.get(message.tool_call_id) if isinstance(message, ToolMessage) else None
        if isinstance(message, ToolMessage) and name is not None and name not in own:
            answers.append((name, message))
    return answers, newest < len(messages)


def _words(text: str) -> list[str]:
    """Split text into word-sized pieces (spaces kept) to stream it like a model would."""
    return re.findall(r"\S+\s*|\s+", text)


def _city(text: str) -> str:
    match = re.search(r"\bin\s+([A-Za-z][A-Za-z .'-]*)", text)
    city = match.group(1).strip(" .'-") if match else "Paris"
    return city.title() if city else "Paris"


def make_demo_agent(*, delay: float = 0.0) -> DemoAgent:
    """The demo agent; ``delay`` seconds between streamed pieces (0 for tests, ~0.03 to watch)."""

    async def pieces(text: str) -> AsyncIterator[str]:
        for piece in _words(text):
            if delay:
                await anyio.sleep(delay)
            yield piece

    async def weather(ctx: RunContext, text: str) -> None:
        city = _city(text)
        await ctx.think(pieces(f"The user wants the weather in {city}. I'll call {WEATHER_TOOL}."))
        async with ctx.step("lookup_weather"):
            progress = await ctx.activity(
                "progress", {"title": f"Looking up the weather in {city}", "percent": 0}
            )
            arguments = json.dumps({"city": city})
            call_id = await ctx.call_tool(WEATHER_TOOL, [arguments[:9], arguments[9:]])
            await progress.update({**progress.content, "percent": 50})
            report = lookup_weather(city)
            await ctx.tool_result(call_id, report)
            await progress.update({**progress.content, "percent": 100, "done": True})
        state = ctx.state.current
        await ctx.state.update(
            {**state, "weather": {**state.get("weather", {}), city: report}, "last_city": city}
        )
        async with ctx.step("answer"):
            await ctx.say(
                pieces(f"It is {report['temperature_c']}°C and {report['conditions']} in {city}.")
            )

    async def book(ctx: RunContext, text: str) -> None:
        said = await ctx.say(pieces("I can book that, but I need your confirmation first."))
        call_id = await ctx.call_tool(BOOKING_TOOL, {"request": text}, parent_message_id=said)
        await ctx.state.update({**ctx.state.current, "booking": {"status": "awaiting"}})
        await ctx.interrupt(
            Interrupt(
                id=booking_interrupt_id(call_id),
                reason="tool_call",
                tool_call_id=call_id,
                message=f"Confirm the booking: {text}",
                response_schema=APPROVAL_SCHEMA,
            )
        )

    async def resume(ctx: RunContext, entries: list[ResumeEntry]) -> None:
        for entry in entries:
            if not entry.interrupt_id.startswith(_INTERRUPT_PREFIX):
                raise RunError(
                    f"unknown interrupt id {entry.interrupt_id!r}", code="invalid_resume"
                )
            call_id = entry.interrupt_id[len(_INTERRUPT_PREFIX) :]
            if entry.status == "cancelled":
                approved = False
                await ctx.tool_result(call_id, {"cancelled": True})
            else:
                payload = entry.payload
                if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
                    raise RunError(
                        'the resume payload must be {"approved": true|false}',
                        code="invalid_resume_payload",
                    )
                approved = payload["approved"]
                await ctx.tool_result(call_id, {"approved": approved})
            status = "confirmed" if approved else "declined"
            await ctx.state.update({**ctx.state.current, "booking": {"status": status}})
            answer = "Done: your booking is confirmed." if approved else "OK, I did not book it."
            await ctx.say(pieces(answer))

    async def answered_by_tool(ctx: RunContext, answer: ToolMessage) -> None:
        approved = _approval(answer.content)
        if approved is None:
            raise RunError(
                f"the tool message answering {BOOKING_TOOL} call {answer.tool_call_id!r} must be "
                '{"approved": true|false}; or resume the interrupt '
                f"{booking_interrupt_id(answer.tool_call_id)!r} with that payload",
                code="resume_required",
            )
        # The client already answered the call with its tool message: no TOOL_CALL_RESULT here.
        status = "confirmed" if approved else "declined"
        await ctx.state.update({**ctx.state.current, "booking": {"status": status}})
        answer_text = "Done: your booking is confirmed." if approved else "OK, I did not book it."
        await ctx.say(pieces(answer_text))

    async def locate(ctx: RunContext, run_input: RunAgentInput) -> None:
        if not any(tool.name == LOCATION_TOOL for tool in run_input.tools):
            await ctx.say(
                pieces(
                    f"I could tell where you are if your client offered a {LOCATION_TOOL} tool "
                    "(HttpAgent's add_tool, or agui chat --tool get_location)."
                )
            )
            return
        said = await ctx.say(pieces("Let me ask your device."))
        # No result from here: the call is the client's to answer, so the run ends with it
        # pending, and the client's tool message starts the next run.
        await ctx.call_tool(LOCATION_TOOL, {}, parent_message_id=said)

    async def located(ctx: RunContext, answer: ToolMessage) -> None:
        city = _city_of(answer.content)
        if answer.error or not city:
            reason = answer.error or "the answer named no city"
            await ctx.say(pieces(f"Sorry, I could not find out where you are ({reason})."))
            return
        report = lookup_weather(city.title())
        await ctx.state.update({**ctx.state.current, "last_city": report["city"]})
        await ctx.say(
            pieces(
                f"You are in {report['city']}, where it is {report['temperature_c']}°C and "
                f"{report['conditions']}."
            )
        )

    async def call_offered(ctx: RunContext, run_input: RunAgentInput, request: Any) -> None:
        name = request.group("name")
        offered = [tool.name for tool in run_input.tools]
        if name not in offered:
            listed = ", ".join(offered) if offered else "none"
            await ctx.say(
                pieces(f"Your client did not offer a tool named {name} (offered: {listed}).")
            )
            return
        try:
            arguments = json.loads(request.group("args") or "{}")
        except ValueError as exc:
            arguments = exc
        if not isinstance(arguments, dict):
            await ctx.say(
                pieces(f"I did not call {name}: its arguments must be a JSON object ({arguments}).")
            )
            return
        said = await ctx.say(pieces(f"Calling {name}."))
        # The client runs its tool: the run ends with the call pending, and the tool message
        # the client sends back starts the next run (answered by ``tool_returned``).
        await ctx.call_tool(name, arguments, parent_message_id=said)

    async def tool_returned(ctx: RunContext, name: str, answer: ToolMessage) -> None:
        if answer.error:
            await ctx.say(pieces(f"{name} failed: {answer.error}"))
            return
        content = answer.content if isinstance(answer.content, str) else str(answer.content)
        await ctx.say(pieces(f"{name} returned: {content}"))

    async def research(ctx: RunContext, text: str) -> None:
        topic = text.split("research", 1)[1].strip(" ?.!") or "AG-UI"
        async with ctx.subagent("researcher", description="Looks things up") as sub:
            await sub.think(pieces(f"Collecting what I know about {topic}."))
            summary = f"{topic} is worth a closer look; here are three notes."
            await sub.say(pieces(summary))
            sub.result = {"topic": topic, "notes": 3}
        await ctx.say(pieces(f"My researcher looked into {topic}."))

    async def greet(ctx: RunContext, text: str) -> None:
        echoed = f' You said: "{text}".' if text else ""
        await ctx.say(
            pieces(
                f"Hello from the AG-UI demo agent!{echoed} Try 'weather in Paris', "
                "'book a table for two', 'where am I?' or 'research protocols'."
            )
        )

    async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
        if not isinstance(run_input.state, dict):
            await ctx.state.snapshot({"turns": 0})
        state = ctx.state.current
        await ctx.state.update({**state, "turns": int(state.get("turns", 0)) + 1})
        if ctx.resume:
            await resume(ctx, ctx.resume)
            return
        tool_answer = _tool_answer(ctx.messages, BOOKING_TOOL)
        if tool_answer is not None:
            await answered_by_tool(ctx, tool_answer)
            return
        location = _tool_answer(ctx.messages, LOCATION_TOOL)
        if location is not None:
            await located(ctx, location)
            return
        returned, user_spoke = _client_tool_answers(
            ctx.messages, {WEATHER_TOOL, BOOKING_TOOL, LOCATION_TOOL}
        )
        for name, answer in returned:
            await tool_returned(ctx, name, answer)
        if returned and not user_spoke:
            return  # else the user's message sent with the results is answered too
        pending = pending_booking_calls(ctx.messages)
        if pending:
            # Interrupts must be answered before the thread moves on (PROTOCOL.md §2.6 rule 4).
            ids = ", ".join(booking_interrupt_id(call_id) for call_id in pending)
            raise RunError(
                f"this thread is waiting for an answer to {ids}; resume it first",
                code="resume_required",
            )
        text = ctx.last_user_text().strip()
        lowered = text.lower()
        if re.search(r"\bwhere am i\b", lowered):
            await locate(ctx, run_input)
            return
        request = _CALL_REQUEST.search(text)
        if request is not None:
            await call_offered(ctx, run_input, request)
            return
        if "crash" in lowered:
            raise RuntimeError("the demo agent crashed on purpose (this text stays in the log)")
        if "weather" in lowered:
            await weather(ctx, text)
        elif re.search(r"\b(book|reserve)\b", lowered):
            await book(ctx, text)
        elif "research" in lowered:
            await research(ctx, text)
        else:
            await greet(ctx, text)

    return agent


demo_agent = make_demo_agent()
"""The demo agent with no pacing (what tests use)."""
