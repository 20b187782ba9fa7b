"""A run store that stalls is never silent, and no reader waits unbounded (issue 11, item 2).

redis-server is paused with SIGSTOP (by its pid) while a detached run streams on a real
uvicorn: its connections stay open and nothing is answered, the worst kind of store failure.
The run whose events cannot be stored ends with ``RUN_ERROR`` ``store_unavailable`` on the
live stream and in every later replay; the store never holds it as finished without that
terminal event; every reader (the live stream, a reconnect, a thread history) ends with an
error within seconds; the worker keeps serving.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from ag_ui.core import CustomEvent, RunAgentInput, RunFinishedEvent, RunStartedEvent
from ag_ui.server import AgentEndpoint, RunContext
from ag_ui.store import InMemoryRunStore, RedisRunStore, RunStore
from tests.redis_helpers import RedisServer, free_port
from tests.support.servers import serve
from tests.support.sse import sse_events

pytestmark = pytest.mark.anyio

BLOCK_SECONDS = 1.0  # RedisRunStore's defaults
OPERATION_TIMEOUT = 5.0
READER_BOUND = BLOCK_SECONDS + OPERATION_TIMEOUT + 4
"""How long after the pause a reader may take to end: the documented bound, ``block_seconds +
operation_timeout``, and a margin (the machine is shared)."""


async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    if run_input.thread_id == "later":
        await ctx.say("still serving")
        return

    async def pieces() -> AsyncIterator[str]:
        for n in range(5000):  # far longer than the test: only the store failure stops it
            await anyio.sleep(0.02)
            yield f"{n} "

    await ctx.say(pieces())


def body(thread_id: str) -> dict[str, Any]:
    return {"threadId": thread_id, "runId": f"run-{thread_id}", "messages": []}


class Reader:
    """One streaming GET or POST, read to its end in a task; ``ended`` is when it ended."""

    def __init__(self, http: httpx.AsyncClient, method: str, path: str, **kwargs: Any) -> None:
        self.request = (method, path, kwargs)
        self.http = http
        self.text = ""
        self.status = 0
        self.started = anyio.Event()
        self.ended = 0.0
        self.key = ""

    async def __call__(self) -> None:
        method, path, kwargs = self.request
        async with self.http.stream(method, path, **kwargs) as response:
            self.status = response.status_code
            self.key = response.headers.get("ag-ui-resume-key", "")
            async for text in response.aiter_text():
                self.text += text
                if "TEXT_MESSAGE_CONTENT" in self.text:
                    self.started.set()
        self.ended = time.monotonic()
        self.started.set()

    @property
    def events(self) -> list[dict[str, Any]]:
        return sse_events(self.text)


def report(line: str) -> None:
    """A measured bound, for the record (``pytest -s`` shows them)."""
    print(line)


def store_lost(events: list[dict[str, Any]]) -> None:
    """The stream ended with one RUN_ERROR store_unavailable (and nothing after it)."""
    assert events, "the stream was empty"
    assert events[-1]["type"] == "RUN_ERROR", events[-3:]
    assert events[-1]["code"] == "store_unavailable"
    assert [e["type"] for e in events].count("RUN_ERROR") == 1


@pytest.mark.parametrize("pause", [8.0, 15.0])
async def test_a_stalled_redis_ends_the_run_and_every_reader_with_store_unavailable(
    pause: float, tmp_path_factory: pytest.TempPathFactory
) -> None:
    redis = RedisServer(tmp_path_factory.mktemp("stall"))
    prefix = f"stall{free_port()}:"

    def new_store() -> RedisRunStore:
        return RedisRunStore(
            redis.url,
            prefix=prefix,
            block_seconds=BLOCK_SECONDS,
            operation_timeout=OPERATION_TIMEOUT,
        )

    store = new_store()
    endpoint = AgentEndpoint(agent, store=store, keepalive=1.0, public_thread_history=True)

    @asynccontextmanager
    async def lifespan(app: object) -> AsyncIterator[None]:
        async with endpoint.lifespan(app):
            yield
        await store.aclose()  # in the server's event loop, where its connections live

    app = Starlette(routes=endpoint.routes("/agent"), lifespan=lifespan)
    try:
        with serve(app) as url:
            async with httpx.AsyncClient(base_url=url, timeout=60) as http:
                await stall_during_a_run(http, redis, new_store, pause)
    finally:
        redis.stop()


async def stall_during_a_run(
    http: httpx.AsyncClient, redis: RedisServer, new_store: Any, pause: float
) -> None:
    live = Reader(http, "POST", "/agent", json=body("t1"))
    async with anyio.create_task_group() as group:
        group.start_soon(live)
        with anyio.fail_after(10):
            await live.started.wait()
        reconnect = Reader(http, "GET", "/agent/connect", params={"runKey": live.key})
        thread = Reader(http, "GET", "/agent/connect", params={"threadId": "t1"})
        group.start_soon(reconnect)
        group.start_soon(thread)
        with anyio.fail_after(10):
            await reconnect.started.wait()
            await thread.started.wait()
        probes: dict[str, tuple[httpx.Response, float]] = {}

        async def probe(name: str, params: dict[str, str]) -> None:
            sent = time.monotonic()
            response = await http.get("/agent/connect", params=params)
            probes[name] = (response, time.monotonic() - sent)

        with redis.paused():
            stalled = time.monotonic()
            await anyio.sleep(0.5)
            # Readers arriving while the store is stalled.
            group.start_soon(probe, "reconnect", {"runKey": live.key})
            group.start_soon(probe, "thread", {"threadId": "t1"})
            await anyio.sleep(pause - 0.5)
        resumed = time.monotonic()
        with anyio.fail_after(READER_BOUND + 10):
            while not (live.ended and reconnect.ended and thread.ended):
                await anyio.sleep(0.05)
    timings = {
        name: round(reader.ended - stalled, 1)
        for name, reader in [("live", live), ("reconnect", reconnect), ("thread", thread)]
    }
    report(f"pause {pause:g} s: the readers ended {timings} s after SIGSTOP")
    for name, (response, took) in probes.items():
        report(
            f"pause {pause:g} s: a {name} during the stall: {response.status_code}, {took:.1f} s"
        )
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "store_unavailable"
        assert took < READER_BOUND
    for reader in (live, reconnect, thread):
        assert reader.status == 200
        store_lost(reader.events)
        # Within seconds of the store stalling, not after the run's TTL.
        assert reader.ended - stalled < READER_BOUND

    # After the store is back: the stored run ends with its RUN_ERROR, is marked finished,
    # and every replay (the run, the thread) ends with that RUN_ERROR.
    checker = new_store()
    try:
        with anyio.fail_after(READER_BOUND + 10):
            while not (await checker.get(live.key)).finished:
                await anyio.sleep(0.1)
        after = time.monotonic() - resumed
        report(f"pause {pause:g} s: finished in the store {after:.1f} s after SIGCONT")
        stored = [item.event async for item in checker.read(live.key)]
    finally:
        await checker.aclose()
    assert stored[-1].type == "RUN_ERROR"
    assert stored[-1].code == "store_unavailable"
    with anyio.fail_after(10):
        replay = await http.get("/agent/connect", params={"runKey": live.key})
        history = await http.get("/agent/connect", params={"threadId": "t1"})
        later = await http.post("/agent", json=body("later"))
    store_lost(sse_events(replay.text))
    store_lost(sse_events(history.text))
    # The worker keeps serving.
    assert later.status_code == 200
    assert sse_events(later.text)[-1]["type"] == "RUN_FINISHED"


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_a_run_stored_as_finished_without_its_terminal_event_is_replayed_with_an_error(
    kind: str, request: pytest.FixtureRequest
) -> None:
    # What a server before this fix left behind after a stall (and what a store of one's own
    # may hold): a finished run without RUN_FINISHED or RUN_ERROR. A replay must not end as if
    # the run were complete; resuming after a run's real terminal event reads nothing more.
    if kind == "memory":
        store: RunStore = InMemoryRunStore()
    else:
        redis: RedisServer = request.getfixturevalue("redis_server")
        store = RedisRunStore(redis.url, prefix=f"cut{free_port()}:", block_seconds=0.2)
    endpoint = AgentEndpoint(agent, store=store, keepalive=None, public_thread_history=True)
    started = RunStartedEvent(thread_id="t", run_id="r")

    @asynccontextmanager
    async def lifespan(app: object) -> AsyncIterator[None]:
        await store.create("cut", "t")
        await store.append_many("cut", [started, CustomEvent(name="n", value=1)])
        await store.finish("cut")
        await store.create("whole", "t")
        await store.append_many("whole", [started, RunFinishedEvent(thread_id="t", run_id="r")])
        await store.finish("whole")
        async with endpoint.lifespan(app):
            yield
        await store.aclose()

    app = Starlette(routes=endpoint.routes("/agent"), lifespan=lifespan)
    with serve(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=20) as http:
            with anyio.fail_after(15):
                cut = await http.get("/agent/connect", params={"runKey": "cut"})
                after_cut = await http.get("/agent/connect", headers={"last-event-id": "cut:2"})
                whole = await http.get("/agent/connect", params={"runKey": "whole"})
                after_end = await http.get("/agent/connect", headers={"last-event-id": "whole:2"})
                thread = await http.get("/agent/connect", params={"threadId": "t"})
    lost = {
        "type": "RUN_ERROR",
        "message": "The run ended without its terminal event; the run store lost the rest of it.",
        "code": "store_unavailable",
    }
    assert [e["type"] for e in sse_events(cut.text)] == ["RUN_STARTED", "CUSTOM", "RUN_ERROR"]
    assert sse_events(cut.text)[-1] == lost
    assert sse_events(after_cut.text) == [lost]
    assert [e["type"] for e in sse_events(whole.text)] == ["RUN_STARTED", "RUN_FINISHED"]
    assert after_end.status_code == 200
    assert sse_events(after_end.text) == []
    assert [e["type"] for e in sse_events(thread.text)] == [
        *("RUN_STARTED", "CUSTOM", "RUN_ERROR"),  # the cut run, with the error added
        *("RUN_STARTED", "RUN_FINISHED"),
    ]
