"""Differential test: our pipeline and the real TypeScript client (``@ag-ui/client@1.0.0``) run
the same recorded streams and must agree on acceptance and on the final messages and state.

On a rejected stream both must name the same rule (``ts_rules.py`` reads it from the TS
message); messages are not compared there (the TS agent's messages at that moment depend on rxjs
scheduling). The one documented difference: a truncated stream (no
RUN_FINISHED/RUN_ERROR) is accepted by the TypeScript client; our strict default rejects it,
so we compare with ``strict_end=False`` and check the strict verdict separately.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import pytest

from ag_ui.apply import EventPipeline
from ag_ui.core import parse_any_event
from ag_ui.core.errors import AGUIError, UnknownEventTypeError, UnterminatedRunError
from ag_ui.verify import UnrecognisedMaterialWarning
from ag_ui.verify._received import parse_received_event
from tests.verify.corpus import CASES, PIPELINE_STREAMS
from tests.verify.ts_rules import our_rule, same_reason

INTEROP = Path(__file__).resolve().parent.parent / "interop"

STREAMS: dict[str, list[dict[str, Any]]] = {case.name: case.events for case in CASES}
STREAMS.update(PIPELINE_STREAMS)


def ours(events: list[dict[str, Any]], *, strict_end: bool) -> dict[str, Any]:
    pipeline = EventPipeline(state={}, strict_end=strict_end)
    error = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for event in events:
                try:
                    # As a consumer parses (HttpAgent's decoder): a snapshot's message of an
                    # unknown role is dropped with a warning, as TypeScript drops it.
                    parsed = parse_received_event(event)
                except UnknownEventTypeError:
                    continue  # consumers skip event types from a newer protocol, as TS does
                pipeline.feed(parsed)
            pipeline.finish()
        except AGUIError as exc:
            error = exc
    final = pipeline.agent_state
    return {
        "ok": error is None,
        "error": error,
        "messages": list(final.messages),
        "state": final.state,
    }


@pytest.fixture(scope="module")
def typescript_results() -> dict[str, dict[str, Any]]:
    node = shutil.which("node")
    if node is None or not (INTEROP / "node_modules" / "@ag-ui" / "client").is_dir():
        pytest.fail("node and tests/interop/node_modules are required (run scripts/test)")
    names = list(STREAMS)
    request = json.dumps({"streams": [STREAMS[name] for name in names], "initialState": {}})
    done = subprocess.run(
        [node, "ts_pipeline.mjs"],
        cwd=INTEROP,
        input=request,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dict(zip(names, json.loads(done.stdout), strict=True))


@pytest.mark.parametrize("name", list(STREAMS))
def test_same_verdict_messages_and_state_as_typescript(
    name: str, typescript_results: dict[str, dict[str, Any]]
) -> None:
    theirs = typescript_results[name]
    mine = ours(STREAMS[name], strict_end=False)
    assert (mine["ok"], theirs["ok"]) == (theirs["ok"], theirs["ok"]), (
        f"TS error: {theirs['error']!r}; ours: {mine['error']!r}"
    )
    if not theirs["ok"]:
        assert same_reason(mine["error"], theirs["error"]), (our_rule(mine["error"]), theirs)
    else:
        # After a rejection the TS agent's messages depend on rxjs scheduling; compare only
        # the verdict there.
        assert mine["messages"] == theirs["messages"]
        assert mine["state"] == theirs["state"]


def test_strict_end_is_the_only_difference() -> None:
    differing = []
    for name, events in STREAMS.items():
        strict, lenient = ours(events, strict_end=True), ours(events, strict_end=False)
        if strict["ok"] != lenient["ok"]:
            assert isinstance(strict["error"], UnterminatedRunError)
            differing.append(name)
    assert differing == [
        "R6 truncated stream",
        "chunk left open at the end of the stream",
    ]


def test_unknown_message_fields_are_stripped_with_a_warning_as_typescript_does() -> None:
    # TS strips unknown fields of snapshot messages with a warning; so does the consumer
    # pipeline here (the 1.1 corpus's unknown-property-stripped), while ag_ui.core models keep
    # them for round trips (tests/verify/test_enforce.py).
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [{"id": "u", "role": "user", "content": "x", "extraField": 1}],
        },
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    assert ours(events, strict_end=True)["messages"] == [
        {"id": "u", "role": "user", "content": "x"}
    ]
    pipeline = EventPipeline()
    pipeline.feed(parse_any_event(events[0]))
    with pytest.warns(UnrecognisedMaterialWarning, match="/messages/0/extraField"):
        pipeline.feed(parse_any_event(events[1]))


def test_thinking_stream_matches_typescript_up_to_minted_ids() -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "THINKING_START", "title": "plan"},
        {"type": "THINKING_TEXT_MESSAGE_START"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hm"},
        {"type": "THINKING_TEXT_MESSAGE_END"},
        {"type": "THINKING_TEXT_MESSAGE_START"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "ok"},
        {"type": "THINKING_TEXT_MESSAGE_END"},
        {"type": "THINKING_END"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    done = subprocess.run(
        ["node", "ts_pipeline.mjs"],
        cwd=INTEROP,
        input=json.dumps({"streams": [events]}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    [theirs] = json.loads(done.stdout)
    mine = ours(events, strict_end=True)

    def without_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in m.items() if k != "id"} for m in messages]

    assert (mine["ok"], theirs["ok"]) == (True, True)
    assert (
        without_ids(mine["messages"])
        == without_ids(theirs["messages"])
        == [
            {"role": "reasoning", "content": "hm"},
            {"role": "reasoning", "content": "ok"},
        ]
    )
    assert len({m["id"] for m in mine["messages"]}) == 2
