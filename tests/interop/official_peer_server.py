"""An AG-UI agent built only with the official ``ag-ui-protocol==1.0.0`` package and FastAPI.

Run with the official venv: ``.venv-official/bin/python tests/interop/official_peer_server.py
PORT``, or ``--fd N`` to serve on an inherited listening socket (what the tests do, through
``tests/support/servers.py``). Each route is one scenario; the request body is parsed with the
official ``RunAgentInput`` so our client's request is checked by the official models too.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterator

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from ag_ui.core import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    AssistantMessage,
    BaseEvent,
    EventType,
    Interrupt,
    MessagesSnapshotEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder

app = FastAPI()
Scenario = Callable[[RunAgentInput], Iterator[BaseEvent]]
SCENARIOS: dict[str, Scenario] = {}


def scenario(function: Scenario) -> Scenario:
    SCENARIOS[function.__name__] = function
    return function


def _text(message_id: str, *words: str) -> Iterator[BaseEvent]:
    yield TextMessageStartEvent(
        type=EventType.TEXT_MESSAGE_START, message_id=message_id, role="assistant"
    )
    for word in words:
        yield TextMessageContentEvent(
            type=EventType.TEXT_MESSAGE_CONTENT, message_id=message_id, delta=word
        )
    yield TextMessageEndEvent(type=EventType.TEXT_MESSAGE_END, message_id=message_id)


@scenario
def text(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield from _text("m-text", "Hello", ", ", "world", "!")


@scenario
def tool(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield ToolCallStartEvent(
        type=EventType.TOOL_CALL_START,
        tool_call_id="call-1",
        tool_call_name="get_weather",
        parent_message_id="m-tool",
    )
    for piece in ['{"city":', ' "Par', 'is"}']:
        yield ToolCallArgsEvent(type=EventType.TOOL_CALL_ARGS, tool_call_id="call-1", delta=piece)
    yield ToolCallEndEvent(type=EventType.TOOL_CALL_END, tool_call_id="call-1")
    yield ToolCallResultEvent(
        type=EventType.TOOL_CALL_RESULT,
        message_id="m-result",
        tool_call_id="call-1",
        content='{"temp": 21}',
        role="tool",
    )
    yield from _text("m-answer", "It is 21", " degrees.")


@scenario
def state(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield StateSnapshotEvent(
        type=EventType.STATE_SNAPSHOT, snapshot={"count": 0, "items": [], "seen": run.state}
    )
    yield StateDeltaEvent(
        type=EventType.STATE_DELTA,
        delta=[
            {"op": "replace", "path": "/count", "value": 1},
            {"op": "add", "path": "/items/-", "value": "a"},
        ],
    )
    yield StateDeltaEvent(
        type=EventType.STATE_DELTA,
        delta=[{"op": "add", "path": "/items/-", "value": "b"}, {"op": "remove", "path": "/seen"}],
    )


@scenario
def reasoning(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield ReasoningStartEvent(type=EventType.REASONING_START, message_id="r-span")
    yield ReasoningMessageStartEvent(
        type=EventType.REASONING_MESSAGE_START, message_id="m-think", role="reasoning"
    )
    for piece in ["Let me ", "think."]:
        yield ReasoningMessageContentEvent(
            type=EventType.REASONING_MESSAGE_CONTENT, message_id="m-think", delta=piece
        )
    yield ReasoningMessageEndEvent(type=EventType.REASONING_MESSAGE_END, message_id="m-think")
    yield ReasoningEndEvent(type=EventType.REASONING_END, message_id="r-span")
    yield from _text("m-after", "Done thinking.")


@scenario
def chunks(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield TextMessageChunkEvent(
        type=EventType.TEXT_MESSAGE_CHUNK, message_id="m-chunk", delta="chunked "
    )
    yield TextMessageChunkEvent(type=EventType.TEXT_MESSAGE_CHUNK, delta="text")


@scenario
def illegal(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield TextMessageContentEvent(type=EventType.TEXT_MESSAGE_CONTENT, message_id="nope", delta="x")


SCENARIOS_WITH_OWN_END = {"error", "interrupt"}


@scenario
def interrupt(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield ToolCallStartEvent(
        type=EventType.TOOL_CALL_START,
        tool_call_id="call-del",
        tool_call_name="delete_file",
        parent_message_id="m-ask",
    )
    yield ToolCallArgsEvent(
        type=EventType.TOOL_CALL_ARGS, tool_call_id="call-del", delta='{"path": "/tmp/x"}'
    )
    yield ToolCallEndEvent(type=EventType.TOOL_CALL_END, tool_call_id="call-del")
    yield RunFinishedEvent(
        type=EventType.RUN_FINISHED,
        thread_id=run.thread_id,
        run_id=run.run_id,
        outcome=RunFinishedInterruptOutcome(
            type="interrupt",
            interrupts=[
                Interrupt(
                    id="int-1",
                    reason="tool_call",
                    tool_call_id="call-del",
                    message="Delete /tmp/x?",
                    response_schema={"type": "object", "required": ["approved"]},
                )
            ],
        ),
    )


@scenario
def snapshot(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield ActivitySnapshotEvent(
        type=EventType.ACTIVITY_SNAPSHOT,
        message_id="act-1",
        activity_type="plan",
        content={"steps": ["search"], "done": 0},
    )
    yield ActivityDeltaEvent(
        type=EventType.ACTIVITY_DELTA,
        message_id="act-1",
        activity_type="plan",
        patch=[{"op": "add", "path": "/steps/-", "value": "answer"}],
    )
    yield MessagesSnapshotEvent(
        type=EventType.MESSAGES_SNAPSHOT,
        messages=[
            *run.messages,
            AssistantMessage(id="m-snap", role="assistant", content="from the snapshot"),
        ],
    )
    yield from _text("m-after-snap", "and more")


@scenario
def error(run: RunAgentInput) -> Iterator[BaseEvent]:
    yield from _text("m-partial", "Working")
    yield RunErrorEvent(type=EventType.RUN_ERROR, message="model overloaded", code="overloaded")


@app.post("/{name}")
async def run_scenario(name: str, request: Request) -> StreamingResponse:
    run = RunAgentInput.model_validate_json(await request.body())
    encoder = EventEncoder(accept=request.headers.get("accept"))
    steps = SCENARIOS[name]

    async def body() -> AsyncIterator[str]:
        yield encoder.encode(
            RunStartedEvent(type=EventType.RUN_STARTED, thread_id=run.thread_id, run_id=run.run_id)
        )
        for event in steps(run):
            yield encoder.encode(event)
        if name not in SCENARIOS_WITH_OWN_END:
            yield encoder.encode(
                RunFinishedEvent(
                    type=EventType.RUN_FINISHED,
                    thread_id=run.thread_id,
                    run_id=run.run_id,
                    result={"scenario": name},
                )
            )

    return StreamingResponse(body(), media_type=encoder.get_content_type())


if __name__ == "__main__":
    if sys.argv[1] == "--fd":
        uvicorn.run(app, fd=int(sys.argv[2]), log_level="warning")
    else:
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
