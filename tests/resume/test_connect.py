"""The resume protocol on the server: ids and headers on a detached run's response, the connect
endpoint (Last-Event-ID, query parameters, protobuf), bad input, ownership, thread history."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest
from starlette.requests import Request

from ag_ui.core import RunAgentInput
from ag_ui.core.errors import RequestRejectedError
from ag_ui.proto import FrameDecoder
from ag_ui.server import RunContext, create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.verify import compact_events
from tests.support.sse import sse_events, sse_ids

from .resume_helpers import lifespan, wire

pytestmark = pytest.mark.anyio

NOT_FOUND = {
    "error": {
        "code": "run_not_found",
        "message": "no such run: unknown, expired, or not accessible with these credentials",
        "details": [],
    }
}


async def hello(run_input: RunAgentInput, ctx: RunContext) -> None:
    await ctx.say(["Hello", " world"])
    await ctx.state.snapshot({"greeted": run_input.run_id})


def body(run_id: str = "r1", thread_id: str = "t1") -> dict[str, Any]:
    return {"threadId": thread_id, "runId": run_id, "messages": []}


def authorize(request: Request) -> Any:
    user = request.headers.get("x-user")
    if not user:
        raise RequestRejectedError(401, "unauthorized", "say who you are")
    return {"user": user}


class Server:
    def __init__(self, **options: Any) -> None:
        self.store = options.setdefault("store", InMemoryRunStore())
        self.app = create_app(hello, **options)
        transport = httpx.ASGITransport(app=self.app)
        self.http = httpx.AsyncClient(transport=transport, base_url="http://localhost")

    async def run(self, run_id: str = "r1", **kwargs: Any) -> httpx.Response:
        with anyio.fail_after(10):
            return await self.http.post("/agent", json=body(run_id), **kwargs)

    async def connect(self, **kwargs: Any) -> httpx.Response:
        with anyio.fail_after(10):
            return await self.http.get("/agent/connect", **kwargs)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    server = Server(public_thread_history=True)
    async with lifespan(server.app), server.http:
        yield server


EXPECTED_RUN = [
    {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.0"},
    {"type": "TEXT_MESSAGE_START", "messageId": "msg-r1-1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r1-1", "delta": "Hello"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-r1-1", "delta": " world"},
    {"type": "TEXT_MESSAGE_END", "messageId": "msg-r1-1"},
    {"type": "STATE_SNAPSHOT", "snapshot": {"greeted": "r1"}},
    {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
]


async def test_a_detached_run_streams_with_resume_ids_and_names_its_key(server: Server) -> None:
    response = await server.run()
    assert response.status_code == 200
    key = response.headers["ag-ui-resume-key"]
    assert len(key) == 24  # minted by the server (secrets), not the client's runId
    assert response.headers["ag-ui-resume-after"] == "0"
    assert response.headers["content-type"] == "text/event-stream"
    assert sse_events(response.text) == EXPECTED_RUN
    assert sse_ids(response.text) == [f"{key}:{n}" for n in range(1, 8)]
    assert response.text.startswith(f"id: {key}:1\ndata: ")
    other = await server.run()
    assert other.headers["ag-ui-resume-key"] != key


async def test_connect_returns_every_later_event_once(server: Server) -> None:
    key = (await server.run()).headers["ag-ui-resume-key"]
    by_header = await server.connect(headers={"Last-Event-ID": f"{key}:4"})
    assert by_header.status_code == 200
    assert sse_events(by_header.text) == EXPECTED_RUN[4:]
    assert sse_ids(by_header.text) == [f"{key}:5", f"{key}:6", f"{key}:7"]
    by_query = await server.connect(params={"lastEventId": f"{key}:4"})
    assert by_query.text == by_header.text
    # The header wins over a stale query (a browser reconnects to the same URL).
    both = await server.connect(
        params={"lastEventId": f"{key}:1"}, headers={"Last-Event-ID": f"{key}:4"}
    )
    assert both.text == by_header.text
    whole = await server.connect(params={"runKey": key})
    assert sse_events(whole.text) == EXPECTED_RUN
    assert (await server.connect(headers={"Last-Event-ID": f"{key}:7"})).text == ""


async def test_a_detached_run_started_over_protobuf_streams_protobuf_frames(
    server: Server,
) -> None:
    # The first connection reads the run's writer: its batches carry the models for protobuf.
    response = await server.run(headers={"Accept": "application/vnd.ag-ui.event+proto"})
    assert response.headers["content-type"] == "application/vnd.ag-ui.event+proto"
    assert response.headers["ag-ui-resume-after"] == "0"
    assert wire(FrameDecoder().feed(response.content)) == EXPECTED_RUN
    key = response.headers["ag-ui-resume-key"]
    # The store holds the same run, replayed over SSE from the wire JSON it kept.
    replay = await server.connect(params={"runKey": key})
    assert sse_events(replay.text) == EXPECTED_RUN


async def test_connect_over_protobuf_names_the_start_position(server: Server) -> None:
    key = (await server.run()).headers["ag-ui-resume-key"]
    response = await server.connect(
        params={"lastEventId": f"{key}:5"},
        headers={"Accept": "application/vnd.ag-ui.event+proto"},
    )
    assert response.headers["content-type"] == "application/vnd.ag-ui.event+proto"
    assert response.headers["ag-ui-resume-key"] == key
    assert response.headers["ag-ui-resume-after"] == "5"
    assert wire(FrameDecoder().feed(response.content)) == EXPECTED_RUN[5:]


async def test_a_future_position_reads_from_the_end(server: Server) -> None:
    key = (await server.run()).headers["ag-ui-resume-key"]
    response = await server.connect(headers={"Last-Event-ID": f"{key}:99"})
    assert response.status_code == 200
    assert response.headers["ag-ui-resume-after"] == "7"
    assert response.text == ""


@pytest.mark.parametrize(
    "last_event_id", ["abc", "k:-1", "k:1.5", ":3", "k:", "a b:1", "k:" + "9" * 19]
)
async def test_a_malformed_last_event_id_is_a_400(server: Server, last_event_id: str) -> None:
    response = await server.connect(headers={"Last-Event-ID": last_event_id})
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": "malformed_last_event_id",
            "message": "the last event id must look like '<resume key>:<position>' "
            "(the id of an SSE frame this server sent)",
            "details": [f"got {last_event_id!r}"],
        }
    }


async def test_connect_needs_a_target_and_get(server: Server) -> None:
    response = await server.connect()
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "missing_last_event_id"
    bad_key = await server.connect(params={"runKey": "../etc"})
    assert (bad_key.status_code, bad_key.json()["error"]["code"]) == (400, "malformed_run_key")
    post = await server.http.post("/agent/connect", json={})
    assert (post.status_code, post.headers["allow"]) == (405, "GET")


async def test_unknown_and_expired_runs_are_the_same_404() -> None:
    now = [1000.0]
    store = InMemoryRunStore(finished_ttl=60, clock=lambda: now[0])
    server = Server(store=store, public_thread_history=True)
    async with lifespan(server.app), server.http:
        key = (await server.run()).headers["ag-ui-resume-key"]
        assert (await server.connect(params={"runKey": key})).status_code == 200
        now[0] += 61
        for response in (
            await server.connect(params={"runKey": key}),
            await server.connect(headers={"Last-Event-ID": "unknownkey:1"}),
            await server.connect(params={"threadId": "t1"}),
        ):
            assert response.status_code == 404
            assert response.json() == NOT_FOUND


async def test_only_the_runs_creator_may_reconnect() -> None:
    server = Server(authorize=authorize)
    async with lifespan(server.app), server.http:
        key = (await server.run(headers={"x-user": "alice"})).headers["ag-ui-resume-key"]
        mine = await server.connect(params={"runKey": key}, headers={"x-user": "alice"})
        assert sse_events(mine.text) == EXPECTED_RUN
        theirs = await server.connect(params={"runKey": key}, headers={"x-user": "bob"})
        unknown = await server.connect(params={"runKey": "x" * 24}, headers={"x-user": "bob"})
        assert (theirs.status_code, theirs.content) == (404, unknown.content)
        assert theirs.json() == NOT_FOUND
        history = await server.connect(params={"threadId": "t1"}, headers={"x-user": "bob"})
        assert (history.status_code, history.json()) == (404, NOT_FOUND)
        anonymous = await server.connect(params={"runKey": key})
        assert anonymous.status_code == 401  # the same hook guards the connect endpoint


async def test_access_set_on_the_endpoint_later_guards_every_route() -> None:
    # The run, capabilities and connect endpoints share one AccessControl: a hook and a
    # principal assigned to the endpoint after the app was built apply to all of them.
    server = Server()
    endpoint = server.app.state.endpoint
    endpoint.authorize = authorize
    endpoint.principal = lambda verdict: verdict["user"].upper()
    assert endpoint.access.hook is authorize
    async with lifespan(server.app), server.http:
        assert (await server.run()).status_code == 401
        key = (await server.run(headers={"x-user": "alice"})).headers["ag-ui-resume-key"]
        assert (await server.store.get(key)).owner == "ALICE"
        assert (await server.connect(params={"runKey": key})).status_code == 401
        mine = await server.connect(params={"runKey": key}, headers={"x-user": "alice"})
        assert sse_events(mine.text) == EXPECTED_RUN


async def test_a_thread_reconnect_returns_its_compacted_history(server: Server) -> None:
    first = (await server.run("r1")).headers["ag-ui-resume-key"]
    second = (await server.run("r2")).headers["ag-ui-resume-key"]
    response = await server.connect(params={"threadId": "t1"})
    assert response.status_code == 200
    run_1 = EXPECTED_RUN
    run_2 = json.loads(json.dumps(EXPECTED_RUN).replace('"r1"', '"r2"').replace("-r1-", "-r2-"))
    expected = wire(compact_events(_events(run_1))) + wire(compact_events(_events(run_2)))
    assert sse_events(response.text) == expected
    assert expected[2]["delta"] == "Hello world"  # the two deltas were joined
    # The last frame of each run carries its id: a resume point for that run.
    assert sse_ids(response.text) == [f"{first}:7", f"{second}:7"]
    assert len(expected) == 12


def _events(dicts: list[dict[str, Any]]) -> list[Any]:
    from ag_ui.core.decoding import parse_event

    return [parse_event(d) for d in dicts]


async def test_a_trimmed_position_ends_the_stream_with_history_trimmed() -> None:
    server = Server(store=InMemoryRunStore(max_events_per_run=5))
    async with lifespan(server.app), server.http:
        key = (await server.run()).headers["ag-ui-resume-key"]
        response = await server.connect(params={"runKey": key})
        tail = await server.connect(headers={"Last-Event-ID": f"{key}:2"})
    assert response.status_code == 200
    assert sse_events(response.text) == [
        {
            "type": "RUN_ERROR",
            "message": f"run {key!r}: events after position 0 are no longer stored "
            "(oldest kept is 3); raise the store's max_events_per_run (or an "
            "InMemoryRunStore's max_bytes) to keep more",
            "code": "history_trimmed",
        }
    ]
    assert sse_ids(response.text) == []  # not a stored event: no id
    assert sse_events(tail.text) == EXPECTED_RUN[2:]
