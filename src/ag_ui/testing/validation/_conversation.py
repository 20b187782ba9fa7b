"""The conversation scenarios: plain text, multi-turn, state, a frontend tool, an interrupt."""

from __future__ import annotations

from typing import Any

from ag_ui.core.events import EventType
from ag_ui.testing.conversation import Conversation
from ag_ui.testing.result import RunResult
from ag_ui.testing.validation._report import ScenarioResult
from ag_ui.testing.validation._session import (
    Scenario,
    Session,
    event_types,
    sample_payload,
    tool_calls,
)

__all__ = ["ECHO_TOOL", "interrupt", "multi_turn", "state", "text", "tools"]

ECHO_TOOL: dict[str, Any] = {
    "name": "agui_validate_echo",
    "description": "Shows a text to the user. Call it whenever you are asked to.",
    "parameters": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "what to show"}},
        "required": ["text"],
    },
}
TOOL_PROMPT = 'Please call the agui_validate_echo tool with {"text": "ping"}.'
STATE_PROBE: dict[str, Any] = {"aguiValidate": {"probe": "state", "turn": 1}}
_STATE_EVENTS = {"STATE_SNAPSHOT", "STATE_DELTA"}


def follow_up(result: RunResult) -> dict[str, Any]:
    """What a well-behaved client sends with its next message: answers to the tool calls the
    run left pending, and a cancelling resume for its interrupts (always a valid answer)."""
    options: dict[str, Any] = {}
    pending = result.pending_tool_call_ids
    if pending:
        options["tool_results"] = {call_id: {"ok": True} for call_id in pending}
    if result.interrupts:
        options["resume"] = [
            {"interruptId": interrupt["id"], "status": "cancelled"}
            for interrupt in result.interrupts
        ]
    return options


async def text(session: Session) -> ScenarioResult:
    scenario = Scenario("text")
    result = await session.run("text run", session.message_for("text"))
    scenario.graded("text run", result)
    chars = len(result.text)
    note = "" if chars or result.outcome != "success" else " (no assistant text)"
    return scenario.done(
        f"1 run: {len(result.events)} events, outcome {result.outcome}, {chars} characters "
        f"of assistant text{note}"
    )


def _history_problems(scenario: Scenario, label: str, result: RunResult) -> None:
    """Every MESSAGES_SNAPSHOT must keep the messages the client sent, unchanged."""
    if result.input is None:
        return
    sent = [m.model_dump(by_alias=True, mode="json") for m in result.input.messages]
    for index, event in enumerate(result.events):
        if event.type != EventType.MESSAGES_SNAPSHOT:
            continue
        messages: Any = getattr(event, "messages", [])
        snapshot = {
            m.get("id"): m for m in (x.model_dump(by_alias=True, mode="json") for x in messages)
        }
        for message in sent:
            kept = snapshot.get(message["id"])
            problem = None
            if kept is None:
                problem = f"left out the {message['role']} message {message['id']!r}"
            elif kept.get("role") != message["role"]:
                problem = (
                    f"turned message {message['id']!r} from {message['role']} into "
                    f"{kept.get('role')}"
                )
            elif (
                isinstance(message.get("content"), str)
                and kept.get("content") != message["content"]
            ):
                problem = f"changed the content of the {message['role']} message {message['id']!r}"
            if problem is not None:
                scenario.fail(
                    "history.dropped",
                    f"the MESSAGES_SNAPSHOT {problem} (of {len(sent)} messages sent)",
                    run=label,
                    index=index,
                    event_type="MESSAGES_SNAPSHOT",
                )
                return


async def multi_turn(session: Session) -> ScenarioResult:
    scenario = Scenario("multi-turn")
    conversation = session.conversation()
    first = await session.send(conversation, "turn 1", session.message_for("multi-turn"))
    scenario.graded("turn 1", first)
    if first.status >= 300 or not first.verification.ok:
        return scenario.not_exercised("the first turn failed, so there is no history to send")
    _history_problems(scenario, "turn 1", first)
    second = await session.send(
        conversation, "turn 2", session.message_for("multi-turn"), **follow_up(first)
    )
    scenario.graded("turn 2", second, replace="history.refused")
    _history_problems(scenario, "turn 2", second)
    sent = len(second.input.messages) if second.input is not None else 0
    return scenario.done(f"2 runs on one thread; turn 2 sent {sent} messages of history back")


async def state(session: Session) -> ScenarioResult:
    scenario = Scenario("state")
    conversation = session.conversation(state=STATE_PROBE)
    first = await session.send(conversation, "state turn 1", session.message_for("state"))
    scenario.graded("state turn 1", first)
    count = sum(1 for t in first.event_types if t in _STATE_EVENTS)
    if not count:
        return scenario.not_exercised(
            "the agent sent no STATE_SNAPSHOT or STATE_DELTA for the state it was given"
        )
    if not first.ok:
        return scenario.done(f"{count} state events in turn 1")
    second = await session.send(
        conversation, "state turn 2", session.message_for("state"), **follow_up(first)
    )
    scenario.graded("state turn 2", second)
    count += sum(1 for t in second.event_types if t in _STATE_EVENTS)
    return scenario.done(
        f"state sent in; {count} state events applied to it over 2 runs (the second carried the "
        "first's resulting state)"
    )


async def tools(session: Session) -> ScenarioResult:
    scenario = Scenario("tools")
    name = ECHO_TOOL["name"]
    conversation = session.conversation(tools=[ECHO_TOOL])
    first = await session.send(conversation, "tool call", session.message_for("tools", TOOL_PROMPT))
    scenario.graded("tool call", first)
    calls = tool_calls(first)
    ours = [call_id for call_id, tool, _ in calls if tool == name]
    if not ours:
        others = sorted({tool for _, tool, _ in calls})
        called = f" (it called {', '.join(others)})" if others else ""
        return scenario.not_exercised(f"the agent did not call the offered tool {name}{called}")
    session.offered_tool_called = True
    if not first.ok:
        problem = "its stream is not legal" if not first.verification.ok else "the run failed"
        return scenario.done(f"the agent called {name}, but {problem}")
    pending = first.pending_tool_call_ids
    if ours[0] not in pending:
        return scenario.not_exercised(
            f"the agent answered its call of the frontend tool {name} itself (TOOL_CALL_RESULT), "
            "so there was nothing for the client to answer"
        )
    results = {
        call_id: {"text": "ping"} if call_id in ours else {"ok": True} for call_id in pending
    }
    second = await session.send(conversation, "tool result", tool_results=results)
    scenario.graded("tool result", second, replace="tool.round-trip")
    for call_id, _tool, index in tool_calls(second):
        if call_id in results:
            scenario.fail(
                "tool.round-trip",
                f"the run answering tool call {call_id!r} started that same tool call again",
                run="tool result",
                index=index,
                event_type="TOOL_CALL_START",
            )
    return scenario.done(
        f"the agent called {name}; the run carrying its result finished ({second.outcome})"
    )


async def interrupt(session: Session) -> ScenarioResult:
    scenario = Scenario("interrupt")
    if "interrupt" in session.messages:
        asked = await session.send(
            session.conversation(), "interrupting run", session.message_for("interrupt")
        )
        scenario.graded("interrupting run", asked)
        if asked.outcome != "interrupt":
            return scenario.not_exercised(
                f"the run for the interrupt message ended with outcome {asked.outcome}, not an "
                "interrupt"
            )
    interrupted = session.interrupted_runs()
    if not interrupted:
        return scenario.not_exercised(
            "no run ended with an interrupt; give a message that makes the agent ask for "
            "approval (--scenario-message interrupt=TEXT; the demo agent: 'book a table')"
        )
    label, result = interrupted[-1]
    conversation = Conversation.after(session.client, result)
    payloads = {i["id"]: sample_payload(i.get("responseSchema")) for i in result.interrupts}
    resumed = session.remember("resume", await conversation.resume(payloads))
    scenario.graded("resume", resumed, replace="interrupt.resume")
    again = {i["id"] for i in resumed.interrupts} & set(payloads)
    if again:
        scenario.fail(
            "interrupt.resume",
            f"the resumed run ended with the same interrupt(s) again: {', '.join(sorted(again))}",
            run="resume",
            index=len(resumed.events) - 1,
            event_type="RUN_FINISHED",
        )
    ids = ", ".join(sorted(payloads))
    return scenario.done(
        f"resumed the interrupt(s) {ids} of the {label} with payloads from their responseSchema; "
        f"outcome {resumed.outcome}"
    )


def saw_events(session: Session, *types: str) -> bool:
    wanted = set(types)
    return any(event_types(result) & wanted for _, result in session.observed)
