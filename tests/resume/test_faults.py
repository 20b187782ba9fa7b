"""Faults of detached runs: the run TTL, a full store, Redis unreachable at start or lost
mid-run, a missing lifespan, shutdown, and a client that leaves (only its reader stops)."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from ag_ui.client import HttpAgent
from ag_ui.core import BaseEvent, CustomEvent, RunAgentInput
from ag_ui.core.errors import RunError
from ag_ui.encoder import EventEncoder
from ag_ui.encoder.encoder import event_to_json
from ag_ui.server import RunContext, create_app
from ag_ui.server._replay import BatchEncoder
from ag_ui.server._store_writer import LiveBatch, LiveFeed
from ag_ui.store import InMemoryRunStore, RedisRunStore
from tests.redis_helpers import RedisServer, free_port
from tests.support.servers import serve
from tests.support.sse import sse_events, sse_ids

from .resume_helpers import FAST, lifespan

pytestmark = pytest.mark.anyio

BODY = {"threadId": "t1", "runId": "r1", "messages": []}


def client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost")


class Gate:
    """An agent that says hello, then waits until ``release`` (or forever)."""

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.release = anyio.Event()

    async def __call__(self, run_input: RunAgentInput, ctx: RunContext) -> None:
        async with ctx.text_message() as message:
            await message.send("waiting")
            self.started.set()
            await self.release.wait()


async def test_a_run_past_its_ttl_ends_with_run_expired() -> None:
    gate = Gate()
    app = create_app(gate, store=InMemoryRunStore(), run_ttl=0.2)
    async with lifespan(app), client(app) as http:
        with anyio.fail_after(10):
            response = await http.post("/agent", json=BODY)
    assert sse_events(response.text) == [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.0"},
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-r1-1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r1-1", "delta": "waiting"},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-r1-1"},
        {
            "type": "RUN_ERROR",
            "message": "The run exceeded its time limit of 0.2 s.",
            "code": "run_expired",
        },
    ]


async def test_an_event_that_cannot_be_serialized_ends_the_detached_run_like_a_bound_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Each event is serialized as it is queued, in the run's task: the failure is the agent's
    # (RUN_ERROR agent_error), as without a store, and never reaches the writer task.
    async def agent(run_input: RunAgentInput, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield CustomEvent(name="ok", value=1)
        yield CustomEvent(name="bad", value=object())
        yield CustomEvent(name="never", value=2)

    expected = [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.0"},
        {"type": "CUSTOM", "name": "ok", "value": 1},
        {
            "type": "RUN_ERROR",
            "message": "The agent failed while handling this run; see the server log for details.",
            "code": "agent_error",
        },
    ]
    bound = create_app(agent, keepalive=None)
    async with lifespan(bound), client(bound) as http:
        with anyio.fail_after(10):
            assert sse_events((await http.post("/agent", json=BODY)).text) == expected
    app = create_app(agent, store=InMemoryRunStore(), keepalive=None)
    async with lifespan(app), client(app) as http:
        with anyio.fail_after(10):
            response = await http.post("/agent", json=BODY)
            key = response.headers["ag-ui-resume-key"]
            replay = await http.get("/agent/connect", params={"runKey": key})
            assert app.state.endpoint.detached_runs.active == 0
    assert sse_events(response.text) == expected
    assert sse_ids(response.text) == [f"{key}:{n}" for n in (1, 2, 3)]
    assert replay.text == response.text
    assert "agent failed" in caplog.text


async def test_a_full_store_refuses_new_runs_and_evicts_the_oldest_finished() -> None:
    gates = [Gate(), Gate(), Gate()]
    gates[2].release.set()
    calls = iter(gates)

    async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
        await next(calls)(run_input, ctx)

    store = InMemoryRunStore(max_runs=2)
    app = create_app(agent, store=store)
    responses: dict[str, httpx.Response] = {}

    async def run(name: str) -> None:
        responses[name] = await http.post("/agent", json=BODY)

    async with lifespan(app), client(app) as http, anyio.create_task_group() as group:
        with anyio.fail_after(10):
            group.start_soon(run, "a")
            await gates[0].started.wait()
            group.start_soon(run, "b")
            await gates[1].started.wait()
            full = await http.post("/agent", json=BODY)
            assert full.status_code == 503
            assert full.headers["retry-after"] == "1"
            assert full.json() == {
                "error": {
                    "code": "store_full",
                    "message": "too many runs in progress; retry later",
                    "details": [],
                }
            }
            gates[1].release.set()  # b finishes first, then a: b is the oldest finished
            while "b" not in responses:
                await anyio.sleep(0.01)
            gates[0].release.set()
            while "a" not in responses:
                await anyio.sleep(0.01)
            key_a, key_b = (responses[n].headers["ag-ui-resume-key"] for n in "ab")
            assert (await http.post("/agent", json=BODY)).status_code == 200
            gone = await http.get("/agent/connect", params={"runKey": key_b})
            kept = await http.get("/agent/connect", params={"runKey": key_a})
            assert gone.status_code == 404
            assert kept.status_code == 200


async def test_redis_unreachable_at_start_gives_503_and_a_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = RedisRunStore(f"redis://127.0.0.1:{free_port()}/0")
    app = create_app(Gate(), store=store)
    with caplog.at_level(logging.ERROR, logger="ag_ui.server"):
        async with lifespan(app), client(app) as http:
            with anyio.fail_after(15):
                response = await http.post("/agent", json=BODY)
    await store.aclose()
    assert response.status_code == 503
    assert response.json() == {
        "error": {
            "code": "store_unavailable",
            "message": "the run store is unreachable; retry later",
            "details": [],
        }
    }
    messages = [record.getMessage() for record in caplog.records]
    assert messages[0].startswith(
        "run store unreachable at start (new runs get 503 until it answers): Redis unreachable"
    )
    assert messages[1].startswith("run store unreachable, run refused: Redis unreachable")


async def test_redis_lost_mid_run_ends_the_run_with_run_error(
    tmp_path_factory: pytest.TempPathFactory, caplog: pytest.LogCaptureFixture
) -> None:
    redis = RedisServer(tmp_path_factory.mktemp("lost"))
    store = RedisRunStore(redis.url, block_seconds=0.2)
    gate = Gate()
    app = create_app(gate, store=store)
    try:
        with anyio.fail_after(30):  # shutdown ends the run's task, which retries its end
            async with lifespan(app), client(app) as http:
                agent = HttpAgent("http://localhost/agent", http_client=http, reconnect=FAST)
                async with anyio.create_task_group() as group:

                    async def kill_redis() -> None:
                        await gate.started.wait()
                        redis.stop()
                        gate.release.set()

                    group.start_soon(kill_redis)
                    with anyio.fail_after(15), pytest.raises(RunError) as caught:
                        await agent.run_agent(run_id="r1")
                # The run was stopped; its task keeps trying to record the run's end (a
                # RUN_ERROR) for when Redis comes back.
                with anyio.fail_after(10):
                    while "recording the run's end again every 1 s" not in caplog.text:
                        await anyio.sleep(0.01)
                assert app.state.endpoint.detached_runs.active == 1
        assert "abandoned: the run store became unreachable" in caplog.text
        assert caught.value.code == "store_unavailable"
        assert str(caught.value.message) == (
            "The run store became unreachable; the rest of the run is lost."
        )
    finally:
        redis.stop()
        await store.aclose()


async def test_without_the_lifespan_new_runs_get_500_naming_the_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A lifespan that never ran is a configuration to fix, not a 503 to retry."""
    app = create_app(Gate(), store=InMemoryRunStore())
    async with client(app) as http:
        response = await http.post("/agent", json=BODY)
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "runs_not_started"
    assert error["message"].startswith("the run store was not started")
    assert "lifespan=endpoint.lifespan" in error["message"]
    assert "create_app" in error["message"]
    assert "retry" not in error["message"]
    assert "lifespan=endpoint.lifespan" in caplog.text


async def test_after_the_lifespan_ended_new_runs_get_503() -> None:
    app = create_app(Gate(), store=InMemoryRunStore())
    async with lifespan(app):
        pass
    async with client(app) as http:
        response = await http.post("/agent", json=BODY)
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "runs_not_started"


async def test_shutdown_ends_running_runs_with_server_shutdown() -> None:
    gate = Gate()
    store = InMemoryRunStore()
    app = create_app(gate, store=store)
    async with client(app) as http, anyio.create_task_group() as group:
        responses: list[httpx.Response] = []

        async def run() -> None:
            responses.append(await http.post("/agent", json=BODY))

        with anyio.fail_after(10):
            async with lifespan(app):
                group.start_soon(run)
                await gate.started.wait()
                assert app.state.endpoint.detached_runs.active == 1
            while not responses:
                await anyio.sleep(0.01)
    assert sse_events(responses[0].text)[-2:] == [
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-r1-1"},
        {
            "type": "RUN_ERROR",
            "message": "The server shut down during the run.",
            "code": "server_shutdown",
        },
    ]
    assert app.state.endpoint.detached_runs.active == 0


def test_a_client_that_leaves_stops_only_its_reader() -> None:
    """Over uvicorn: the first connection is closed after RUN_STARTED; the run goes on and a
    reconnect from position 1 gets the rest, up to RUN_FINISHED."""
    finished = threading.Event()

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        for n in range(20):
            await anyio.sleep(0.005)
            yield CustomEvent(name="tick", value=n)
        finished.set()

    app = create_app(agent, store=InMemoryRunStore(), keepalive=0.05)
    with serve(app) as url, httpx.Client(timeout=10) as http:
        with http.stream("POST", f"{url}/agent", json=BODY) as response:
            key = response.headers["ag-ui-resume-key"]
            lines = response.iter_lines()
            assert next(lines) == f"id: {key}:1"
        assert finished.wait(10)  # the run completed without anyone listening
        rest = http.get(f"{url}/agent/connect", headers={"Last-Event-ID": f"{key}:1"})
    events = sse_events(rest.text)
    assert [e.get("value") for e in events[:-1]] == list(range(20))
    assert events[-1] == {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}


def test_a_thread_reconnect_compacts_history_then_follows_the_running_run() -> None:
    """Over uvicorn: run r1 finished, r2 still running; the thread's history arrives compacted
    (each run's last frame carrying its id), then r2's live tail with ids, up to its end."""
    release = threading.Event()

    async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
        async with ctx.text_message() as message:
            await message.send("a")
            await message.send("b")
            if run_input.run_id == "r2":
                while not release.is_set():
                    await anyio.sleep(0.005)
                await message.send("c")

    app = create_app(agent, store=InMemoryRunStore(), keepalive=None, public_thread_history=True)
    with serve(app) as url, httpx.Client(timeout=10) as http:
        key_1 = http.post(f"{url}/agent", json=BODY).headers["ag-ui-resume-key"]
        with http.stream("POST", f"{url}/agent", json={**BODY, "runId": "r2"}) as running:
            key_2 = running.headers["ag-ui-resume-key"]
            lines = running.iter_lines()
            while next(lines) != f"id: {key_2}:4":  # r2 has sent its second delta
                pass
            with http.stream("GET", f"{url}/agent/connect", params={"threadId": "t1"}) as thread:
                seen: list[str] = []
                for line in thread.iter_lines():
                    seen.append(line)
                    if line == f"id: {key_2}:4":
                        release.set()  # r2's history is out; now let it go on live
    frames = "\n".join(seen)
    assert sse_ids(frames) == [f"{key_1}:6", f"{key_2}:4", f"{key_2}:5", f"{key_2}:6", f"{key_2}:7"]
    r2 = {"threadId": "t1", "runId": "r2"}
    assert sse_events(frames) == [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.0"},
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-r1-1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r1-1", "delta": "ab"},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-r1-1"},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
        {"type": "RUN_STARTED", **r2, "protocolVersion": "1.0"},
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-r2-1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r2-1", "delta": "ab"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r2-1", "delta": "c"},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-r2-1"},
        {"type": "RUN_FINISHED", **r2},
    ]


def test_keepalives_reach_a_client_of_a_detached_run() -> None:
    release = threading.Event()

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        yield CustomEvent(name="a", value=None)
        while not release.is_set():
            await anyio.sleep(0.01)

    app = create_app(agent, store=InMemoryRunStore(), keepalive=0.05)
    with (
        serve(app) as url,
        httpx.Client(timeout=10) as http,
        http.stream("POST", f"{url}/agent", json=BODY) as response,
    ):
        key = response.headers["ag-ui-resume-key"]
        seen = []
        for line in response.iter_lines():
            seen.append(line)
            if line == ": keepalive":
                release.set()
    assert seen[:3] == [
        f"id: {key}:1",
        'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1","protocolVersion":"1.0"}',
        "",
    ]
    assert ": keepalive" in seen
    assert seen[-3:] == [
        f"id: {key}:3",
        'data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}',
        "",
    ]


def test_a_slow_first_reader_falls_back_from_the_live_feed_to_the_store() -> None:
    """Over uvicorn: the agent streams 20,000 1-KiB events (more than the loopback buffers
    hold) while the client reads nothing; the live feed of its connection overflows (limit
    4,096 events), the rest is read back from the store: every position arrives once, in order.
    """
    done = threading.Event()

    async def agent(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        for n in range(20000):
            yield CustomEvent(name="blob", value=f"{n:06d}" + "x" * 1024)
        done.set()

    app = create_app(agent, store=InMemoryRunStore(), keepalive=None)
    with (
        serve(app) as url,
        httpx.Client(timeout=30) as http,
        http.stream("POST", f"{url}/agent", json=BODY) as response,
    ):
        assert done.wait(20)  # the whole run is stored before the client reads a byte
        text = "".join(response.iter_text())
    key = response.headers["ag-ui-resume-key"]
    assert sse_ids(text) == [f"{key}:{n}" for n in range(1, 20003)]
    values = [e["value"][:6] for e in sse_events(text) if e["type"] == "CUSTOM"]
    assert values == [f"{n:06d}" for n in range(20000)]


async def test_a_live_feed_past_its_limit_closes_and_drops_what_it_held() -> None:
    feed = LiveFeed(limit=3)
    feed.push(LiveBatch(1, [b"{}"], None, False))
    assert not feed.closed
    feed.push(LiveBatch(2, [b"{}"] * 3, None, False))
    assert feed.closed
    assert [batch async for batch in feed.batches()] == []
    feed.push(LiveBatch(5, [b"{}"], None, True))  # ignored once closed
    assert [batch async for batch in feed.batches()] == []


async def test_a_live_feed_past_its_byte_limit_closes() -> None:
    """Large events bound a slow reader's feed by bytes, not only by count (tests/deploy
    measures a slow client behind nginx)."""
    feed = LiveFeed(limit=4096, byte_limit=100)
    feed.push(LiveBatch(1, [b"x" * 60], None, False))
    assert not feed.closed
    feed.push(LiveBatch(2, [b"x" * 60], None, False))
    assert feed.closed
    assert [batch async for batch in feed.batches()] == []
    drained = LiveFeed(limit=4096, byte_limit=100)
    for position in range(1, 5):  # a reader that keeps up never reaches the bound
        drained.push(LiveBatch(position, [b"x" * 60], None, False))
        async for _ in drained.batches():
            break
    assert not drained.closed
    # One event larger than the bound is not falling behind: it goes to the reader.
    big = LiveFeed(limit=4096, byte_limit=100)
    big.push(LiveBatch(1, [b"x" * 500], None, False))
    assert not big.closed
    async for batch in big.batches():
        assert len(batch.payloads[0]) == 500
        break


def test_live_batches_are_framed_from_their_wire_json() -> None:
    first, second = CustomEvent(name="a", value=1), CustomEvent(name="b", value=2)
    payloads = [event_to_json(first), event_to_json(second)]
    sse = BatchEncoder(EventEncoder(), "k1")
    assert sse.live(LiveBatch(41, payloads, None, False)) == (
        b'id: k1:41\ndata: {"type":"CUSTOM","name":"a","value":1}\n\n'
        b'id: k1:42\ndata: {"type":"CUSTOM","name":"b","value":2}\n\n'
    )
    proto = EventEncoder(accept="application/vnd.ag-ui.event+proto")
    expected = proto.encode_binary(first) + proto.encode_binary(second)
    kept = BatchEncoder(proto, "k1").live(LiveBatch(41, payloads, [first, second], False))
    assert kept == expected
    # A batch without its models (a writer not told a protobuf reader is attached): rebuilt.
    assert BatchEncoder(proto, "k1").live(LiveBatch(41, payloads, None, False)) == expected
