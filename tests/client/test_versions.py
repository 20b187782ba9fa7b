"""Version-dependent behaviour, compared case by case with @ag-ui/client 1.0.0
(``tests/interop/ts_peer_versions.mjs``): the producer's RUN_STARTED declaration and the peer
ceiling (``max_protocol_version``) with its downgrades for pre-1.0 agents."""

from __future__ import annotations

import json
import subprocess
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Optional

import pytest

from ag_ui.client import HttpAgent
from ag_ui.client.downgrade import (
    ContentDowngradeMiddleware,
    PeerDowngradeWarning,
    SubagentDowngradeMiddleware,
    ValueTypeDowngradeMiddleware,
    downgrade_middlewares,
)
from ag_ui.client.versions import (
    ProtocolVersionWarning,
    compare_declared_protocol,
    parse_version,
)
from ag_ui.core import PROTOCOL_VERSION, RunAgentInput
from ag_ui.core.decoding import AnyEvent, parse_event
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION
from tests.client.client_helpers import Recorder, asgi_agent, run_frames, static_app

pytestmark = pytest.mark.anyio

INTEROP = Path(__file__).resolve().parents[1] / "interop"
STARTED = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def _run(*inner: dict[str, Any], declared: Optional[str] = None) -> list[dict[str, Any]]:
    started = dict(STARTED) if declared is None else {**STARTED, "protocolVersion": declared}
    return [started, *inner, FINISHED]


class ReplayAgent(HttpAgent):
    """Answers from a list and remembers the input that reached it (after the middleware)."""

    def __init__(self, events: list[dict[str, Any]], **options: Any) -> None:
        super().__init__("http://127.0.0.1:9/agent", thread_id="t", **options)
        self.events = events
        self.received: Optional[dict[str, Any]] = None

    async def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]:  # type: ignore[override]
        self.received = input.model_dump(by_alias=True, mode="json")
        for event in self.events:
            yield parse_event(event)


def _kind(text: str) -> str:
    """What a warning (ours or TypeScript's) is about."""
    lowered = text.lower()
    if "subagent" in lowered:
        return "subagent"
    if "non-text" in lowered or "loses its" in lowered:
        return "content"
    if "cannot interpret" in lowered or "not a version" in lowered:
        return "uninterpretable"
    if "newer" in lowered or "speaks protocol" in lowered:
        return "newer"
    return f"other: {text}"


def typescript(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    completed = subprocess.run(
        ["node", str(INTEROP / "ts_peer_versions.mjs")],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=INTEROP,
    )
    results: list[dict[str, Any]] = json.loads(completed.stdout)
    return results


async def ours(case: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {
        "initial_messages": case.get("initialMessages", []),
        "initial_state": case.get("initialState", {}),
    }
    if case.get("maxProtocolVersion") is not None:
        options["max_protocol_version"] = case["maxProtocolVersion"]
    agent = ReplayAgent(case["events"], **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await agent.run_agent(run_id="r")
    return {
        "input": agent.received,
        "messages": [m.model_dump(by_alias=True, mode="json") for m in agent.messages],
        "state": agent.state,
        "pendingInterrupts": [
            i.model_dump(by_alias=True, mode="json") for i in agent.pending_interrupts
        ],
        "warnings": [_kind(str(w.message)) for w in caught],
    }


def _comparable(theirs: dict[str, Any]) -> dict[str, Any]:
    input = dict(theirs["input"])
    # Deliberate difference (docs/client.md): forwardedProps is only sent when given.
    assert input.pop("forwardedProps") == {}
    # @ag-ui/client 1.0.0 declares the protocol it speaks, "1.0"; this client speaks 1.1.
    if "protocolVersion" in input:
        assert input["protocolVersion"] == "1.0"
        input["protocolVersion"] = SPOKEN_PROTOCOL_VERSION
    assert theirs["error"] is None
    return {
        "input": input,
        "messages": theirs["messages"],
        "state": theirs["state"],
        "pendingInterrupts": theirs["pendingInterrupts"],
        "warnings": [_kind(text) for text in theirs["warnings"]],
    }


DECLARATIONS = [
    *["1.0", "0.9", "0.0", "01.0", "1.1", "1.2", "2.0", "10.0"],
    *["1", "1.0.0", "v1.0", "abc", ""],
]


async def test_producer_declarations_warn_like_the_typescript_client() -> None:
    cases = [{"events": _run(declared=declared)} for declared in DECLARATIONS]
    expected = [_comparable(result)["warnings"] for result in typescript(cases)]
    # The one difference: this client speaks 1.1, so a "1.1" producer is its own version
    # (quiet), where the 1.0 TypeScript client calls it newer.
    pairs = zip(DECLARATIONS, expected, strict=True)
    ours_expected = [[] if declared == SPOKEN_PROTOCOL_VERSION else w for declared, w in pairs]
    assert [(await ours(case))["warnings"] for case in cases] == ours_expected
    assert SPOKEN_PROTOCOL_VERSION == "1.1"
    # The drop-in value frameworks declare stays the official package's.
    assert PROTOCOL_VERSION == "1.0"
    # The table itself, so a change on either side is visible here.
    assert dict(zip(DECLARATIONS, expected, strict=True)) == {
        "1.0": [],
        "0.9": [],
        "0.0": [],
        "01.0": [],
        "1.1": ["newer"],
        "1.2": ["newer"],
        "2.0": ["newer"],
        "10.0": ["newer"],
        "1": ["uninterpretable"],
        "1.0.0": ["uninterpretable"],
        "v1.0": ["uninterpretable"],
        "abc": ["uninterpretable"],
        "": ["uninterpretable"],
    }


def test_declaration_grammar_and_comparison() -> None:
    assert compare_declared_protocol("1.0") == "not-newer"
    assert compare_declared_protocol("1.1") == "not-newer"
    assert compare_declared_protocol("1.2") == "newer"  # a newer minor: warned, never refused
    assert compare_declared_protocol("1.10") == "newer"  # numeric, not lexicographic
    assert compare_declared_protocol("0.10", spoken="0.9") == "newer"
    assert compare_declared_protocol("1.0.0") == "uninterpretable"
    # ASCII digits only (Arabic-Indic one and zero would match a Unicode \d).
    assert compare_declared_protocol("\u0661.\u0660") == "uninterpretable"
    assert parse_version("0.0.39") == (0, 0, 39)
    assert parse_version("1") == parse_version("1.0") == parse_version("1.0.0") == (1, 0, 0)
    for bad in ["v1.0", "1.0.0-beta", "1.0.0.0", "", "x"]:
        with pytest.raises(ValueError, match="not a version"):
            parse_version(bad)


SUBAGENT_STREAM = _run(
    {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "found it"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
    {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "u1", "role": "user", "content": "hi", "subagentRunId": "s1"},
            {"id": "m1", "role": "assistant", "content": "found it", "subagentRunId": "s1"},
        ],
    },
    {"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "writer"},
    {"type": "SUBAGENT_ERROR", "subagentRunId": "s2", "message": "boom"},
)
SUBAGENT_STREAM[-1] = {
    **FINISHED,
    "outcome": {
        "type": "interrupt",
        "interrupts": [{"id": "i1", "reason": "confirmation", "subagentRunId": "s1"}],
    },
}
HISTORY = [
    {"id": "u1", "role": "user", "content": "hi", "subagentRunId": "s1"},
    {
        "id": "u2",
        "role": "user",
        "content": [
            {"type": "text", "text": "look at "},
            {"type": "image", "source": {"type": "url", "value": "https://x/cat.png"}},
            {"type": "text", "text": "this"},
        ],
    },
    {
        "id": "a1",
        "role": "assistant",
        "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "ok"},
]
CEILINGS = [None, "1.0", "1.1", "0.9", "0.0.58", "0.0.57", "0.0.45", "0.0.40", "0.0.39", "0.0.1"]


async def test_peer_ceilings_behave_like_the_typescript_client() -> None:
    cases = [
        {
            "maxProtocolVersion": ceiling,
            "initialMessages": HISTORY,
            "initialState": {"n": 1},
            "events": SUBAGENT_STREAM,
        }
        for ceiling in CEILINGS
    ]
    expected = [_comparable(result) for result in typescript(cases)]
    for ceiling, case, theirs in zip(CEILINGS, cases, expected, strict=True):
        assert await ours(case) == theirs, ceiling
    by_ceiling = dict(zip(CEILINGS, expected, strict=True))
    # What the comparison covered: declaration, attribution and content per era.
    assert "protocolVersion" in by_ceiling["1.0"]["input"]
    assert "protocolVersion" not in by_ceiling["0.9"]["input"]
    assert "subagentRunId" in by_ceiling["0.0.58"]["input"]["messages"][0]
    assert "subagentRunId" not in by_ceiling["0.0.57"]["input"]["messages"][0]
    assert by_ceiling["0.0.57"]["warnings"] == ["subagent"] * 4
    assert by_ceiling["0.0.40"]["input"]["messages"][1]["content"][1]["type"] == "image"
    assert by_ceiling["0.0.39"]["input"]["messages"][1]["content"] == "look at this"
    assert by_ceiling["0.0.39"]["input"]["messages"][2]["content"] == ""
    assert by_ceiling["0.0.39"]["warnings"] == ["content", *["subagent"] * 4]
    assert by_ceiling["0.0.57"]["pendingInterrupts"] == [{"id": "i1", "reason": "confirmation"}]


async def test_the_default_ceiling_installs_nothing_and_declares_the_version() -> None:
    recorder = Recorder()
    agent = asgi_agent(static_app(run_frames(), recorder=recorder))
    assert agent.max_protocol_version == "1.1"
    await agent.run_agent()
    assert recorder.bodies[0]["protocolVersion"] == "1.1"
    assert downgrade_middlewares(parse_version("1.1")) == []
    assert [type(m) for m in downgrade_middlewares(parse_version("1.0"))] == [
        ValueTypeDowngradeMiddleware
    ]


async def test_an_old_ceiling_sends_an_old_request_over_http() -> None:
    recorder = Recorder()
    agent = asgi_agent(
        static_app(run_frames(), recorder=recorder),
        max_protocol_version="0.0.39",
        initial_messages=HISTORY[1:3],
    )
    with pytest.warns(PeerDowngradeWarning, match="loses its image part"):
        await agent.run_agent()
    body = recorder.bodies[0]
    assert "protocolVersion" not in body
    assert [m["content"] for m in body["messages"]] == ["look at this", ""]
    # Only the request is downgraded: the conversation keeps its parts.
    assert agent.messages[0].content[1].type == "image"  # type: ignore[index,union-attr]


def test_the_downgrades_stack_outermost_first() -> None:
    assert [type(m) for m in downgrade_middlewares((0, 0, 39))] == [
        ValueTypeDowngradeMiddleware,
        SubagentDowngradeMiddleware,
        ContentDowngradeMiddleware,
    ]
    assert [type(m) for m in downgrade_middlewares((0, 0, 57))] == [
        ValueTypeDowngradeMiddleware,
        SubagentDowngradeMiddleware,
    ]
    assert [type(m) for m in downgrade_middlewares((0, 0, 58))] == [ValueTypeDowngradeMiddleware]
    assert downgrade_middlewares((1, 1, 0)) == []


async def test_content_downgrade_drops_parent_run_id() -> None:
    agent = ReplayAgent(_run(), max_protocol_version="0.0.39")
    seen: list[Optional[str]] = []

    async def capture(input: RunAgentInput, next: Any) -> AsyncIterator[AnyEvent]:
        seen.append(input.parent_run_id)
        async for event in next.run(input):
            yield event

    agent.use(capture)
    # prepare_input is what a run sends; a parent run id set by the application is dropped.
    original = agent.prepare_input
    agent.prepare_input = lambda **kw: original(**kw, parent_run_id="p0")  # type: ignore[method-assign]
    await agent.run_agent()
    assert seen == [None]
    assert agent.received is not None
    assert "parentRunId" not in agent.received


def test_an_unreadable_ceiling_is_refused() -> None:
    with pytest.raises(ValueError, match="not a version"):
        HttpAgent("http://127.0.0.1:9/agent", max_protocol_version="latest")
    agent = HttpAgent("http://127.0.0.1:9/agent")
    with pytest.raises(ValueError, match="not a version"):
        agent.max_protocol_version = "1.x"
    assert agent.max_protocol_version == "1.1"
    assert agent.clone().max_protocol_version == "1.1"


async def test_producer_warning_category() -> None:
    with pytest.warns(ProtocolVersionWarning, match="newer than this client's"):
        await ReplayAgent(_run(declared="1.2")).run_agent()


def test_a_clients_own_legacy_binary_parts_become_media_parts_without_a_warning() -> None:
    # What HttpAgent sends (1.1: upgraded on every outgoing run, whatever the peer); the same
    # conversion as the translator's, on wire dicts, so no BinaryInputContent is ever built.
    message = {
        "id": "u",
        "role": "user",
        "content": [
            {"type": "text", "text": "see"},
            {"type": "binary", "mimeType": "image/png", "url": "https://e.test/a.png"},
            {"type": "binary", "mimeType": "application/pdf", "data": "QUJD", "filename": "a.pdf"},
            {"type": "binary", "mimeType": "audio/wav", "id": "only-an-id"},
        ],
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = HttpAgent("http://127.0.0.1:1/agent", initial_messages=[message])
        sent = agent.prepare_input().model_dump(by_alias=True, exclude_unset=True)
    parts = sent["messages"][0]["content"]
    assert parts[:3] == [
        {"type": "text", "text": "see"},
        {
            "type": "image",
            "source": {"type": "url", "value": "https://e.test/a.png", "mimeType": "image/png"},
        },
        {
            "type": "document",
            "source": {"type": "data", "value": "QUJD", "mimeType": "application/pdf"},
            "metadata": {"filename": "a.pdf"},
        },
    ]
    assert parts[3]["type"] == "binary"  # an id alone cannot be converted: kept, and warned about
    assert [str(w.message) for w in caught if "deprecated" in str(w.message)]
