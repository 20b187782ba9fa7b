"""``AgentClient`` against real apps in process: results, protobuf, conversations, resume,
malformed requests, reconnects, capabilities, cancellation, idle timeouts, live servers."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from ag_ui.core import TextMessageContentEvent
from ag_ui.demo import create_demo_app
from ag_ui.server import RunContext, create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.testing import AgentClient, build_input, serve
from ag_ui.testing.faults import Cut, Stall

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "protobuf"])
async def test_a_run_returns_events_messages_state_and_grade(proto: bool) -> None:
    result = await AgentClient(create_demo_app()).run(
        "weather in Oslo", thread_id="t1", run_id="r1", proto=proto
    )
    assert result.status == 200
    assert result.proto is proto
    assert result.event_types[0] == "RUN_STARTED"
    assert result.event_types[-1] == "RUN_FINISHED"
    assert len(result.times) == len(result.events) == len(result.sse_ids)
    assert result.times == sorted(result.times)
    assert result.verification.ok
    assert result.ok
    assert result.outcome == "success"
    assert result.text.startswith("It is ")
    assert result.text.endswith("in Oslo.")
    assert result.state["last_city"] == "Oslo"
    assert result.state["turns"] == 1
    assert next(m.role for m in result.messages) == "user"
    assert {m.role for m in result.new_messages} == {"assistant", "tool", "reasoning", "activity"}
    assert result.input is not None
    assert result.input.run_id == "r1"
    assert b"RUN_FINISHED" in result.body or proto


async def test_the_demo_answers_the_same_content_over_both_transports() -> None:
    async with AgentClient(create_demo_app()) as client:
        sse = await client.run("weather in Oslo", thread_id="t", run_id="r")
        binary = await client.run("weather in Oslo", thread_id="t", run_id="r", proto=True)
    dump = [e.model_dump(mode="json", exclude={"timestamp"}) for e in sse.events]
    assert dump == [e.model_dump(mode="json", exclude={"timestamp"}) for e in binary.events]


async def test_a_conversation_keeps_history_state_and_resumes_interrupts() -> None:
    async with AgentClient(create_demo_app()) as client:
        conversation = client.conversation()
        booked = await conversation.send("book a table for two")
        assert booked.outcome == "interrupt"
        assert len(booked.interrupts) == 1
        interrupt = booked.interrupts[0]
        assert interrupt["reason"] == "tool_call"
        resumed = await conversation.resume({interrupt["id"]: {"approved": True}})
        assert resumed.ok
        assert resumed.text == "Done: your booking is confirmed."
        assert conversation.state["booking"] == {"status": "confirmed"}
        assert conversation.state["turns"] == 2
        assert resumed.input is not None
        assert resumed.input.resume is not None
        assert resumed.input.resume[0].payload == {"approved": True}
        third = await conversation.send("hello again")
    sent = third.input.messages if third.input is not None else []
    assert [m.role for m in sent] == ["user", "assistant", "tool", "assistant", "user"]
    assert third.input is not None
    assert third.input.thread_id == conversation.thread_id
    assert len(conversation.results) == 3


async def test_frontend_tool_results_go_back_as_tool_messages() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        answered = [m for m in run_input.messages if m.role == "tool"]
        if answered:
            await ctx.say(f"the tool said {answered[-1].content}")
            return
        await ctx.call_tool("pick_color", {"options": ["red", "blue"]})

    conversation = AgentClient(create_app(agent)).conversation()
    first = await conversation.send(
        "choose", tools=[{"name": "pick_color", "description": "x", "parameters": {}}]
    )
    assert first.pending_tool_call_ids
    assert first.input is not None
    assert first.input.tools[0].name == "pick_color"
    second = await conversation.send(
        tool_results={first.pending_tool_call_ids[0]: {"color": "red"}}
    )
    assert second.text == 'the tool said {"color":"red"}'


async def test_malformed_requests_and_error_bodies() -> None:
    client = AgentClient(create_demo_app())
    bad = await client.post(b"{not json")
    assert bad.status == 400
    assert bad.json()["error"]["code"] == "malformed_json"
    assert bad.events == []
    assert bad.verification.ok
    wrong_type = await client.post({"threadId": "t"}, content_type="text/plain")
    assert wrong_type.status == 415
    missing = await client.post({"threadId": "t", "runId": "r"})
    assert missing.status == 422
    assert "messages" in missing.body.decode()
    streamed = await client.post({"threadId": "t", "runId": "r", "messages": []})
    assert streamed.status == 200
    assert streamed.verification.ok
    assert streamed.ok
    method = await client.post(b"", method="GET")
    assert method.status == 405


async def test_an_http_error_on_a_run_is_a_finding() -> None:
    async def refuse(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 503, "headers": []})
        await send({"type": "http.response.body", "body": b"overloaded"})

    result = await AgentClient(refuse, lifespan=False).run("hi")
    assert result.status == 503
    assert not result.ok
    assert str(result.verification) == "[http.status] stream: HTTP 503: overloaded"


async def test_a_2xx_that_is_not_a_stream_is_a_finding() -> None:
    async def html(scope: Any, receive: Any, send: Any) -> None:
        headers = [(b"content-type", b"text/html")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"<html>login</html>"})

    result = await AgentClient(html, lifespan=False).run("hi")
    assert result.verification.error is not None
    assert result.verification.error.rule == "wire.content-type"
    assert "text/html" in result.verification.error.message


async def test_reconnect_after_a_cut_gives_the_whole_run_once() -> None:
    agent_app = create_demo_app(store=InMemoryRunStore())
    async with AgentClient(agent_app, faults=[Cut(after_events=5)]) as client:
        cut = await client.run("weather in Lima")
        assert cut.verification.error is not None
        assert cut.verification.error.rule == "wire.cut"
        assert len(cut.events) == 5
        assert cut.last_event_id is not None
    async with AgentClient(agent_app) as client:
        whole = await client.reconnect(cut)
    assert whole.resumed_at == 5
    assert whole.verification.ok
    assert whole.ok
    assert whole.text.endswith("in Lima.")
    positions = [int(i.rsplit(":", 1)[1]) for i in whole.sse_ids if i is not None]
    assert positions == list(range(1, len(whole.events) + 1))


async def test_stop_after_closes_the_connection_and_cancels_the_agent() -> None:
    stopped = anyio.Event()

    async def agent(run_input: Any, ctx: RunContext) -> None:
        try:
            async with ctx.text_message() as message:
                for n in range(1000):
                    await message.send(f"{n} ")
                    await anyio.sleep(0.01)
        finally:
            stopped.set()

    async with AgentClient(create_app(agent)) as client:
        result = await client.run("go", stop_after=4)
        assert result.cancelled
        assert len(result.events) >= 4
        assert result.verification.ok  # a stream the client stopped is not graded for its end
        with anyio.fail_after(5):
            await stopped.wait()


async def test_silence_longer_than_the_idle_timeout_is_a_finding() -> None:
    client = AgentClient(create_demo_app(), faults=[Stall(5, before_event=2)], idle_timeout=0.2)
    result = await client.run("hello")
    assert result.verification.error is not None
    assert result.verification.error.rule == "wire.idle"
    assert len(result.events) == 2


async def test_capabilities_and_plain_requests() -> None:
    client = AgentClient(create_demo_app())
    capabilities = await client.capabilities()
    assert capabilities is not None
    assert capabilities.identity is not None
    assert capabilities.identity.name == "ag-ui-demo"
    assert await AgentClient(create_app(_hello)).capabilities() is None
    response = await client.request("GET", "/capabilities")
    assert response.json()["identity"]["name"] == "ag-ui-demo"


def test_run_sync_and_a_live_server() -> None:
    with serve(create_demo_app()) as server:
        result = AgentClient(url=server.agent_url()).run_sync("hello")
    assert result.ok
    assert result.url == server.url + "/agent"
    assert result.text.startswith("Hello from the AG-UI demo agent!")


def test_build_input_fills_ids_and_keeps_history() -> None:
    built = build_input(
        "next", messages=[{"id": "u0", "role": "user", "content": "first"}], state={"a": 1}
    )
    assert next(m.id for m in built.messages) == "u0"
    assert built.messages[1].content == "next"
    assert built.thread_id.startswith("thread-")
    assert built.protocol_version == "1.1"
    assert built.state == {"a": 1}


def test_the_client_needs_one_target() -> None:
    with pytest.raises(TypeError, match="app or url"):
        AgentClient()
    with pytest.raises(TypeError, match="not both"):
        AgentClient(create_app(_hello), url="http://127.0.0.1:1/agent")


async def test_an_unreachable_url_raises_a_transport_error() -> None:
    from ag_ui.core import TransportError

    with pytest.raises(TransportError, match="ConnectError"):
        await AgentClient(url="http://127.0.0.1:9/agent").run("hi")


async def _hello(run_input: Any, ctx: RunContext) -> None:
    await ctx.say(TextMessageContentEvent.__name__)
