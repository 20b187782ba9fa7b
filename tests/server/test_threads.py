"""Threads kept by the server (``AgentEndpoint(threads=...)``), over real HTTP (uvicorn on
127.0.0.1) with a real SQLite file: the stored history the agent sees, the merge rule, the
threads endpoints, restoring into ``HttpAgent``, ownership, and the faults (a store that does not
answer turns the run's end into ``RUN_ERROR thread_not_saved``)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import anyio
import httpx
import pytest
from starlette.requests import Request

from ag_ui.client import HttpAgent, HTTPStatusError
from ag_ui.core import RunAgentInput, UserMessage
from ag_ui.core.errors import RequestRejectedError
from ag_ui.server import RunContext, create_app
from ag_ui.server._merge import merge_history
from ag_ui.store import (
    InMemoryRunStore,
    PostgresThreadStore,
    SqliteThreadStore,
    StoredThread,
    ThreadStore,
    ThreadSummary,
)
from tests.postgres_helpers import PostgresServer
from tests.support.servers import serve
from tests.support.sse import sse_events

pytestmark = pytest.mark.anyio


async def counting_agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    """Says how many messages it was given, and keeps a count of its runs in the state."""
    runs = (run_input.state or {}).get("runs", 0) + 1
    await ctx.state.snapshot({"runs": runs})
    await ctx.say(f"I see {len(run_input.messages)} messages.")


async def slow_agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    await ctx.say("started")
    await anyio.sleep(30)


def authorize(request: Request) -> Any:
    user = request.headers.get("x-user")
    if user is None:
        return None  # anonymous
    if not user:
        raise RequestRejectedError(401, "unauthorized", "say who you are")
    return user


def user(text: str, message_id: str) -> dict[str, Any]:
    return {"id": message_id, "role": "user", "content": text}


def body(*messages: dict[str, Any], thread_id: str = "t1", run_id: str = "r1") -> dict[str, Any]:
    return {"threadId": thread_id, "runId": run_id, "messages": list(messages)}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "threads.db"


@pytest.fixture(params=["sqlite", "postgres"])
def threads(request: pytest.FixtureRequest, db: Path) -> Iterator[ThreadStore]:
    """The same tests on the embedded default and on a real PostgreSQL."""
    if request.param == "sqlite":
        yield SqliteThreadStore(db)
        return
    postgres: PostgresServer = request.getfixturevalue("postgres_server")
    url = postgres.database()
    yield PostgresThreadStore(url)
    postgres.drop(url)


@pytest.fixture
def server(threads: ThreadStore) -> Iterator[str]:
    app = create_app(counting_agent, authorize=authorize, threads=threads)
    with serve(app) as url:
        yield url + "/agent"


def post(url: str, payload: dict[str, Any], who: Optional[str] = "alice") -> list[dict[str, Any]]:
    headers = {"x-user": who} if who is not None else {}
    response = httpx.post(url, json=payload, headers=headers, timeout=20)
    assert response.status_code == 200, response.text
    return sse_events(response.text)


def get(url: str, who: Optional[str] = "alice", **params: Any) -> httpx.Response:
    headers = {"x-user": who} if who is not None else {}
    return httpx.get(url, headers=headers, params=params, timeout=20)


def said(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def test_the_agent_sees_the_stored_history_when_the_client_sends_only_its_new_message(
    server: str,
) -> None:
    first = post(server, body(user("Hello", "u1")))
    assert said(first) == "I see 1 messages."
    second = post(server, body(user("And again", "u2"), run_id="r2"))
    # Stored: u1, the first reply; then u2 appended: 3 messages, and the stored state.
    assert said(second) == "I see 3 messages."
    thread = get(server + "/threads/t1").json()
    assert [m["role"] for m in thread["messages"]] == ["user", "assistant", "user", "assistant"]
    assert thread["state"] == {"runs": 2}
    assert [run["runId"] for run in thread["runs"]] == ["r1", "r2"]
    assert [run["outcome"] for run in thread["runs"]] == ["success", "success"]
    assert thread["title"] == "Hello"
    assert thread["messageCount"] == 4
    assert thread["runCount"] == 2


def test_a_client_that_sends_the_whole_history_is_not_duplicated(server: str) -> None:
    first = post(server, body(user("Hello", "u1")))
    reply = next(e for e in first if e["type"] == "TEXT_MESSAGE_START")["messageId"]
    history = [user("Hello", "u1"), {"id": reply, "role": "assistant", "content": "x"}]
    second = post(server, body(*history, user("Next", "u2"), run_id="r2"))
    assert said(second) == "I see 3 messages."
    thread = get(server + "/threads/t1").json()
    assert [m["id"] for m in thread["messages"]][:3] == ["u1", reply, "u2"]
    # The client's list is the history: its edit of the reply is kept (it owns the thread).
    assert thread["messages"][1]["content"] == "x"


def test_a_regenerate_cuts_the_stored_history(server: str) -> None:
    post(server, body(user("Hello", "u1")))
    post(server, body(user("Second", "u2"), run_id="r2"))
    # The client drops everything after u1 and asks again.
    again = post(server, body(user("Hello", "u1"), run_id="r3"))
    assert said(again) == "I see 1 messages."
    assert get(server + "/threads/t1").json()["messageCount"] == 2


def test_listing_is_newest_first_paged_and_titled_by_the_first_user_message(server: str) -> None:
    for index in range(5):
        post(server, body(user(f"Question {index}", f"u{index}"), thread_id=f"t{index}"))
        time.sleep(0.01)
    page = get(server + "/threads", limit=2).json()
    assert [t["threadId"] for t in page["threads"]] == ["t4", "t3"]
    assert page["threads"][0]["title"] == "Question 4"
    rest = get(server + "/threads", limit=10, cursor=page["nextCursor"]).json()
    assert [t["threadId"] for t in rest["threads"]] == ["t2", "t1", "t0"]
    assert rest["nextCursor"] is None


def test_rename_and_delete(server: str) -> None:
    post(server, body(user("Hello", "u1")))
    renamed = httpx.patch(
        server + "/threads/t1", json={"title": "Greetings"}, headers={"x-user": "alice"}
    )
    assert renamed.status_code == 200
    assert renamed.json()["title"] == "Greetings"
    post(server, body(user("More", "u2"), run_id="r2"))
    assert get(server + "/threads/t1").json()["title"] == "Greetings"  # kept over saves
    deleted = httpx.delete(server + "/threads/t1", headers={"x-user": "alice"})
    assert deleted.status_code == 204
    assert get(server + "/threads/t1").status_code == 404
    assert get(server + "/threads").json()["threads"] == []


def test_strangers_get_404_and_cannot_overwrite(server: str) -> None:
    post(server, body(user("Alice's secret", "u1")))
    for response in (
        get(server + "/threads/t1", who="bob"),
        httpx.patch(server + "/threads/t1", json={"title": "mine"}, headers={"x-user": "bob"}),
        httpx.delete(server + "/threads/t1", headers={"x-user": "bob"}),
        get(server + "/connect", who="bob", threadId="t1"),
    ):
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "thread_not_found"
        assert "secret" not in response.text
    assert get(server + "/threads", who="bob").json()["threads"] == []
    # Bob's run on Alice's thread id neither sees nor overwrites her thread.
    events = post(server, body(user("Hi", "b1"), run_id="rb"), who="bob")
    assert said(events) == "I see 1 messages."
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "thread_not_saved"
    assert get(server + "/threads/t1").json()["messages"][0]["content"] == "Alice's secret"


def test_anonymous_callers_have_no_threads_unless_opted_in(db: Path) -> None:
    store = SqliteThreadStore(db)
    with serve(create_app(counting_agent, threads=store)) as url:
        events = post(url + "/agent", body(user("Hello", "u1")), who=None)
        assert events[-1]["type"] == "RUN_FINISHED"  # the run works, it is just not kept
        listing = get(url + "/agent/threads", who=None)
        assert listing.status_code == 403
        assert listing.json()["error"]["code"] == "thread_history_not_public"
        assert get(url + "/agent/connect", who=None, threadId="t1").status_code == 403
    with serve(create_app(counting_agent, threads=store, public_thread_history=True)) as url:
        post(url + "/agent", body(user("Hello", "u1")), who=None)
        post(url + "/agent", body(user("Again", "u2"), run_id="r2"), who=None)
        thread = get(url + "/agent/threads/t1", who=None).json()
        assert thread["messageCount"] == 4


async def test_http_agent_restores_a_thread_after_a_reload(server: str) -> None:
    async with HttpAgent(server, headers={"x-user": "alice"}, thread_id="t9") as agent:
        agent.add_message(UserMessage(id="u1", content="Hello"))
        await agent.run_agent()
        before = [(m.id, m.role) for m in agent.messages]
    # A new page: a fresh agent knows only the thread id.
    async with HttpAgent(server, headers={"x-user": "alice"}) as reloaded:
        await reloaded.load_thread("t9")
        assert reloaded.thread_id == "t9"
        assert [(m.id, m.role) for m in reloaded.messages] == before
        assert reloaded.state == {"runs": 1}
        reloaded.add_message(UserMessage(id="u2", content="Where were we?"))
        result = await reloaded.run_agent()
        assert "I see 3 messages." in str(result.new_messages[-1].content)
    async with HttpAgent(server, headers={"x-user": "bob"}) as stranger:
        with pytest.raises(HTTPStatusError) as caught:
            await stranger.load_thread("t9")
        assert caught.value.status == 404
        assert stranger.thread_id != "t9"


def test_connect_serves_the_stored_thread_as_snapshots(server: str) -> None:
    post(server, body(user("Hello", "u1")))
    response = get(server + "/connect", threadId="t1")
    assert response.status_code == 200
    types = [e["type"] for e in sse_events(response.text)]
    assert types == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]


def test_bad_requests_are_named(server: str) -> None:
    post(server, body(user("Hello", "u1")))
    cases = [
        (get(server + "/threads", limit="many"), 400, "invalid_limit"),
        (get(server + "/threads", limit=0), 400, "invalid_limit"),
        (get(server + "/threads", cursor="garbage"), 400, "invalid_cursor"),
        (
            httpx.patch(server + "/threads/t1", json={"title": ""}, headers={"x-user": "alice"}),
            400,
            "invalid_title",
        ),
        (
            httpx.patch(server + "/threads/t1", content=b"{", headers={"x-user": "alice"}),
            415,
            "unsupported_media_type",
        ),
        (httpx.post(server + "/threads/t1", headers={"x-user": "alice"}), 405, None),
        (httpx.get(server + "/threads", headers={"x-user": ""}), 401, "unauthorized"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, response.text
        if code is not None:
            assert response.json()["error"]["code"] == code


def test_a_store_that_does_not_answer_fails_the_run_visibly(db: Path) -> None:
    store = SqliteThreadStore(db, timeout=0.5)
    with serve(create_app(counting_agent, authorize=authorize, threads=store)) as url:
        post(url + "/agent", body(user("Hello", "u1")))
        blocker = sqlite3.connect(db, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")  # holds the write lock (and, exclusive, reads too)
        try:
            started = time.monotonic()
            response = httpx.post(
                url + "/agent",
                json=body(user("More", "u2"), run_id="r2"),
                headers={"x-user": "alice"},
                timeout=20,
            )
            elapsed = time.monotonic() - started
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert elapsed < 5
        if response.status_code == 503:  # the load before the run did not answer
            assert response.json()["error"]["code"] == "thread_store_unavailable"
        else:
            events = sse_events(response.text)
            assert events[-1]["type"] == "RUN_ERROR"
            assert events[-1]["code"] == "thread_not_saved"
        # Nothing half-written: the thread is as the first run left it.
        thread = get(url + "/agent/threads/t1").json()
        assert thread["messageCount"] == 2
        assert thread["runCount"] == 1


def test_a_save_that_fails_replaces_run_finished(db: Path) -> None:
    store = SqliteThreadStore(db, timeout=0.5)
    blocked: list[sqlite3.Connection] = []

    async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
        await ctx.say("hello")
        # The database is locked after the load, before the save.
        connection = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        connection.execute("BEGIN IMMEDIATE")
        blocked.append(connection)

    with serve(create_app(agent, authorize=authorize, threads=store)) as url:
        try:
            events = post(url + "/agent", body(user("Hello", "u1")))
        finally:
            for connection in blocked:
                connection.execute("ROLLBACK")
                connection.close()
        assert [e["type"] for e in events][-2:] == ["TEXT_MESSAGE_END", "RUN_ERROR"]
        assert events[-1]["code"] == "thread_not_saved"
        assert get(url + "/agent/threads/t1").status_code == 404


def test_half_an_emoji_is_kept_and_read_back(threads: ThreadStore) -> None:
    """A reply cut inside a surrogate pair (a provider's stream relayed as it came) is saved
    as its JSON escape, and the threads endpoints give the same string back."""

    async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
        await ctx.state.snapshot({"last": "\udc00"})
        await ctx.say("half an emoji: \ud83d")

    with serve(create_app(agent, authorize=authorize, threads=threads)) as url:
        # As JSON.stringify writes it (httpx's json= would refuse the lone surrogate).
        response = httpx.post(
            url + "/agent",
            content=json.dumps(body(user("cut \ud83d here", "u1"))),
            headers={"x-user": "alice", "content-type": "application/json"},
            timeout=20,
        )
        events = sse_events(response.text)
        assert events[-1]["type"] == "RUN_FINISHED", events[-1]
        response = get(url + "/agent/threads/t1")
        assert response.status_code == 200, response.text
        thread = response.json()
        assert [m["content"] for m in thread["messages"]] == [
            "cut \ud83d here",
            "half an emoji: \ud83d",
        ]
        assert thread["state"] == {"last": "\udc00"}
        assert thread["title"] == "cut \ufffd here"
        listed = get(url + "/agent/threads").json()
        assert [t["title"] for t in listed["threads"]] == ["cut \ufffd here"]


def test_a_store_that_raises_something_else_still_ends_the_run(db: Path) -> None:
    """A thread store with a bug of its own (any exception from ``save``) ends the run with
    ``RUN_ERROR thread_not_saved`` instead of cutting the stream."""

    class BrokenStore(SqliteThreadStore):
        async def save(self, *args: Any, **kwargs: Any) -> ThreadSummary:
            raise RuntimeError("a bug in the store")

    with serve(create_app(counting_agent, authorize=authorize, threads=BrokenStore(db))) as url:
        events = post(url + "/agent", body(user("Hello", "u1")))
        assert events[-1]["type"] == "RUN_ERROR"
        assert events[-1]["code"] == "thread_not_saved"


def test_detached_runs_are_kept_too(db: Path) -> None:
    app = create_app(
        counting_agent, authorize=authorize, threads=SqliteThreadStore(db), store=InMemoryRunStore()
    )
    with serve(app) as url:
        post(url + "/agent", body(user("Hello", "u1")))
        events = post(url + "/agent", body(user("Again", "u2"), run_id="r2"))
        assert said(events) == "I see 3 messages."
        thread = get(url + "/agent/threads/t1").json()
        assert thread["runCount"] == 2
        assert thread["state"] == {"runs": 2}
        # With a run store too, connect?threadId= restores from the thread store.
        history = sse_events(get(url + "/agent/connect", threadId="t1").text)
        assert history[1]["type"] == "MESSAGES_SNAPSHOT"
        assert len(history[1]["messages"]) == 4


async def test_a_run_the_client_leaves_is_kept_as_cancelled(db: Path) -> None:
    store = SqliteThreadStore(db)
    with serve(create_app(slow_agent, authorize=authorize, threads=store)) as url:
        async with (
            httpx.AsyncClient(timeout=20) as client,
            client.stream(
                "POST", url + "/agent", json=body(user("Hello", "u1")), headers={"x-user": "alice"}
            ) as response,
        ):
            async for line in response.aiter_lines():
                if "TEXT_MESSAGE_CONTENT" in line:
                    break  # the user closes the tab
        with anyio.fail_after(10):
            while True:
                try:
                    stored = await store.load("t1", owner="alice")
                    break
                except LookupError:
                    await anyio.sleep(0.05)
        assert [run.outcome for run in stored.runs] == ["cancelled"]
        assert [m.role for m in stored.messages] == ["user", "assistant"]
        assert stored.messages[1].content == "started"


def test_merge_rule() -> None:
    def thread(*ids: str, state: Any = None) -> StoredThread:
        summary = ThreadSummary("t", "o", "", 0.0, 0.0, len(ids), 1)
        messages = [UserMessage(id=i, content=i) for i in ids]
        return StoredThread(summary=summary, messages=list(messages), state=state)

    def request(*ids: str, state: Any = None) -> RunAgentInput:
        return RunAgentInput.model_validate(
            {**body(*(user(i, i) for i in ids)), **({"state": state} if state is not None else {})}
        )

    def ids(run_input: RunAgentInput) -> list[str]:
        return [m.id for m in run_input.messages]

    assert ids(merge_history(None, request("a"))) == ["a"]
    assert ids(merge_history(thread("a", "b"), request("c"))) == ["a", "b", "c"]
    assert ids(merge_history(thread("a", "b"), request("a", "b", "c"))) == ["a", "b", "c"]
    assert ids(merge_history(thread("a", "b"), request("a", "x"))) == ["a", "x"]
    assert ids(merge_history(thread("a", "b"), request())) == ["a", "b"]
    assert merge_history(thread("a", state={"k": 1}), request("b")).state == {"k": 1}
    assert merge_history(thread("a", state={"k": 1}), request("b", state={"k": 2})).state == {
        "k": 2
    }


def test_the_threads_endpoints_exist_only_with_a_thread_store() -> None:
    with serve(create_app(counting_agent)) as url:
        response = httpx.get(url + "/agent/threads")
        assert response.status_code == 404


def test_postgres_stopped_and_restarted_under_runs(postgres_server: PostgresServer) -> None:
    """Runs while the database is away fail visibly and in bounded time (503 before the run,
    or RUN_ERROR thread_not_saved at its end), nothing is half-written, and once it is back the
    pool recovers and runs are kept again."""
    url = postgres_server.database()
    store = PostgresThreadStore(url, timeout=2.0, connect_timeout=1)
    app = create_app(counting_agent, authorize=authorize, threads=store)
    try:
        with serve(app) as base:
            agent_url = base + "/agent"
            post(agent_url, body(user("Hello", "u1")))
            postgres_server.stop("fast")
            try:
                for attempt in range(3):
                    started = time.monotonic()
                    response = httpx.post(
                        agent_url,
                        json=body(
                            user(f"while down {attempt}", f"d{attempt}"), run_id=f"d{attempt}"
                        ),
                        headers={"x-user": "alice"},
                        timeout=20,
                    )
                    assert time.monotonic() - started < 2.0 + 2.0
                    if response.status_code == 503:
                        assert response.json()["error"]["code"] == "thread_store_unavailable"
                    else:
                        events = sse_events(response.text)
                        assert events[-1]["type"] == "RUN_ERROR"
                        assert events[-1]["code"] == "thread_not_saved"
            finally:
                postgres_server.start()
            deadline = time.monotonic() + 20
            while True:  # the pool reconnects with a backoff
                response = httpx.post(
                    agent_url,
                    json=body(user("back", "u2"), run_id="r2"),
                    headers={"x-user": "alice"},
                    timeout=20,
                )
                if response.status_code == 200 and '"RUN_FINISHED"' in response.text:
                    break
                assert time.monotonic() < deadline, response.text
                time.sleep(0.2)
            thread = get(agent_url + "/threads/t1").json()
            assert [m["content"] for m in thread["messages"] if m["role"] == "user"] == [
                "Hello",
                "back",
            ]
            assert [run["runId"] for run in thread["runs"]] == ["r1", "r2"]
    finally:
        postgres_server.drop(url)


def test_a_typescript_front_end_restores_a_thread_from_the_endpoint(server: str) -> None:
    """@ag-ui/client 1.0.0 (whose HttpAgent does not implement connect) reads the thread
    endpoint, sets messages and state, and goes on: the real TypeScript client, in Node."""
    import shutil
    import subprocess

    interop = Path(__file__).resolve().parents[1] / "interop"
    post(server, body(user("Hello from the browser", "u1")))
    node = shutil.which("node")
    assert node is not None, "node is required for the TypeScript peer tests"
    done = subprocess.run(
        [
            node,
            str(interop / "ts_thread_restore.mjs"),
            server,
            "t1",
            "After the reload",
            json.dumps({"x-user": "alice"}),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=interop,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["restored"] == 2
    # The TS client sent the whole history (it holds the thread): no duplicates.
    assert [m["role"] for m in result["messages"]] == ["user", "assistant", "user", "assistant"]
    assert result["messages"][-1]["content"] == "I see 3 messages."
    assert result["state"] == {"runs": 2}
    assert get(server + "/threads/t1").json()["messageCount"] == 4
