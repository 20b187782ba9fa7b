"""Threads from the command line, as a user meets them: ``agui demo`` on a terminal keeps the
conversation in the data directory and restores it when started again with ``--thread-id``;
``agui threads`` lists, shows, renames and deletes, from the SQLite file or from the agent's
``/threads`` endpoints; ``agui serve --threads`` is checked in tests/cli/test_serve.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ag_ui.demo import create_demo_app
from ag_ui.store import SqliteThreadStore
from tests.cli.test_chat import PROMPT, Chat
from tests.support.servers import serve

AGUI = [sys.executable, "-m", "ag_ui"]


@pytest.fixture
def chats() -> Iterator[list[Chat]]:
    started: list[Chat] = []
    yield started
    for chat in started:
        if chat.child.isalive():
            chat.child.terminate(force=True)


def agui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AGUI, *args], capture_output=True, text=True, timeout=60, env=env or dict(os.environ)
    )


def test_agui_demo_restores_the_conversation_when_started_again(
    tmp_path: Path, chats: list[Chat]
) -> None:
    os.environ["AGUI_DATA_DIR"], previous = str(tmp_path), os.environ["AGUI_DATA_DIR"]
    try:
        first = Chat("demo", "--port", "0", "--delay", "0")
        chats.append(first)
        first.expect(PROMPT)
        assert "Paris" in first.say("weather in Paris")
        first.child.sendline("/quit")
        assert first.finish() == 0
        match = re.search(r"agui demo --thread-id (\S+)", first.output)
        assert match, first.output
        thread_id = match.group(1)
        assert (tmp_path / "threads.db").exists()

        again = Chat("demo", "--port", "0", "--delay", "0", "--thread-id", thread_id)
        chats.append(again)
        restored = again.expect(PROMPT)
        assert re.search(rf"restored thread {thread_id} \(\d+ messages\)", restored)
        assert "weather in Paris" in restored
        # The agent sees the stored history: the next run goes on from it.
        assert "Oslo" in again.say("weather in Oslo")
        again.child.sendline("/quit")
        assert again.finish() == 0
        assert "Traceback" not in first.output + again.output
    finally:
        os.environ["AGUI_DATA_DIR"] = previous

    url = f"sqlite:///{tmp_path / 'threads.db'}"
    listing = agui("threads", "list", url, "--output", "json")
    assert listing.returncode == 0, listing.stderr
    [summary] = json.loads(listing.stdout)["threads"]
    assert summary["threadId"] == thread_id
    assert summary["title"] == "weather in Paris"
    assert summary["runCount"] >= 2
    shown = agui("threads", "show", url, thread_id)
    assert shown.returncode == 0
    assert "user> weather in Paris" in shown.stdout


def test_agui_demo_names_the_thread_it_ended_on(tmp_path: Path, chats: list[Chat]) -> None:
    """After ``/new`` the closing line names the new thread, the one a user continues."""
    os.environ["AGUI_DATA_DIR"], previous = str(tmp_path), os.environ["AGUI_DATA_DIR"]
    try:
        chat = Chat("demo", "--port", "0", "--delay", "0")
        chats.append(chat)
        chat.expect(PROMPT)
        assert "Paris" in chat.say("weather in Paris")
        chat.child.sendline("/new")
        new = re.search(r"new thread (\S+)", chat.expect(PROMPT))
        assert new, chat.output
        assert "Oslo" in chat.say("weather in Oslo")
        chat.child.sendline("/quit")
        assert chat.finish() == 0
    finally:
        os.environ["AGUI_DATA_DIR"] = previous
    named = re.search(r"agui demo --thread-id (\S+)", chat.output)
    assert named, chat.output
    assert named.group(1) == new.group(1)


def test_agui_threads_over_http_and_on_the_file(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    store = SqliteThreadStore(db)
    app = create_demo_app(threads=store, public_thread_history=True)
    with serve(app) as base:
        url = base + "/agent"
        body = {
            "threadId": "t1",
            "runId": "r1",
            "messages": [{"id": "u1", "role": "user", "content": "weather in Oslo"}],
        }
        import httpx

        assert httpx.post(url, json=body, timeout=20).status_code == 200
        listed = agui("threads", "list", url)
        assert listed.returncode == 0, listed.stderr
        assert re.search(r"^t1  \d+ messages, 1 runs  weather in Oslo$", listed.stdout, re.M)
        renamed = agui("threads", "rename", url, "t1", "Oslo trip")
        assert renamed.stdout.strip() == "thread t1 is now titled 'Oslo trip'"
        on_file = agui("threads", "list", f"sqlite:///{db}", "--output", "json")
        assert json.loads(on_file.stdout)["threads"][0]["title"] == "Oslo trip"
        missing = agui("threads", "show", url, "nope")
        assert missing.returncode == 1
        assert missing.stderr.strip() == "agui threads: no thread 'nope' here"
        deleted = agui("threads", "delete", url, "t1")
        assert deleted.stdout.strip() == "deleted thread t1"
        assert agui("threads", "list", url).stdout.strip() == "no threads"


def test_half_an_emoji_shows_without_a_crash(tmp_path: Path) -> None:
    """A stored lone surrogate (no UTF-8 form) shows as U+FFFD on the terminal and stays its
    escape in ``--output json``, which reads back as the stored string."""
    import anyio

    from ag_ui.core import UserMessage

    db = tmp_path / "threads.db"
    messages = [UserMessage(id="u1", content="cut \ud83d here")]

    async def save() -> None:
        await SqliteThreadStore(db).save("t1", owner=None, messages=messages, state=None)

    anyio.run(save)
    shown = agui("threads", "show", f"sqlite:///{db}", "t1")
    assert shown.returncode == 0, shown.stderr
    assert "user> cut \ufffd here" in shown.stdout.splitlines()
    as_json = agui("threads", "show", f"sqlite:///{db}", "t1", "--output", "json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["messages"][0]["content"] == "cut \ud83d here"


def test_a_cancelled_runs_half_reply_shows_as_incomplete(tmp_path: Path) -> None:
    import anyio

    from ag_ui.core import AssistantMessage, UserMessage
    from ag_ui.store._thread_base import INCOMPLETE_KEY

    db = tmp_path / "threads.db"
    mark = {INCOMPLETE_KEY: {"incomplete": "cancelled"}}
    messages = [
        UserMessage(id="u1", content="Tell me a story"),
        AssistantMessage(id="a1", content="Once upon a", metadata=mark),
    ]

    async def save() -> None:
        await SqliteThreadStore(db).save("t1", owner=None, messages=messages, state=None)

    anyio.run(save)
    shown = agui("threads", "show", f"sqlite:///{db}", "t1")
    assert shown.returncode == 0, shown.stderr
    assert "assistant> Once upon a [incomplete: run cancelled]" in shown.stdout.splitlines()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["threads", "list", "foo://x"], "thread store URL 'foo://x' is not supported"),
        (["threads", "list", "sqlite:///missing.db"], "no thread database at missing.db"),
        (["threads", "list", "http://127.0.0.1:9/agent"], "request to http://127.0.0.1:9/agent"),
        (["threads", "list", "sqlite:///x.db", "--limit", "0"], "0 is not from 1 to 500"),
        (["threads"], "the following arguments are required: ACTION"),
        (["threads", "rename", "sqlite:///x.db", "t1", "  "], "a title is 1 to 320 characters"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run([*AGUI, *args], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode in (1, 2)
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "missing.db").exists()


def test_agui_demo_without_a_writable_data_directory_runs_without_threads() -> None:
    env = {**os.environ, "AGUI_DATA_DIR": "/etc/passwd/not-a-directory"}
    server = subprocess.Popen(
        [*AGUI, "demo", "--port", "0", "--no-chat", "--delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert server.stderr is not None
        assert server.stdout is not None
        warning = server.stderr.readline()
        assert warning.startswith("agui demo: conversations will not be kept: cannot open")
        banner = server.stdout.readline()
        url = banner.split(" on ", 1)[1].split(" ", 1)[0]
        server.stdout.readline()  # the Try line
        import httpx

        body = {"threadId": "t", "runId": "r", "messages": []}
        assert '"RUN_FINISHED"' in httpx.post(url, json=body, timeout=20).text
    finally:
        server.terminate()
        server.wait(timeout=10)
