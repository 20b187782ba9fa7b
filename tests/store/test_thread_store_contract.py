"""The thread-store contract, on every backend: in-memory, SQLite (a real file) and PostgreSQL (a
real server: the session's throwaway cluster, a new database per test)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import anyio
import pytest

from ag_ui.core import AssistantMessage, TextInputContent, ToolCall, UserMessage
from ag_ui.core.types import FunctionCall, Message, ToolMessage
from ag_ui.store import (
    InMemoryThreadStore,
    PostgresThreadStore,
    RunSummary,
    SqliteThreadStore,
    ThreadNotFoundError,
    ThreadStore,
    open_thread_store,
)
from tests.postgres_helpers import PostgresServer

pytestmark = pytest.mark.anyio


class Clock:
    """A clock the test moves, so that listing order does not depend on timer resolution."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


StoreFactory = Callable[[Clock], ThreadStore]


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    if request.param == "memory":
        yield lambda clock: InMemoryThreadStore(clock=clock)
    elif request.param == "sqlite":
        yield lambda clock: SqliteThreadStore(tmp_path / "data" / "threads.db", clock=clock)
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        url = server.database()
        yield lambda clock: PostgresThreadStore(url, clock=clock)
        server.drop(url)


@pytest.fixture
async def store(make_store: StoreFactory) -> AsyncIterator[ThreadStore]:
    opened = make_store(Clock())
    yield opened
    await opened.aclose()


def conversation(text: str = "What is the tide today?") -> list[Message]:
    return [
        UserMessage(id="u1", content=text),
        AssistantMessage(
            id="a1",
            content="Let me look.",
            tool_calls=[
                ToolCall(id="c1", function=FunctionCall(name="tides", arguments='{"port":"Brest"}'))
            ],
        ),
        ToolMessage(id="t1", tool_call_id="c1", content="high at 14:02"),
        AssistantMessage(id="a2", content="High tide is at 14:02."),
    ]


RUN = RunSummary(
    run_id="r1",
    outcome="success",
    started_at=10.0,
    finished_at=12.5,
    usage=[{"inputTokens": 12, "outputTokens": 7}],
)


async def test_a_saved_thread_loads_as_it_was_saved(store: ThreadStore) -> None:
    messages = conversation()
    summary = await store.save(
        "t1", owner="alice", messages=messages, state={"port": "Brest", "n": [1, 2]}, run=RUN
    )
    assert summary.thread_id == "t1"
    assert summary.owner == "alice"
    assert summary.title == "What is the tide today?"
    assert (summary.message_count, summary.run_count) == (4, 1)
    loaded = await store.load("t1", owner="alice")
    assert loaded.messages == messages
    assert loaded.state == {"port": "Brest", "n": [1, 2]}
    assert loaded.runs == [RUN]
    assert loaded.version == 1
    assert loaded.summary == summary


async def test_a_save_replaces_the_conversation_and_appends_the_run(store: ThreadStore) -> None:
    await store.save("t1", owner="alice", messages=conversation()[:1], state={"v": 1}, run=RUN)
    second = RunSummary(
        run_id="r2", outcome="error", started_at=20.0, finished_at=21.0, error_code="boom"
    )
    summary = await store.save(
        "t1", owner="alice", messages=conversation(), state={"v": 2}, run=second
    )
    assert (summary.message_count, summary.run_count) == (4, 2)
    assert summary.updated_at > summary.created_at
    loaded = await store.load("t1", owner="alice")
    assert loaded.state == {"v": 2}
    assert [r.run_id for r in loaded.runs] == ["r1", "r2"]
    assert loaded.runs[1].error_code == "boom"
    assert loaded.version == 2
    # A save without a run (an interrupt written mid-run) changes the conversation only.
    await store.save("t1", owner="alice", messages=conversation()[:2], state=None)
    loaded = await store.load("t1", owner="alice")
    assert (len(loaded.messages), len(loaded.runs), loaded.state) == (2, 2, None)


async def test_the_stored_copy_does_not_follow_the_callers_objects(store: ThreadStore) -> None:
    state = {"items": ["a"]}
    messages = conversation()
    await store.save("t1", owner=None, messages=messages, state=state)
    state["items"].append("b")
    messages.append(UserMessage(id="u2", content="later"))
    loaded = await store.load("t1", owner=None)
    assert loaded.state == {"items": ["a"]}
    assert len(loaded.messages) == 4
    loaded.state["items"].append("c")
    assert (await store.load("t1", owner=None)).state == {"items": ["a"]}


async def test_another_owners_thread_is_not_there(store: ThreadStore) -> None:
    await store.save("t1", owner="alice", messages=conversation(), state={})
    for owner in ("bob", None):
        with pytest.raises(ThreadNotFoundError) as caught:
            await store.load("t1", owner=owner)
        assert caught.value.thread_id == "t1"
        with pytest.raises(ThreadNotFoundError):
            await store.save("t1", owner=owner, messages=[], state={})
        with pytest.raises(ThreadNotFoundError):
            await store.rename("t1", owner=owner, title="mine now")
        with pytest.raises(ThreadNotFoundError):
            await store.delete("t1", owner=owner)
        assert (await store.list_threads(owner=owner)).threads == []
    # Nothing the strangers tried reached alice's thread.
    loaded = await store.load("t1", owner="alice")
    assert (loaded.summary.title, len(loaded.messages), loaded.version) == (
        "What is the tide today?",
        4,
        1,
    )


async def test_listing_is_newest_first_in_pages(store: ThreadStore) -> None:
    for n in range(7):
        await store.save(f"t{n}", owner="alice", messages=conversation(f"question {n}"), state={})
    await store.save("other", owner="bob", messages=conversation(), state={})
    await store.save("t2", owner="alice", messages=conversation("question 2 again"), state={})
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = await store.list_threads(owner="alice", limit=3, cursor=cursor)
        seen += [t.thread_id for t in page.threads]
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == ["t2", "t6", "t5", "t4", "t3", "t1", "t0"]
    assert pages == 3
    first = (await store.list_threads(owner="alice", limit=1)).threads[0]
    assert first.title == "question 2 again"
    assert (first.message_count, first.run_count) == (4, 0)
    exact = await store.list_threads(owner="alice", limit=7)
    assert len(exact.threads) == 7
    assert exact.next_cursor is None


async def test_bad_limits_and_cursors_are_refused(store: ThreadStore) -> None:
    for limit in (0, 501, -1, True):
        with pytest.raises(ValueError, match="limit must be an integer from 1 to 500"):
            await store.list_threads(owner=None, limit=limit)
    with pytest.raises(ValueError, match="is not a thread listing cursor"):
        await store.list_threads(owner=None, cursor="not-a-cursor")


async def test_rename_sticks_over_later_saves(store: ThreadStore) -> None:
    await store.save("t1", owner="alice", messages=conversation(), state={})
    renamed = await store.rename("t1", owner="alice", title="Tides in Brest")
    assert renamed.title == "Tides in Brest"
    await store.save("t1", owner="alice", messages=conversation("something else"), state={})
    assert (await store.load("t1", owner="alice")).summary.title == "Tides in Brest"
    listed = (await store.list_threads(owner="alice")).threads
    assert [t.title for t in listed] == ["Tides in Brest"]


async def test_delete_removes_the_thread_and_its_runs(store: ThreadStore) -> None:
    await store.save("t1", owner="alice", messages=conversation(), state={}, run=RUN)
    await store.delete("t1", owner="alice")
    with pytest.raises(ThreadNotFoundError):
        await store.load("t1", owner="alice")
    with pytest.raises(ThreadNotFoundError):
        await store.delete("t1", owner="alice")
    # The id is free again, with a fresh history.
    summary = await store.save("t1", owner="bob", messages=[], state={})
    assert (summary.owner, summary.run_count, summary.title) == ("bob", 0, "")


async def test_titles_come_from_the_first_user_message(store: ThreadStore) -> None:
    long_text = "word " * 40
    parts = UserMessage(
        id="u1",
        content=[TextInputContent(text="look at"), TextInputContent(text="  this\n picture")],
    )
    assert (await store.save("a", owner=None, messages=[parts], state={})).title == (
        "look at this picture"
    )
    title = (
        await store.save(
            "b", owner=None, messages=[UserMessage(id="u", content=long_text)], state={}
        )
    ).title
    assert len(title) == 80
    assert title.endswith("…")
    assistant_only = [AssistantMessage(id="a", content="hello")]
    assert (await store.save("c", owner=None, messages=assistant_only, state={})).title == ""


async def test_a_lone_surrogate_round_trips(store: ThreadStore) -> None:
    """Half an emoji (a provider cut a string inside a surrogate pair, the agent relayed it)
    has no UTF-8 form: it is stored as its JSON escape and loads back as the same string."""
    messages: list[Message] = [
        UserMessage(id="u1", content="half an emoji: \ud83d"),
        *conversation()[1:],
    ]
    summary = await store.save("t1", owner=None, messages=messages, state={"note": "\udc00 too"})
    assert summary.title == "half an emoji: \ufffd"
    loaded = await store.load("t1", owner=None)
    assert loaded.messages == messages
    assert loaded.state == {"note": "\udc00 too"}
    listed = (await store.list_threads(owner=None)).threads
    assert [t.title for t in listed] == ["half an emoji: \ufffd"]


async def test_times_come_back_as_the_floats_saved(make_store: StoreFactory) -> None:
    clock = Clock()
    clock.now = 1_796_593_526.2993753
    store = make_store(clock)
    run = RunSummary(run_id="r", outcome="success", started_at=0.1 + 0.2, finished_at=1e-7)
    try:
        saved = await store.save("t1", owner=None, messages=[], state={}, run=run)
        loaded = await store.load("t1", owner=None)
        assert loaded.runs == [run]
        assert loaded.summary == saved
        assert saved.created_at == 1_796_593_527.2993753
        listed = (await store.list_threads(owner=None)).threads
        assert listed == [saved]
    finally:
        await store.aclose()


async def test_concurrent_saves_of_one_thread_all_land(store: ThreadStore) -> None:
    async def save(n: int) -> None:
        run = RunSummary(run_id=f"r{n}", outcome="success", started_at=n, finished_at=n)
        await store.save("t1", owner="alice", messages=conversation(), state={"n": n}, run=run)

    async with anyio.create_task_group() as group:
        for n in range(20):
            group.start_soon(save, n)
    loaded = await store.load("t1", owner="alice")
    assert loaded.version == loaded.summary.run_count == 20
    assert sorted(run.run_id for run in loaded.runs) == sorted(f"r{n}" for n in range(20))
    # The state is the last save's, whichever that was: its run is the last one.
    assert loaded.runs[-1].run_id == f"r{loaded.state['n']}"


async def test_ping_answers(store: ThreadStore) -> None:
    await store.ping()


async def test_a_reopened_store_has_the_threads(make_store: StoreFactory, tmp_path: Path) -> None:
    """Persistence is what the SQLite store is for; the in-memory one is checked to forget."""
    first = make_store(Clock())
    await first.save("t1", owner="alice", messages=conversation(), state={"k": 1}, run=RUN)
    await first.aclose()
    second = make_store(Clock())
    try:
        if isinstance(second, InMemoryThreadStore):
            assert (await second.list_threads(owner="alice")).threads == []
            return
        loaded = await second.load("t1", owner="alice")
        assert (loaded.messages, loaded.state, loaded.runs) == (conversation(), {"k": 1}, [RUN])
    finally:
        await second.aclose()


def test_urls_open_the_named_store(tmp_path: Path) -> None:
    assert isinstance(open_thread_store("memory:"), InMemoryThreadStore)
    relative = open_thread_store("sqlite:///threads.db")
    assert isinstance(relative, SqliteThreadStore)
    assert relative.path == Path("threads.db")
    absolute = open_thread_store(f"sqlite:///{tmp_path}/my%20threads.db")
    assert isinstance(absolute, SqliteThreadStore)
    assert absolute.path == tmp_path / "my threads.db"
    for scheme in ("postgresql", "postgres"):
        url = f"{scheme}://agui:secret@db.example:5432/threads"
        postgres = open_thread_store(url)
        assert isinstance(postgres, PostgresThreadStore)
        assert postgres.url == url
    assert isinstance(open_thread_store("postgresql:///threads"), PostgresThreadStore)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis://localhost", "is not supported; use memory:, sqlite:///.* or postgresql://"),
        ("threads.db", "is not supported"),
        ("sqlite://host/threads.db", "a SQLite URL is sqlite:/// then the file's path"),
        ("sqlite:///", "a SQLite URL is sqlite:/// then the file's path"),
        ("postgresql://", "a PostgreSQL URL names the server"),
        ("postgres:", "a PostgreSQL URL names the server"),
    ],
)
def test_bad_urls_say_what_is_accepted(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        open_thread_store(url)
