"""The demo agent's scenarios, run in-process through the server toolkit (guard on)."""

from __future__ import annotations

from typing import Any

import pytest

import ag_ui.demo
from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.demo import booking_interrupt_id, demo_agent, lookup_weather
from ag_ui.server import run_agent

pytestmark = pytest.mark.anyio


async def run_demo(text: str | None = None, **extra: Any) -> list[dict[str, Any]]:
    body: dict[str, Any] = {"threadId": "t1", "runId": "r1", "messages": [], **extra}
    if text is not None:
        body["messages"] = [{"id": "u1", "role": "user", "content": text}]
    sent: list[BaseEvent] = []

    async def sink(events: list[BaseEvent]) -> None:
        sent.extend(events)

    await run_agent(demo_agent, RunAgentInput.model_validate(body), sink, debug=True)
    return [event.model_dump(by_alias=True, mode="json") for event in sent]


def text_of(events: list[dict[str, Any]], message_id: str) -> str:
    return "".join(
        e["delta"]
        for e in events
        if e["type"] == "TEXT_MESSAGE_CONTENT" and e["messageId"] == message_id
    )


def test_weather_is_deterministic() -> None:
    assert lookup_weather("Paris") == lookup_weather("paris") | {"city": "Paris"}
    assert lookup_weather("Paris") == {"city": "Paris", "temperature_c": 23, "conditions": "windy"}


async def test_greeting_without_state_starts_with_a_snapshot() -> None:
    events = await run_demo("hello")
    assert [e["type"] for e in events] == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "TEXT_MESSAGE_START",
        *["TEXT_MESSAGE_CONTENT"] * 24,
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert events[1] == {"type": "STATE_SNAPSHOT", "snapshot": {"turns": 0}}
    assert events[2] == {
        "type": "STATE_DELTA",
        "delta": [{"op": "replace", "path": "/turns", "value": 1}],
    }
    assert text_of(events, "msg-r1-1") == (
        "Hello from the AG-UI demo agent! You said: \"hello\". Try 'weather in Paris', "
        "'book a table for two', 'where am I?' or 'research protocols'."
    )


async def test_weather_scenario() -> None:
    events = await run_demo("What's the weather in Paris?", state={"turns": 2})
    report = lookup_weather("Paris")
    structural = [e for e in events if not e["type"].endswith("_CONTENT")]
    assert structural == [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/turns", "value": 3}]},
        {"type": "REASONING_START", "messageId": "reasoning-span-r1-1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "reasoning-r1-2", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_END", "messageId": "reasoning-r1-2"},
        {"type": "REASONING_END", "messageId": "reasoning-span-r1-1"},
        {"type": "STEP_STARTED", "stepName": "lookup_weather"},
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "activity-r1-3",
            "activityType": "progress",
            "content": {"title": "Looking up the weather in Paris", "percent": 0},
        },
        {"type": "TOOL_CALL_START", "toolCallId": "call-r1-4", "toolCallName": "get_weather"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call-r1-4", "delta": '{"city": '},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call-r1-4", "delta": '"Paris"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "call-r1-4"},
        {
            "type": "ACTIVITY_DELTA",
            "messageId": "activity-r1-3",
            "activityType": "progress",
            "patch": [{"op": "replace", "path": "/percent", "value": 50}],
        },
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "result-r1-5",
            "toolCallId": "call-r1-4",
            "content": '{"city":"Paris","temperature_c":23,"conditions":"windy"}',
            "role": "tool",
        },
        {
            "type": "ACTIVITY_DELTA",
            "messageId": "activity-r1-3",
            "activityType": "progress",
            "patch": [
                {"op": "replace", "path": "/percent", "value": 100},
                {"op": "add", "path": "/done", "value": True},
            ],
        },
        {"type": "STEP_FINISHED", "stepName": "lookup_weather"},
        {
            "type": "STATE_DELTA",
            "delta": [
                {"op": "add", "path": "/weather", "value": {"Paris": report}},
                {"op": "add", "path": "/last_city", "value": "Paris"},
            ],
        },
        {"type": "STEP_STARTED", "stepName": "answer"},
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-r1-6", "role": "assistant"},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-r1-6"},
        {"type": "STEP_FINISHED", "stepName": "answer"},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]
    assert text_of(events, "msg-r1-6") == "It is 23°C and windy in Paris."
    reasoning = "".join(e["delta"] for e in events if e["type"] == "REASONING_MESSAGE_CONTENT")
    assert reasoning == "The user wants the weather in Paris. I'll call get_weather."


async def test_booking_interrupts_then_each_resume_answer() -> None:
    first = await run_demo("book a table", state={})
    assert first[-1] == {
        "type": "RUN_FINISHED",
        "threadId": "t1",
        "runId": "r1",
        "outcome": {
            "type": "interrupt",
            "interrupts": [
                {
                    "id": "confirm-call-r1-2",
                    "reason": "tool_call",
                    "message": "Confirm the booking: book a table",
                    "toolCallId": "call-r1-2",
                    "responseSchema": {
                        "type": "object",
                        "properties": {"approved": {"type": "boolean"}},
                        "required": ["approved"],
                    },
                }
            ],
        },
    }
    assert booking_interrupt_id("call-r1-2") == "confirm-call-r1-2"
    for resume, content, status in (
        ({"status": "resolved", "payload": {"approved": True}}, '{"approved":true}', "confirmed"),
        ({"status": "resolved", "payload": {"approved": False}}, '{"approved":false}', "declined"),
        ({"status": "cancelled"}, '{"cancelled":true}', "declined"),
    ):
        events = await run_demo(
            state={"turns": 1, "booking": {"status": "awaiting"}},
            resume=[{"interruptId": "confirm-call-r1-2", **resume}],
        )
        assert events[2] == {
            "type": "TOOL_CALL_RESULT",
            "messageId": "result-r1-1",
            "toolCallId": "call-r1-2",
            "content": content,
            "role": "tool",
        }
        assert events[3] == {
            "type": "STATE_DELTA",
            "delta": [{"op": "replace", "path": "/booking/status", "value": status}],
        }
        assert events[-1]["type"] == "RUN_FINISHED"


@pytest.mark.parametrize(
    ("resume", "code"),
    [
        ({"interruptId": "nope", "status": "resolved", "payload": {}}, "invalid_resume"),
        ({"interruptId": "confirm-c1", "status": "resolved"}, "invalid_resume_payload"),
        (
            {"interruptId": "confirm-c1", "status": "resolved", "payload": {"approved": "y"}},
            "invalid_resume_payload",
        ),
    ],
)
async def test_bad_resume_is_a_run_error(resume: dict[str, Any], code: str) -> None:
    events = await run_demo(state={}, resume=[resume])
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == code


async def test_research_uses_a_subagent() -> None:
    events = await run_demo("research protocols", state={})
    lifecycle = [e for e in events if e["type"].startswith("SUBAGENT")]
    assert lifecycle == [
        {
            "type": "SUBAGENT_STARTED",
            "subagentRunId": "subagent-r1-1",
            "name": "researcher",
            "description": "Looks things up",
        },
        {
            "type": "SUBAGENT_FINISHED",
            "subagentRunId": "subagent-r1-1",
            "result": {"topic": "protocols", "notes": 3},
        },
    ]


async def test_crash_is_a_safe_run_error() -> None:
    events = await run_demo("crash", state={})
    assert events[-1] == {
        "type": "RUN_ERROR",
        "message": "RuntimeError: the demo agent crashed on purpose (this text stays in the log)",
        "code": "agent_error",
    }  # debug=True here; the HTTP tests check the production message


def test_public_surface() -> None:
    assert ag_ui.demo.__all__ == sorted(ag_ui.demo.__all__)
    assert ag_ui.demo.__all__ == [
        "BOOKING_TOOL",
        "DEMO_CAPABILITIES",
        "DOJO_FEATURES",
        "DemoAgent",
        "LOCATION_TOOL",
        "LOCATION_TOOL_DEFINITION",
        "WEATHER_TOOL",
        "booking_interrupt_id",
        "create_demo_app",
        "create_dojo_app",
        "demo_agent",
        "lookup_weather",
        "make_demo_agent",
        "pending_booking_calls",
        "scripted_dojo_agents",
    ]


async def test_a_pending_booking_must_be_resumed_first() -> None:
    pending_call = {
        "id": "a1",
        "role": "assistant",
        "content": "I can book that.",
        "toolCalls": [
            {
                "id": "call-r0-2",
                "type": "function",
                "function": {"name": "confirm_booking", "arguments": "{}"},
            }
        ],
    }
    messages = [
        {"id": "u1", "role": "user", "content": "book a table"},
        pending_call,
        {"id": "u2", "role": "user", "content": "hello?"},
    ]
    events = await run_demo(state={}, messages=messages)
    assert events[-1] == {
        "type": "RUN_ERROR",
        "message": "this thread is waiting for an answer to confirm-call-r0-2; resume it first",
        "code": "resume_required",
    }
    answered = [
        *messages[:2],
        {"id": "t1", "role": "tool", "toolCallId": "call-r0-2", "content": "{}"},
    ]
    events = await run_demo(state={}, messages=[*answered, messages[2]])
    assert events[-1]["type"] == "RUN_FINISHED"


def booking_conversation(answer_content: str) -> list[dict[str, Any]]:
    """What a client that ignores interrupts posts back: the call, answered by a tool message."""
    return [
        {"id": "u1", "role": "user", "content": "book a table"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "call-r0-2",
                    "type": "function",
                    "function": {"name": "confirm_booking", "arguments": "{}"},
                }
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "call-r0-2", "content": answer_content},
    ]


@pytest.mark.parametrize(
    ("content", "status", "said"),
    [
        ('{"approved": true}', "confirmed", "Done: your booking is confirmed."),
        ("false", "declined", "OK, I did not book it."),
    ],
)
async def test_a_tool_message_answering_the_booking_is_the_answer(
    content: str, status: str, said: str
) -> None:
    events = await run_demo(
        state={"booking": {"status": "awaiting"}}, messages=booking_conversation(content)
    )
    kinds = [e["type"] for e in events]
    # No new booking call, no interrupt: the thread moves on.
    assert "TOOL_CALL_START" not in kinds
    assert "TOOL_CALL_RESULT" not in kinds
    assert events[-1] == {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}
    assert {"op": "replace", "path": "/booking/status", "value": status} in [
        op for e in events if e["type"] == "STATE_DELTA" for op in e["delta"]
    ]
    said_id = next(e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START")
    assert text_of(events, said_id) == said


async def test_an_unreadable_tool_answer_ends_with_resume_required() -> None:
    events = await run_demo(state={}, messages=booking_conversation("sure, go ahead"))
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "resume_required"
    assert "confirm-call-r0-2" in events[-1]["message"]
    assert "TOOL_CALL_START" not in [e["type"] for e in events]


LOCATION_DEFINITION = {"name": "get_location", "description": "", "parameters": {}}


async def test_where_am_i_without_the_tool_offered_says_how_to_offer_it() -> None:
    events = await run_demo("Where am I?", state={})
    assert not any(e["type"] == "TOOL_CALL_START" for e in events)
    said = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert "offered a get_location tool" in said
    assert "agui chat --tool get_location" in said


async def test_where_am_i_calls_the_offered_frontend_tool_and_leaves_it_pending() -> None:
    events = await run_demo("Where am I?", state={}, tools=[LOCATION_DEFINITION])
    [start] = [e for e in events if e["type"] == "TOOL_CALL_START"]
    assert start["toolCallName"] == "get_location"
    assert not any(e["type"] == "TOOL_CALL_RESULT" for e in events)
    assert events[-1]["type"] == "RUN_FINISHED"


@pytest.mark.parametrize(
    ("content", "error", "said"),
    [
        ('{"city": "lisbon"}', None, "You are in Lisbon, where it is 27°C and snowy."),
        ("Oslo", None, "You are in Oslo, where it is "),
        ("denied", "no permission", "Sorry, I could not find out where you are (no permission)."),
        ("", None, "Sorry, I could not find out where you are (the answer named no city)."),
    ],
)
async def test_the_clients_location_answer_continues_the_thread(
    content: str, error: str | None, said: str
) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "get_location", "arguments": "{}"}}
    answer: dict[str, Any] = {"id": "t1", "role": "tool", "toolCallId": "c1", "content": content}
    if error:
        answer["error"] = error
    messages = [
        {"id": "u1", "role": "user", "content": "where am I"},
        {"id": "a1", "role": "assistant", "content": "Let me ask", "toolCalls": [call]},
        answer,
    ]
    events = await run_demo(None, state={}, messages=messages, tools=[LOCATION_DEFINITION])
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text.startswith(said)


ECHO_DEFINITION = {
    "name": "show_text",
    "description": "Shows a text",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
}


async def test_an_offered_tool_asked_for_is_called_with_its_json_arguments_left_pending() -> None:
    events = await run_demo(
        'Please call the show_text tool with {"text": "ping"}.', state={}, tools=[ECHO_DEFINITION]
    )
    [start] = [e for e in events if e["type"] == "TOOL_CALL_START"]
    assert start["toolCallName"] == "show_text"
    arguments = "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert arguments == '{"text":"ping"}'
    assert not any(e["type"] == "TOOL_CALL_RESULT" for e in events)
    assert events[-1]["type"] == "RUN_FINISHED"


@pytest.mark.parametrize(
    ("text", "tools", "said"),
    [
        ("call the show_text tool", [], "Your client did not offer a tool named show_text"),
        (
            "call the other tool with {}",
            [ECHO_DEFINITION],
            "Your client did not offer a tool named other (offered: show_text).",
        ),
        (
            "call the show_text tool with {text: ping}",
            [ECHO_DEFINITION],
            "I did not call show_text: its arguments must be a JSON object (Expecting property",
        ),
    ],
)
async def test_a_tool_request_that_cannot_be_called_is_answered_in_text(
    text: str, tools: list[dict[str, Any]], said: str
) -> None:
    events = await run_demo(text, state={}, tools=tools)
    assert not any(e["type"] == "TOOL_CALL_START" for e in events)
    answer = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert answer.startswith(said)


@pytest.mark.parametrize(
    ("content", "error", "said"),
    [
        ('{"text":"ping"}', None, 'show_text returned: {"text":"ping"}'),
        ("", "the user closed it", "show_text failed: the user closed it"),
    ],
)
async def test_the_tools_result_is_the_answer_and_the_tool_is_not_called_again(
    content: str, error: str | None, said: str
) -> None:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "show_text", "arguments": '{"text":"ping"}'},
    }
    answer: dict[str, Any] = {"id": "t1", "role": "tool", "toolCallId": "c1", "content": content}
    if error:
        answer["error"] = error
    messages = [
        {"id": "u1", "role": "user", "content": 'call the show_text tool with {"text": "ping"}'},
        {"id": "a1", "role": "assistant", "content": "Calling show_text.", "toolCalls": [call]},
        answer,
    ]
    events = await run_demo(None, state={}, messages=messages, tools=[ECHO_DEFINITION])
    assert not any(e["type"].startswith("TOOL_CALL") for e in events)
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == said


async def test_a_user_message_sent_with_the_tools_result_is_answered_after_it() -> None:
    """How ``agui validate``'s tools scenario answers: the tool message, then its message."""
    call = {"id": "c1", "type": "function", "function": {"name": "show_text", "arguments": "{}"}}
    messages = [
        {"id": "u1", "role": "user", "content": "call the show_text tool"},
        {"id": "a1", "role": "assistant", "content": "Calling show_text.", "toolCalls": [call]},
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": '{"text":"ping"}'},
        {"id": "u2", "role": "user", "content": "hi"},
    ]
    events = await run_demo(None, state={}, messages=messages, tools=[ECHO_DEFINITION])
    assert not any(e["type"].startswith("TOOL_CALL") for e in events)
    said = [text_of(events, e["messageId"]) for e in events if e["type"] == "TEXT_MESSAGE_START"]
    assert said[0] == 'show_text returned: {"text":"ping"}'
    assert said[1].startswith('Hello from the AG-UI demo agent! You said: "hi".')
