"""Streams the TypeScript client (``@ag-ui/client`` 1.0.0) accepts, which this client once
refused or read silently wrong; served by a real uvicorn, read by both clients and by
``agui verify``, which must agree (issue 11, items 7 and 8).

- a lone UTF-16 surrogate escape (``"\\ud83d"``: ``JSON.stringify`` of a string cut inside an
  emoji), and an emoji cut across two deltas;
- members of open unions from a newer protocol: an outcome type ``"failed"``, a JSON Patch op
  ``"merge"``;
- tool-call arguments that do not concatenate to JSON (legal, but named in a warning).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ag_ui.client import HttpAgent
from tests.client.client_helpers import static_app
from tests.support.servers import serve

pytestmark = pytest.mark.anyio

INTEROP = Path(__file__).resolve().parents[1] / "interop"
RUN = {"threadId": "thread-1", "runId": "run-1"}


def sse(events: list[dict[str, Any]]) -> bytes:
    # As JSON.stringify writes them: non-ASCII as is, lone surrogates as escapes.
    return b"".join(
        b"data: " + json.dumps(e, ensure_ascii=True, separators=(",", ":")).encode() + b"\n\n"
        for e in events
    )


CUT_EMOJI = [
    {"type": "RUN_STARTED", **RUN},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hi \ud83d"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "\ude00!"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "cut \ud83d"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
    {"type": "RUN_FINISHED", **RUN},
]
NEWER_PROTOCOL = [
    {"type": "RUN_STARTED", **RUN},
    {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
    {
        "type": "STATE_DELTA",
        "delta": [
            {"op": "merge", "path": "/a", "value": {"x": 1}},
            {"op": "add", "path": "/b", "value": 2},
        ],
    },
    {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "helper"},
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "outcome": {"type": "failed"}},
    {"type": "RUN_FINISHED", **RUN, "outcome": {"type": "failed", "reason": "quota"}},
]
LOST_FIRST_ARGS_CHUNK = [  # ag-ui-langgraph 0.0.47 drops the arguments of the first chunk
    {"type": "RUN_STARTED", **RUN},
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "weather"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '"Paris"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "RUN_FINISHED", **RUN},
]
SCENARIOS = {"cut-emoji": CUT_EMOJI, "newer": NEWER_PROTOCOL, "args": LOST_FIRST_ARGS_CHUNK}


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    with serve(_apps()) as url:
        yield {name: f"{url}/{name}/agent" for name in SCENARIOS}


def _apps() -> Any:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    return Starlette(
        routes=[Mount(f"/{name}", static_app(sse(events))) for name, events in SCENARIOS.items()]
    )


# Warning classes by name: so that this file also runs (and fails) against a build without them.


def ts_client(url: str) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(INTEROP / "ts_client_run.mjs"), url, "[]", "{}"],
        capture_output=True,
        check=True,
        timeout=60,
        cwd=INTEROP,
        text=True,
    )
    return dict(json.loads(done.stdout))


async def ours(url: str) -> tuple[dict[str, Any], list[warnings.WarningMessage]]:
    agent = HttpAgent(url, thread_id="thread-1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = await agent.run_agent(run_id="run-1")
    conversation = {
        "messages": [m.model_dump(by_alias=True, mode="json") for m in agent.messages],
        "state": agent.state,
        "outcome": None if result.outcome is None else result.outcome.model_dump(by_alias=True),
    }
    return conversation, list(caught)


def agui_verify(tmp_path: Path, events: list[dict[str, Any]]) -> dict[str, Any]:
    recording = tmp_path / "run.sse"
    recording.write_bytes(sse(events))
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "verify", str(recording), "--output", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def _wanted(url: str) -> dict[str, Any]:
    expected = ts_client(url)
    assert expected["error"] is None, expected["error"]
    return expected


async def test_a_cut_emoji_reads_as_the_typescript_client_reads_it(
    urls: dict[str, str], tmp_path: Path
) -> None:
    expected = _wanted(urls["cut-emoji"])
    mine, _ = await ours(urls["cut-emoji"])
    assert mine["messages"] == expected["messages"]
    contents = [m["content"] for m in mine["messages"]]
    assert contents == ["Hi \U0001f600!", "cut \ud83d"]  # joined again; the lone half kept
    assert agui_verify(tmp_path, CUT_EMOJI)["messages"] == expected["messages"]


async def test_newer_outcomes_and_patch_ops_are_kept_warned_and_skipped(
    urls: dict[str, str], tmp_path: Path
) -> None:
    expected = _wanted(urls["newer"])
    mine, caught = await ours(urls["newer"])
    assert (mine["messages"], mine["state"]) == (expected["messages"], expected["state"])
    assert mine["state"] == {"a": 1, "b": 2}  # the "merge" skipped, the "add" applied
    # An outcome of a newer protocol is stripped with a warning naming it (the 1.1 corpus's
    # unknown-outcome-stripped): the run ends as an outcome-less RUN_FINISHED does.
    assert mine["outcome"] is None
    said = [str(w.message) for w in caught if w.category.__name__ == "ForwardCompatibilityWarning"]
    assert any("'merge'" in text for text in said), said
    removed = [
        str(w.message) for w in caught if w.category.__name__ == "UnrecognisedMaterialWarning"
    ]
    assert any("from SUBAGENT_FINISHED: /outcome" in text for text in removed), removed
    assert any("from RUN_FINISHED: /outcome" in text for text in removed), removed
    report = agui_verify(tmp_path, NEWER_PROTOCOL)
    assert report["state"] == expected["state"]
    assert any("'merge'" in text for text in report["warnings"]), report["warnings"]


async def test_arguments_that_are_not_json_are_named_not_refused(
    urls: dict[str, str], tmp_path: Path
) -> None:
    expected = _wanted(urls["args"])
    mine, caught = await ours(urls["args"])
    assert mine["messages"] == expected["messages"]
    (warning,) = [w for w in caught if w.category.__name__ == "ToolArgumentsWarning"]
    assert "tool call 'c1' (1 TOOL_CALL_ARGS) are not JSON" in str(warning.message)
    report = agui_verify(tmp_path, LOST_FIRST_ARGS_CHUNK)
    assert report["ok"] is True
    assert report["warnings"] == [str(warning.message)]


def test_agui_run_prints_a_cut_emoji_whole_and_a_lone_half_as_the_replacement_character(
    urls: dict[str, str],
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "run", urls["cut-emoji"]],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("utf-8")
    assert "Hi \U0001f600!" in out
    assert "cut \ufffd" in out
