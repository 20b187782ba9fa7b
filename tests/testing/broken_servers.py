"""Servers that each get one thing wrong, for the ``agui validate`` tests: built from the demo
agent, scripted agents and the test kit's fault injection, so that every rule can fail."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from ag_ui.core import (
    AgentCapabilities,
    AssistantMessage,
    Interrupt,
    RunError,
    RunStartedEvent,
    StateCapabilities,
)
from ag_ui.demo import create_demo_app
from ag_ui.demo.agent import make_demo_agent
from ag_ui.server import RunContext, create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.testing import ScriptedAgent
from ag_ui.testing.faults import Cut, Drop, FaultyApp, Malformed, Stall

App = Callable[..., Awaitable[None]]


def demo(**options: Any) -> Any:
    """The demo agent, streaming slowly enough that a client can cancel it mid-run."""
    return create_demo_app(delay=0.005, **options)


def resumable_demo() -> Any:
    return demo(store=InMemoryRunStore())


async def _read(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


def _replaying(body: bytes, receive: Any) -> Callable[[], Awaitable[dict[str, Any]]]:
    """The body again, then the real connection's messages (its disconnect)."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        message: dict[str, Any] = await receive()
        return message

    return replay


async def _answer(send: Any, status: int, body: bytes, kind: bytes = b"application/json") -> None:
    await send(
        {"type": "http.response.start", "status": status, "headers": [(b"content-type", kind)]}
    )
    await send({"type": "http.response.body", "body": body})


def inspecting(app: Any, judge: Callable[[dict[str, Any], bytes], Awaitable[bool]]) -> App:
    """Reads each POST body first; ``judge(scope, body)`` answers it itself (True) or lets
    ``app`` serve it (the body replayed)."""

    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        body = await _read(receive)
        if not await judge({"scope": scope, "send": send}, body):
            await app(scope, _replaying(body, receive), send)

    return wrapper


def on_path(app: Any, suffix: str, other: Any) -> App:
    """Requests whose path ends with ``suffix`` go to ``other``."""

    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        target = other if scope["type"] == "http" and scope["path"].endswith(suffix) else app
        await target(scope, receive, send)

    return wrapper


def frames_app(events: list[dict[str, Any]]) -> App:
    """Answers every POST with exactly these wire dicts as SSE frames (nulls included)."""
    frames = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await _read(receive)
            await _answer(send, 200, frames, b"text/event-stream")

    return app


# -- one server per rule -------------------------------------------------------------------------


def html_app() -> App:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await _answer(send, 200, b"<html>please log in</html>", b"text/html")

    return app


def failing_app() -> App:
    async def judge(exchange: dict[str, Any], body: bytes) -> bool:
        await _answer(exchange["send"], 500, b'{"error": "database down"}')
        return True

    return inspecting(demo(), judge)


def crashing_agent() -> Any:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        raise RuntimeError("the model provider is down")

    return create_app(agent)


def bad_arguments() -> Any:
    # What ag-ui-langgraph 0.0.47 sends when the first chunk's text is dropped.
    return ScriptedAgent(
        [
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_weather"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '"city": "Paris"}'},
            {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        ]
    ).app()


def bad_delta() -> Any:
    return ScriptedAgent(
        [{"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]}]
    ).app()


def history_refusing() -> App:
    async def judge(exchange: dict[str, Any], body: bytes) -> bool:
        messages = json.loads(body).get("messages", [])
        if any(m.get("role") == "assistant" for m in messages):
            detail = b'{"error": "role assistant is not supported"}'
            await _answer(exchange["send"], 422, detail)
            return True
        return False

    return inspecting(demo(), judge)


def history_dropping() -> Any:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        reply = AssistantMessage(id=ctx.new_id("msg"), content="only mine")
        await ctx.messages_snapshot([reply])

    return create_app(agent)


def tool_round_trip_failing() -> Any:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        if any(m.role == "tool" for m in run_input.messages):
            raise RunError("cannot continue from a tool result", code="no_tool_results")
        if run_input.tools:
            await ctx.call_tool(run_input.tools[0].name, {"text": "ping"})
            return
        await ctx.say("hello")

    return create_app(agent)


def tool_calling() -> Any:
    """An agent that handles frontend tools correctly (calls the offered tool, then answers)."""

    async def agent(run_input: Any, ctx: RunContext) -> None:
        answers = [m for m in run_input.messages if m.role == "tool"]
        if answers:
            await ctx.say(f"the tool returned {answers[-1].content}")
        elif run_input.tools:
            await ctx.call_tool(run_input.tools[0].name, {"text": "ping"})
        else:
            await ctx.say("hello")

    return create_app(agent)


def interrupting_forever() -> Any:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.interrupt(Interrupt(id="approve-1", reason="confirmation", message="OK?"))

    return create_app(agent)


def thread_locking() -> Any:
    busy: set[str] = set()

    async def agent(run_input: Any, ctx: RunContext) -> None:
        if run_input.thread_id in busy:
            raise RunError("this thread is busy with another run", code="thread_busy")
        busy.add(run_input.thread_id)
        await make_demo_agent(delay=0.01)(run_input, ctx)
        busy.discard(run_input.thread_id)  # the bug: not released when the run is cancelled

    return create_app(agent)


def proto_differing() -> Any:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        binary = "proto" in ctx.request.headers.get("accept", "")
        await ctx.say("Hallo" if binary else "Hello")

    return create_app(agent)


def reconnect_refusing() -> App:
    async def not_found(scope: Any, receive: Any, send: Any) -> None:
        await _answer(send, 404, b'{"error": "no such route"}')

    return on_path(resumable_demo(), "/connect", not_found)


def reconnect_losing() -> App:
    app = resumable_demo()
    return on_path(app, "/connect", FaultyApp(app, Drop(event=0)))


def reconnect_repeating() -> App:
    app = resumable_demo()

    async def one_early(scope: Any, receive: Any, send: Any) -> None:
        headers = []
        for name, value in scope["headers"]:
            if name == b"last-event-id":
                key, _, position = value.decode().rpartition(":")
                value = f"{key}:{int(position) - 1}".encode()
            headers.append((name, value))
        await app({**scope, "headers": headers}, receive, send)

    return on_path(app, "/connect", one_early)


def crossing_runs() -> Any:
    import anyio

    latest: list[Any] = []

    async def agent(run_input: Any, ctx: RunContext) -> Any:
        latest.append(run_input)  # the bug: the "current run" lives in a global
        await anyio.sleep(0.05)
        current = latest[-1]
        yield RunStartedEvent(thread_id=current.thread_id, run_id=current.run_id)

    return create_app(agent, verify=False)


def crashing_on_bad_json() -> App:
    async def judge(exchange: dict[str, Any], body: bytes) -> bool:
        try:
            value = json.loads(body)
            value["threadId"]
        except (ValueError, KeyError, TypeError):
            await _answer(exchange["send"], 500, b"Internal Server Error", b"text/plain")
            return True
        return False

    return inspecting(demo(), judge)


def accepting_anything() -> App:
    async def judge(exchange: dict[str, Any], body: bytes) -> bool:
        try:
            json.loads(body)["threadId"]
        except (ValueError, KeyError, TypeError):
            frames = (
                b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
                b'data: {"type":"RUN_ERROR","message":"bad input"}\n\n'
            )
            await _answer(exchange["send"], 200, frames, b"text/event-stream")
            return True
        return False

    return inspecting(demo(), judge)


def capabilities_invalid() -> App:
    async def invalid(scope: Any, receive: Any, send: Any) -> None:
        await _answer(send, 200, b'{"tools": "yes"}')

    return on_path(demo(), "/capabilities", invalid)


def capabilities_contradicted() -> Any:
    declared = AgentCapabilities(state=StateCapabilities(snapshots=True, deltas=False))
    return create_app(make_demo_agent(delay=0.005), capabilities=declared)


def malformed_frame() -> Any:
    return FaultyApp(demo(), Malformed(before_event=2))


def schema_invalid() -> Any:
    return FaultyApp(
        demo(), Malformed(before_event=2, frame=b'data: {"type":"TEXT_MESSAGE_CONTENT"}\n\n')
    )


def optional_null() -> Any:
    frame = b'data: {"type":"CUSTOM","name":"x","value":1,"metadata":null}\n\n'
    return FaultyApp(demo(), Malformed(before_event=1, frame=frame))


def unknown_event() -> Any:
    return FaultyApp(demo(), Malformed(before_event=1, frame=b'data: {"type":"FUTURE_EVENT"}\n\n'))


def cutting() -> Any:
    return FaultyApp(demo(), Cut(after_events=3))


def stalling() -> Any:
    return FaultyApp(demo(), Stall(5, before_event=2))


# rule -> (server factory, scenario that reports it, extra validate() options)
BROKEN: dict[str, tuple[Callable[[], Any], str, dict[str, Any]]] = {
    "wire.frame": (malformed_frame, "text", {}),
    "wire.schema": (schema_invalid, "text", {}),
    "wire.optional-null": (optional_null, "text", {}),
    "wire.content-type": (html_app, "text", {}),
    "wire.cut": (cutting, "text", {}),
    "wire.idle": (stalling, "text", {"idle_timeout": 0.3}),
    "http.status": (failing_app, "text", {}),
    "run.error": (crashing_agent, "text", {}),
    "tool.args-json": (bad_arguments, "text", {}),
    "state.patch": (bad_delta, "state", {}),
    "history.refused": (history_refusing, "multi-turn", {}),
    "history.dropped": (history_dropping, "multi-turn", {}),
    "tool.round-trip": (tool_round_trip_failing, "tools", {}),
    "interrupt.resume": (interrupting_forever, "interrupt", {}),
    "cancel.next-run": (thread_locking, "cancel", {}),
    "proto.differs": (proto_differing, "proto", {}),
    "reconnect.refused": (reconnect_refusing, "reconnect", {}),
    "reconnect.gap": (reconnect_losing, "reconnect", {}),
    "reconnect.duplicate": (reconnect_repeating, "reconnect", {}),
    "concurrent.crossed": (crossing_runs, "concurrent", {}),
    "request.5xx": (crashing_on_bad_json, "malformed", {}),
    "request.accepted": (accepting_anything, "malformed", {}),
    "capabilities.invalid": (capabilities_invalid, "capabilities", {}),
    "capabilities.contradicted": (capabilities_contradicted, "capabilities", {}),
}
