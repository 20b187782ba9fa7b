"""Stored threads that every client gets right on the first try (issue 36, items 1-7), over
real HTTP (uvicorn on 127.0.0.1) with the demo agent, on SQLite and a real PostgreSQL: a client
that sends only its new message ends each turn with the server's stored state (our HttpAgent
and the official TypeScript client in Node), a reused message id is a 409 and never a cut
history, activity messages survive later turns, a cancelled run's half reply is marked, and bad
ids and deep nesting are one clear 400 on every store."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from ag_ui.apply import PatchFailedWarning
from ag_ui.client import HttpAgent
from ag_ui.core import RunAgentInput, UserMessage
from ag_ui.core.errors import RequestRejectedError
from ag_ui.demo import create_demo_app
from ag_ui.server import RunContext, create_app
from ag_ui.server._merge import merge_thread
from ag_ui.server._request import MAX_JSON_DEPTH
from ag_ui.store import (
    InMemoryThreadStore,
    PostgresThreadStore,
    SqliteThreadStore,
    StoredThread,
    ThreadStore,
    ThreadSummary,
)
from ag_ui.store._thread_base import INCOMPLETE_KEY, MAX_THREAD_ID_LENGTH
from tests.postgres_helpers import PostgresServer
from tests.support.servers import serve
from tests.support.sse import sse_events

pytestmark = pytest.mark.anyio

INTEROP = Path(__file__).resolve().parents[1] / "interop"


def open_store(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ThreadStore]:
    if kind == "memory":
        yield InMemoryThreadStore()
    elif kind == "sqlite":
        yield SqliteThreadStore(tmp_path / "threads.db")
    else:
        postgres: PostgresServer = request.getfixturevalue("postgres_server")
        url = postgres.database()
        yield PostgresThreadStore(url)
        postgres.drop(url)


@pytest.fixture(params=["sqlite", "postgres"])
def threads(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ThreadStore]:
    """The embedded default and a real PostgreSQL."""
    yield from open_store(request.param, request, tmp_path)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ThreadStore]:
    yield from open_store(request.param, request, tmp_path)


@pytest.fixture
def demo(threads: ThreadStore) -> Iterator[str]:
    with serve(create_demo_app(threads=threads, public_thread_history=True)) as url:
        yield url + "/agent"


def stored(url: str, thread_id: str) -> dict[str, Any]:
    response = httpx.get(f"{url}/threads/{thread_id}", timeout=20)
    assert response.status_code == 200, response.text
    document: dict[str, Any] = response.json()
    return document


def post(url: str, payload: Any, **options: Any) -> httpx.Response:
    content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    headers = {"content-type": "application/json"}
    return httpx.post(url, content=content, headers=headers, timeout=20, **options)


def body(*messages: dict[str, Any], thread_id: str = "t1", run_id: str = "r1") -> dict[str, Any]:
    return {"threadId": thread_id, "runId": run_id, "messages": list(messages)}


def user(text: str, message_id: str) -> dict[str, Any]:
    return {"id": message_id, "role": "user", "content": text}


# -- item 1: what the merge added, the client is sent -------------------------------------------


async def test_a_client_sending_only_its_new_message_ends_with_the_stored_state(
    demo: str,
) -> None:
    for turn, question in enumerate(["weather in Paris", "weather in Oslo", "hello"]):
        agent = HttpAgent(demo, thread_id="fresh")  # a page that keeps no history
        agent.add_message({"id": f"q{turn}", "role": "user", "content": question})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            await agent.run_agent()
        assert not [w for w in caught if issubclass(w.category, PatchFailedWarning)]
        thread = stored(demo, "fresh")
        assert agent.state == thread["state"]
        assert agent.state["turns"] == turn + 1
        # The stored history came too (MESSAGES_SNAPSHOT): the client holds the thread.
        assert [m.id for m in agent.messages] == [m["id"] for m in thread["messages"]]


def test_the_typescript_client_sending_only_its_new_message_ends_with_the_stored_state(
    demo: str,
) -> None:
    questions = ["weather in Paris", "weather in Oslo", "hello"]
    done = subprocess.run(
        ["node", str(INTEROP / "ts_thread_turns.mjs"), demo, "ts", *questions],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=INTEROP,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["warnings"] == []
    thread = stored(demo, "ts")
    assert [turn["state"]["turns"] for turn in report["turns"]] == [1, 2, 3]
    assert report["turns"][-1]["state"] == thread["state"]
    assert report["turns"][-1]["messageIds"] == [m["id"] for m in thread["messages"]]


def test_a_state_the_request_carries_is_not_sent_back() -> None:
    summary = ThreadSummary("t", None, "", 0.0, 0.0, 1, 1)
    thread = StoredThread(
        summary=summary, messages=[UserMessage(id="a", content="a")], state={"k": 1}
    )
    sent = RunAgentInput.model_validate({**body(user("a", "a")), "state": {"k": 2}})
    merged = merge_thread(thread, sent)
    assert merged.catch_up == ()  # the client holds all of it
    assert merged.run_input is sent
    only_new = merge_thread(thread, RunAgentInput.model_validate(body(user("b", "b"))))
    assert [event.type for event in only_new.catch_up] == [
        "MESSAGES_SNAPSHOT",  # empty: the new message then follows the stored ones
        "MESSAGES_SNAPSHOT",
        "STATE_SNAPSHOT",
    ]


# -- item 2: a reused message id ----------------------------------------------------------------


def test_agui_run_keeps_every_turn_of_a_thread(demo: str) -> None:
    questions = ["weather in Paris", "weather in Oslo", "hello", "weather in Rome"]
    for question in questions:
        done = subprocess.run(
            [sys.executable, "-m", "ag_ui", "run", demo, "--thread-id", "cli", "-m", question],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    messages = stored(demo, "cli")["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == questions
    answers = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")]
    assert len(answers) == 4
    assert "Rome" in answers[-1]


def test_a_reused_message_id_with_other_content_is_a_409_and_nothing_is_cut(demo: str) -> None:
    assert post(demo, body(user("first question", "user-1"))).status_code == 200
    before = stored(demo, "t1")
    refused = post(demo, body(user("second question", "user-1"), run_id="r2"))
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "message_id_conflict"
    assert "'user-1'" in error["message"]
    assert "new id" in error["message"]
    assert stored(demo, "t1")["messages"] == before["messages"]
    # The same message resent unchanged is a regenerate: the history is cut after it.
    again = post(demo, body(user("first question", "user-1"), run_id="r3"))
    assert again.status_code == 200
    assert next(m["id"] for m in stored(demo, "t1")["messages"]) == "user-1"
    assert stored(demo, "t1")["messageCount"] == len(before["messages"])


# -- item 3: activity messages ------------------------------------------------------------------


async def test_activity_messages_survive_later_turns_and_reloads(demo: str) -> None:
    agent = HttpAgent(demo, thread_id="activity")
    for turn, city in enumerate(["Paris", "Oslo", "Rome"]):
        agent.add_message({"id": f"q{turn}", "role": "user", "content": f"weather in {city}"})
        await agent.run_agent()
    held = [m.id for m in agent.messages if m.role == "activity"]
    assert len(held) == 3
    thread = stored(demo, "activity")
    assert [m["id"] for m in thread["messages"] if m["role"] == "activity"] == held
    assert [m["id"] for m in thread["messages"]] == [m.id for m in agent.messages]
    reloaded = HttpAgent(demo)
    await reloaded.load_thread("activity")
    assert [m.id for m in reloaded.messages if m.role == "activity"] == held


def test_a_regenerate_drops_the_activity_of_what_it_cut() -> None:
    from ag_ui.core import ActivityMessage, AssistantMessage

    messages = [
        UserMessage(id="u1", content="u"),
        ActivityMessage(id="act1", activity_type="progress", content={}),
        AssistantMessage(id="a1", content="b"),
        UserMessage(id="u2", content="u"),
        ActivityMessage(id="act2", activity_type="progress", content={}),
        AssistantMessage(id="a2", content="d"),
        ActivityMessage(id="act3", activity_type="progress", content={}),
    ]
    thread = StoredThread(
        summary=ThreadSummary("t", None, "", 0.0, 0.0, 7, 2), messages=messages, state=None
    )

    def merged(*sent: str) -> list[str]:
        run_input = RunAgentInput.model_validate(
            body(
                *(
                    {"id": i, "role": "assistant" if i[0] == "a" else "user", "content": i[0]}
                    for i in sent
                )
            )
        )
        return [m.id for m in merge_thread(thread, run_input).run_input.messages]

    assert merged("u1", "a1", "u2", "a2", "u3") == [
        "u1",
        "act1",
        "a1",
        "u2",
        "act2",
        "a2",
        "act3",
        "u3",
    ]
    assert merged("u1", "a1", "u2") == ["u1", "act1", "a1", "u2"]  # regenerate the answer to u2


# -- items 4 and 5: a cut run is saved, its half reply marked -----------------------------------


async def half_a_reply(run_input: RunAgentInput, ctx: RunContext) -> None:
    async with ctx.text_message() as message:
        await message.send("Half a ")
        await anyio.sleep(30)
        await message.send("reply.")


async def test_a_cancelled_runs_half_reply_is_marked_and_restored_so(threads: ThreadStore) -> None:
    app = create_app(half_a_reply, threads=threads, public_thread_history=True)
    with serve(app) as url:
        async with (
            httpx.AsyncClient(timeout=20) as client,
            client.stream("POST", url + "/agent", json=body(user("Hello", "u1"))) as response,
        ):
            async for line in response.aiter_lines():
                if "TEXT_MESSAGE_CONTENT" in line:
                    break  # the user closes the tab mid-reply
        with anyio.fail_after(10):
            while httpx.get(url + "/agent/threads/t1").status_code != 200:
                await anyio.sleep(0.05)
        thread = httpx.get(url + "/agent/threads/t1").json()
        reply = thread["messages"][1]
        assert reply["content"] == "Half a "
        assert reply["metadata"] == {INCOMPLETE_KEY: {"incomplete": "cancelled"}}
        agent = HttpAgent(url + "/agent")
        await agent.load_thread("t1")
        assert agent.messages[1].metadata == {INCOMPLETE_KEY: {"incomplete": "cancelled"}}
        # Sent back unchanged by a client that dropped the mark, the reply stays marked.
        history = [
            user("Hello", "u1"),
            {"id": reply["id"], "role": "assistant", "content": "Half a "},
        ]
        async with (
            httpx.AsyncClient(timeout=20) as client,
            client.stream(
                "POST", url + "/agent", json=body(*history, user("Go on", "u2"), run_id="r2")
            ) as response,
        ):
            async for line in response.aiter_lines():
                if "TEXT_MESSAGE_CONTENT" in line:
                    break
        with anyio.fail_after(10):
            while httpx.get(url + "/agent/threads/t1").json()["runCount"] < 2:
                await anyio.sleep(0.05)
        kept = httpx.get(url + "/agent/threads/t1").json()["messages"]
        assert kept[1]["metadata"] == {INCOMPLETE_KEY: {"incomplete": "cancelled"}}


# -- items 6 and 7: bad ids, NUL, deep nesting --------------------------------------------------


def nested_json(depth: int) -> str:
    return '{"a": ' * (depth - 1) + "{}" + "}" * (depth - 1)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def raw_body(thread_id_json: str, content_json: str = '"hi"') -> bytes:
    return (
        f'{{"threadId": {thread_id_json}, "runId": "r", "messages": '
        f'[{{"id": "u", "role": "user", "content": {content_json}}}]}}'
    ).encode()


def test_bad_thread_ids_are_one_clear_400_on_every_store(any_store: ThreadStore) -> None:
    with serve(create_demo_app(threads=any_store, public_thread_history=True)) as url:
        agent = url + "/agent"
        for thread_id_json, why in [
            ('"a\\u0000b"', "NUL"),
            ('"a\\ud800b"', "surrogate"),
            (json.dumps("x" * (MAX_THREAD_ID_LENGTH + 1)), "characters"),
            (json.dumps("x" * 1_000_000), "characters"),
        ]:
            response = post(agent, raw_body(thread_id_json))
            assert response.status_code == 400, (why, response.text[:300])
            error = response.json()["error"]
            assert error["code"] == "invalid_thread_id"
            assert why in error["message"]
        assert post(agent, raw_body(json.dumps("x" * MAX_THREAD_ID_LENGTH))).status_code == 200
        for path in ("/threads/a%00b", "/connect?threadId=a%00b"):
            response = httpx.get(agent + path, timeout=20)
            assert response.status_code == 400, response.text
            assert response.json()["error"]["code"] == "invalid_thread_id"


def test_nul_in_a_message_is_kept_and_later_runs_still_save(threads: ThreadStore) -> None:
    with serve(create_demo_app(threads=threads, public_thread_history=True)) as url:
        agent = url + "/agent"
        first = post(agent, raw_body('"nul"', '"before\\u0000after"'))
        assert first.status_code == 200
        for run in range(2):
            response = post(
                agent, body(user("hello", f"next{run}"), thread_id="nul", run_id=f"r{run}")
            )
            assert sse_events(response.text)[-1]["type"] == "RUN_FINISHED", response.text[-300:]
        thread = stored(agent, "nul")
        assert thread["messages"][0]["content"] == "before\x00after"
        assert thread["title"] == "before\ufffdafter"
        assert thread["runCount"] == 3


@pytest.mark.parametrize("kept", [False, True])
def test_state_nested_too_deep_is_one_clear_400(kept: bool, tmp_path: Path) -> None:
    options: dict[str, Any] = {}
    if kept:
        options = {"threads": SqliteThreadStore(tmp_path / "t.db"), "public_thread_history": True}
    with serve(create_demo_app(**options)) as url:
        agent = url + "/agent"
        for depth in (MAX_JSON_DEPTH + 1, 600, 1000, 5000):
            payload = json.dumps(body(user("hi", "u")))[:-1] + f', "state": {nested_json(depth)}}}'
            response = post(agent, payload.encode())
            assert response.status_code == 400, response.text[:300]
            error = response.json()["error"]
            assert error["code"] == "too_deep"
            assert f"nested more than {MAX_JSON_DEPTH} levels deep" in error["message"]
        # At the limit, every step of a run (state diff, store, reload) handles it.
        for run in range(2):
            state = nested(MAX_JSON_DEPTH) if run == 0 else {}
            response = post(
                agent,
                {**body(user("hi", f"u{run}"), thread_id="deep", run_id=f"r{run}"), "state": state},
            )
            assert response.status_code == 200
            assert sse_events(response.text)[-1]["type"] == "RUN_FINISHED", response.text[-300:]


def test_deep_metadata_and_tool_parameters_are_refused_too() -> None:
    from ag_ui.server._request import check_depth

    deep = nested(MAX_JSON_DEPTH + 1)
    tool = {"name": "t", "description": "", "parameters": deep}
    for extra in ({"tools": [tool]}, {"forwardedProps": deep}):
        run_input = RunAgentInput.model_validate({**body(user("hi", "u")), **extra})
        with pytest.raises(RequestRejectedError) as refused:
            check_depth(run_input)
        assert refused.value.code == "too_deep"
