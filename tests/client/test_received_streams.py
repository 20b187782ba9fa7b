"""What HttpAgent reads from a real server where the 1.1 corpus and @ag-ui/client set the rule:
a RUN_STARTED after RUN_ERROR begins a new run in the same response, and a snapshot's message
of an unknown role is dropped with a warning, not a failed stream. Each case is also read by
the TypeScript client (``tests/interop/ts_client_run.mjs``) and both must end alike."""

from __future__ import annotations

import json
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ag_ui.client import HttpAgent
from ag_ui.core import RunError
from ag_ui.verify import UnrecognisedMaterialWarning
from tests.client.client_helpers import frames, static_app
from tests.support.servers import serve

pytestmark = pytest.mark.anyio

INTEROP = Path(__file__).resolve().parents[1] / "interop"
STARTED = {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "r1"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "thread-1", "runId": "r1"}
FAILED = {"type": "RUN_ERROR", "message": "the first run failed"}


def _text(message_id: str, text: str) -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": text},
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


@pytest.fixture
def served() -> Iterator[Any]:
    """``served(events)`` -> the URL of a real server answering every POST with them."""
    with_servers: list[Any] = []

    def start(events: list[dict[str, Any]]) -> str:
        context = serve(static_app(frames(*events)))
        with_servers.append(context)
        return f"{context.__enter__()}/agent"

    yield start
    for context in reversed(with_servers):
        context.__exit__(None, None, None)


def _typescript(url: str) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(INTEROP / "ts_client_run.mjs"), url, "[]", "{}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=INTEROP,
    )
    return dict(json.loads(done.stdout))


async def test_a_run_started_after_run_error_is_read_as_a_new_run(served: Any) -> None:
    second = {**STARTED, "runId": "r2"}
    url = served([STARTED, FAILED, second, *_text("m1", "second run"), {**FINISHED, "runId": "r2"}])
    seen: list[str] = []

    class Watcher:
        def on_run_error_event(self, params: Any) -> None:
            seen.append(params.event.message)

    agent = HttpAgent(url, thread_id="thread-1")
    result = await agent.run_agent(subscriber=Watcher())
    assert seen == ["the first run failed"]  # reported as it arrived
    assert result.outcome_type == "success"  # the response's last run finished
    assert [(m.id, m.content) for m in agent.messages] == [("m1", "second run")]
    theirs = _typescript(url)
    assert (theirs["error"], theirs["runError"]) == (
        None,
        {"message": "the first run failed", "code": None},
    )
    assert [m["id"] for m in theirs["messages"]] == ["m1"]


async def test_run_error_as_the_last_run_still_raises(served: Any) -> None:
    second = {**STARTED, "runId": "r2"}
    url = served([STARTED, *_text("m1", "first"), FINISHED, second, FAILED])
    agent = HttpAgent(url, thread_id="thread-1")
    with pytest.raises(RunError, match="the first run failed"):
        await agent.run_agent()
    assert [m.id for m in agent.messages] == ["m1"]


async def test_a_snapshot_message_of_an_unknown_role_is_dropped_with_a_warning(
    served: Any,
) -> None:
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "b1", "role": "bot", "content": "from a newer protocol"},
            {"id": "a1", "role": "assistant", "content": "kept"},
        ],
    }
    url = served([STARTED, snapshot, FINISHED])
    agent = HttpAgent(url, thread_id="thread-1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await agent.run_agent()
    assert [m.id for m in agent.messages] == ["u1", "a1"]
    [warning] = [w for w in caught if issubclass(w.category, UnrecognisedMaterialWarning)]
    assert "/messages/1" in str(warning.message)
    assert "'bot'" in str(warning.message)
    theirs = _typescript(url)
    assert theirs["error"] is None
    assert [m["id"] for m in theirs["messages"]] == ["u1", "a1"]


async def test_a_known_role_with_wrong_fields_still_fails(served: Any) -> None:
    snapshot = {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u1", "role": "user"}]}
    agent = HttpAgent(served([STARTED, snapshot, FINISHED]), thread_id="thread-1")
    with pytest.raises(Exception, match="content"):
        await agent.run_agent()
