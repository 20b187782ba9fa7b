"""HttpAgent surface: stream(), middleware, tool-call filter, clone, capabilities, sync facade,
compatibility translation, lenient patch failures, conversation across runs."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ag_ui.client import FilterToolCallsMiddleware, HttpAgent, Middleware, SyncHttpAgent
from ag_ui.core import (
    AgentCapabilities,
    AGUIError,
    AssistantMessage,
    HTTPStatusError,
    ReasoningMessage,
    UserMessage,
)
from ag_ui.verify import CompatibilityWarning
from tests.client.client_helpers import (
    LiveServer,
    Recorder,
    asgi_agent,
    frames,
    run_frames,
    sequence_app,
    static_app,
)

pytestmark = pytest.mark.anyio

CHUNKED = [
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hi "},
    {"type": "TEXT_MESSAGE_CHUNK", "delta": "there"},
]


async def test_stream_yields_expanded_verified_events_and_sets_the_result() -> None:
    agent = asgi_agent(static_app(run_frames(*CHUNKED)))
    async with agent.stream() as events:
        kinds = [event.type.value async for event in events]
    assert kinds == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert events.result is not None
    assert [m.id for m in events.result.new_messages] == ["m1"]
    assert agent.messages == [AssistantMessage(id="m1", content="Hi there")]


async def test_leaving_a_stream_early_ends_the_run() -> None:
    agent = asgi_agent(static_app(run_frames(*CHUNKED)))
    async with agent.stream() as events:
        async for event in events:
            if event.type.value == "TEXT_MESSAGE_START":
                break
    assert agent.is_running is False


async def test_conversation_carries_over_to_the_next_run() -> None:
    recorder = Recorder()
    first = run_frames(*CHUNKED)
    second = run_frames(
        {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "Again"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
        run="r2",
    )
    agent = asgi_agent(sequence_app(first, second, recorder=recorder))
    agent.add_message({"id": "u1", "role": "user", "content": "hello"})
    await agent.run_agent()
    agent.messages.append(UserMessage(id="u2", content="more"))  # in-place edits count too
    result = await agent.run_agent()
    assert [m["id"] for m in recorder.bodies[1]["messages"]] == ["u1", "m1", "u2"]
    assert [m.id for m in result.new_messages] == ["m2"]
    assert [m.id for m in agent.messages] == ["u1", "m1", "u2", "m2"]


async def test_a_second_concurrent_run_is_refused() -> None:
    release = anyio.Event()

    async def slow(request: Request) -> Response:
        await release.wait()
        return Response(run_frames(), media_type="text/event-stream")

    agent = asgi_agent(Starlette(routes=[Route("/agent", slow, methods=["POST"])]))
    async with anyio.create_task_group() as group:
        group.start_soon(agent.run_agent)
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(AGUIError, match="already running"):
            await agent.run_agent()
        release.set()


async def test_middleware_order_is_first_outermost() -> None:
    trace: list[str] = []

    def tracer(name: str) -> Any:
        async def middleware(input: Any, next: Any) -> AsyncIterator[Any]:
            trace.append(f"{name}>")
            async for event in next.run(input):
                trace.append(f"{name}:{event.type.value}")
                yield event
            trace.append(f"<{name}")

        return middleware

    class Upper(Middleware):
        async def run(self, input: Any, next: Any) -> AsyncIterator[Any]:  # type: ignore[override]
            async for event in next.run(input):
                if event.type.value == "TEXT_MESSAGE_CHUNK":
                    event = event.model_copy(update={"delta": event.delta.upper()})
                yield event

    agent = asgi_agent(static_app(run_frames(*CHUNKED)))
    agent.use(tracer("a"), Upper()).use(tracer("b"))
    await agent.run_agent()
    assert trace[:3] == ["a>", "b>", "b:RUN_STARTED"]
    assert trace[3] == "a:RUN_STARTED"
    assert trace[-2:] == ["<b", "<a"]
    # Middlewares see raw chunks; the pipeline expands them afterwards.
    assert "a:TEXT_MESSAGE_CHUNK" in trace
    assert agent.messages == [AssistantMessage(id="m1", content="HI THERE")]


TOOLS = [
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "rm"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "gone"},
    {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "ls"},
    {"type": "TOOL_CALL_END", "toolCallId": "c2"},
]


@pytest.mark.parametrize(
    "options",
    [{"disallowed_tool_calls": ["rm"]}, {"allowed_tool_calls": ["ls"]}],
    ids=["disallowed", "allowed"],
)
async def test_filter_tool_calls_middleware(options: dict[str, list[str]]) -> None:
    agent = asgi_agent(static_app(run_frames(*TOOLS)))
    agent.use(FilterToolCallsMiddleware(**options))
    await agent.run_agent()
    assert [m.model_dump(by_alias=True, mode="json") for m in agent.messages] == [
        {
            "id": "c2",
            "role": "assistant",
            "toolCalls": [
                {"id": "c2", "type": "function", "function": {"name": "ls", "arguments": ""}}
            ],
        }
    ]


def test_filter_tool_calls_needs_exactly_one_list() -> None:
    with pytest.raises(ValueError, match="not both"):
        FilterToolCallsMiddleware(allowed_tool_calls=["a"], disallowed_tool_calls=["b"])
    with pytest.raises(ValueError, match="give allowed_tool_calls or disallowed_tool_calls"):
        FilterToolCallsMiddleware()


async def test_clone_copies_configuration_and_conversation_independently() -> None:
    agent = asgi_agent(static_app(run_frames(*CHUNKED)), thread_id="t1", initial_state={"a": 1})
    agent.subscribe(on_event=lambda p: None)
    twin = agent.clone()
    await twin.run_agent()
    assert (twin.thread_id, twin.url, len(twin.subscribers)) == ("t1", agent.url, 1)
    assert agent.messages == []
    assert [m.id for m in twin.messages] == ["m1"]
    twin.state = {"a": 2}
    assert agent.state == {"a": 1}


async def test_legacy_thinking_events_become_reasoning() -> None:
    body = run_frames(
        {"type": "THINKING_TEXT_MESSAGE_START"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hmm"},
        {"type": "THINKING_TEXT_MESSAGE_END"},
    )
    agent = asgi_agent(static_app(body))
    with pytest.warns(CompatibilityWarning):
        await agent.run_agent()
    assert len(agent.messages) == 1
    assert isinstance(agent.messages[0], ReasoningMessage)
    assert agent.messages[0].content == "hmm"


async def test_a_patch_that_does_not_apply_warns_and_the_run_continues() -> None:
    body = run_frames(
        {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/missing/x", "value": 2}]},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/a", "value": 3}]},
    )
    agent = asgi_agent(static_app(body))
    with pytest.warns(UserWarning, match="STATE_DELTA could not be applied"):
        result = await agent.run_agent()
    assert result.outcome_type == "success"
    assert agent.state == {"a": 3}


def _capabilities_app(status: int) -> Starlette:
    async def capabilities(request: Request) -> Response:
        if status == 200:
            return JSONResponse({"identity": {"name": "demo"}, "transport": {"streaming": True}})
        return JSONResponse({"detail": "nope"}, status_code=status)

    return Starlette(routes=[Route("/agent/capabilities", capabilities)])


async def test_get_capabilities() -> None:
    capabilities = await asgi_agent(_capabilities_app(200)).get_capabilities()
    assert capabilities == AgentCapabilities.model_validate(
        {"identity": {"name": "demo"}, "transport": {"streaming": True}}
    )
    assert await asgi_agent(_capabilities_app(404)).get_capabilities() is None
    with pytest.raises(HTTPStatusError) as info:
        await asgi_agent(_capabilities_app(500)).get_capabilities()
    assert (info.value.status, info.value.body) == (500, {"detail": "nope"})


async def test_middleware_can_replace_the_transport_entirely() -> None:
    async def canned(input: Any, next: Any) -> AsyncIterator[Any]:
        from ag_ui.core import parse_event

        for line in run_frames(*CHUNKED, thread=input.thread_id).split(b"\n\n"):
            if line:
                yield parse_event(line[len(b"data: ") :])

    client = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(599)))
    agent = HttpAgent("http://unused/agent", http_client=client, thread_id="t1").use(canned)
    await agent.run_agent()
    assert agent.messages == [AssistantMessage(id="m1", content="Hi there")]


def test_sync_facade_runs_and_streams(live_server: LiveServer) -> None:
    async def chat(request: Request) -> AsyncIterator[bytes]:
        body = json.loads(await request.body())
        yield frames(
            {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
            *CHUNKED,
            {"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]},
        )

    url = live_server.add("sync_chat", chat)
    with SyncHttpAgent(url) as agent:
        agent.add_message({"id": "u1", "role": "user", "content": "hi"})
        result = agent.run_agent()
        assert [m.id for m in result.new_messages] == ["m1"]
        kinds = [event.type.value for event in agent.stream()]
        assert kinds[0] == "RUN_STARTED"
        assert kinds[-1] == "RUN_FINISHED"
        assert [m.id for m in agent.messages] == ["u1", "m1"]


def test_sync_facade_edits_the_conversation_and_notifies() -> None:
    seen: list[str] = []

    async def on_state_changed(params: Any) -> None:
        seen.append(f"state {params.state}")

    with SyncHttpAgent("http://unused/agent") as agent:
        agent.subscribe(
            on_messages_changed=lambda p: seen.append(f"messages {len(p.messages)}"),
            on_state_changed=on_state_changed,
        )
        agent.add_messages([{"id": "u1", "role": "user", "content": "hi"}])
        agent.set_messages([{"id": "u2", "role": "user", "content": "again"}])
        agent.set_state({"n": 1})
        assert [m.id for m in agent.messages] == ["u2"]
        assert agent.state == {"n": 1}
    assert seen == ["messages 1", "messages 1", "state {'n': 1}"]


def test_sync_facade_refuses_an_async_client() -> None:
    with pytest.raises(TypeError, match="http_client"):
        SyncHttpAgent("http://x", http_client=httpx.AsyncClient())


def test_sync_facade_abort_from_another_thread(live_server: LiveServer) -> None:
    import threading

    async def endless(request: Request) -> AsyncIterator[bytes]:
        body = json.loads(await request.body())
        yield frames({"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]})
        while True:
            await anyio.sleep(0.02)
            yield b": keepalive\n\n"

    url = live_server.add("sync_endless", endless)
    started = threading.Event()
    with SyncHttpAgent(url, idle_timeout=5) as agent:
        agent.subscribe(on_run_started_event=lambda p: started.set())
        aborter = threading.Thread(target=lambda: started.wait(10) and agent.abort_run())
        aborter.start()
        result = agent.run_agent()
        aborter.join(10)
    assert result.aborted is True
    assert live_server.closed["sync_endless"].wait(10)


async def test_strict_false_skips_the_sequence_verifier() -> None:
    from ag_ui.apply import ReducerWarning
    from ag_ui.core import ProtocolError

    body = run_frames(
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "x"},
        {"type": "CUSTOM", "name": "after", "value": 1},
    )
    with pytest.raises(ProtocolError):
        await asgi_agent(static_app(body)).run_agent()
    seen: list[str] = []
    lenient = asgi_agent(static_app(body), strict=False)
    with pytest.warns(ReducerWarning):  # the reducer warns about the unknown message id
        result = await lenient.run_agent(
            subscriber={"on_custom_event": lambda p: seen.append("ok")}
        )
    assert (result.outcome_type, seen, lenient.messages) == ("success", ["ok"], [])


async def test_a_subclass_can_source_events_by_overriding_run() -> None:
    from ag_ui.core import parse_event

    class CannedAgent(HttpAgent):
        async def run(self, input: Any) -> AsyncIterator[Any]:  # type: ignore[override]
            for line in run_frames(*CHUNKED, thread=input.thread_id).split(b"\n\n"):
                if line:
                    yield parse_event(line[len(b"data: ") :])

    agent = CannedAgent("http://unused/agent", thread_id="t1")
    result = await agent.run_agent()
    assert [m.id for m in result.new_messages] == ["m1"]
