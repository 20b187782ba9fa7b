"""The draft specification's rules (``D1``-``D3``): warnings by default, fatal when asked.

The streams are the shapes of upstream's ``spec/draft/conformance/streams`` fixtures
(``run-finished-wrong-run-id-fatal``, ``run-finished-wrong-thread-id-fatal``,
``second-run-on-another-thread-fatal``, ``duplicate-interrupt-id-fatal``), checked in every
place that takes the option: the verifier, ``EventPipeline``, ``HttpAgent`` over real HTTP,
``agui verify`` and the test kit's grader behind ``agui validate``.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ag_ui.apply import EventPipeline
from ag_ui.cli import build_parser
from ag_ui.cli import main as agui
from ag_ui.client import HttpAgent
from ag_ui.core import parse_event
from ag_ui.core.errors import EventSequenceError
from ag_ui.testing import StreamGrader
from ag_ui.verify import DraftRuleWarning, EventVerifier
from tests.support.servers import serve


def started(thread: str, run: str) -> dict[str, Any]:
    return {"type": "RUN_STARTED", "threadId": thread, "runId": run}


def finished(thread: str, run: str, **extra: Any) -> dict[str, Any]:
    return {"type": "RUN_FINISHED", "threadId": thread, "runId": run, **extra}


INTERRUPT = {"reason": "approval", "message": "approve"}
STREAMS: dict[str, tuple[str, str, list[dict[str, Any]]]] = {
    "wrong-run-id": (
        "D1",
        "must agree on their runId",
        [started("t", "r-opened"), finished("t", "r-other", outcome={"type": "success"})],
    ),
    "wrong-thread-id": (
        "D1",
        "carry the input's threadId",
        [started("t", "r"), finished("t-other", "r", outcome={"type": "success"})],
    ),
    "second-run-other-thread": (
        "D2",
        "carries the input's threadId",
        [started("t", "r1"), finished("t", "r1"), started("t2", "r2"), finished("t2", "r2")],
    ),
    "duplicate-interrupt-id": (
        "D3",
        "two interrupts carrying the id 'i-1'",
        [
            started("t", "r"),
            finished(
                "t",
                "r",
                outcome={
                    "type": "interrupt",
                    "interrupts": [{"id": "i-1", **INTERRUPT}, {"id": "i-1", **INTERRUPT}],
                },
            ),
        ],
    ),
}
NAMES = list(STREAMS)


def feed_all(verifier: EventVerifier, stream: list[dict[str, Any]]) -> None:
    for raw in stream:
        verifier.feed(parse_event(raw))
    verifier.finish()


@pytest.mark.parametrize("name", NAMES)
def test_the_verifier_warns_by_default(name: str) -> None:
    rule, text, stream = STREAMS[name]
    with pytest.warns(DraftRuleWarning, match=rf"\[{rule}\] .*{text}"):
        feed_all(EventVerifier(), stream)


@pytest.mark.parametrize("name", NAMES)
def test_strict_draft_makes_each_rule_fatal_with_its_code(name: str) -> None:
    rule, text, stream = STREAMS[name]
    with pytest.raises(EventSequenceError, match=text) as caught:
        feed_all(EventVerifier(strict_draft=True), stream)
    assert caught.value.rule == rule
    pipeline = EventPipeline(strict_draft=True)
    *before, last = [parse_event(raw) for raw in stream]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for event in before if rule != "D2" else before[:-1]:
            pipeline.feed(event)
    breaking = last if rule != "D2" else before[-1]
    with pytest.raises(EventSequenceError, match=text):
        pipeline.feed(breaking)


def test_conformant_streams_say_nothing_even_when_strict() -> None:
    stream = [
        started("t", "r1"),
        finished(
            "t",
            "r1",
            outcome={
                "type": "interrupt",
                "interrupts": [{"id": "a", **INTERRUPT}, {"id": "b", **INTERRUPT}],
            },
        ),
        started("t", "r2"),
        finished("t", "r2"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        feed_all(EventVerifier(strict_draft=True), stream)
        feed_all(EventVerifier(), stream)


@pytest.fixture(scope="module")
def draft_server() -> Iterator[str]:
    async def endpoint(request: Request) -> Response:
        await request.body()
        _, _, stream = STREAMS[request.path_params["name"]]
        body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in stream)
        return Response(body, media_type="text/event-stream")

    app = Starlette(routes=[Route("/{name}", endpoint, methods=["POST"])])
    with serve(app, lifespan="off") as url:
        yield url


@pytest.mark.anyio
@pytest.mark.parametrize("name", NAMES)
async def test_the_client_warns_or_with_strict_draft_fails_the_run(
    name: str, draft_server: str
) -> None:
    rule, text, _ = STREAMS[name]
    agent = HttpAgent(f"{draft_server}/{name}", thread_id="t")
    with pytest.warns(DraftRuleWarning, match=text):
        await agent.run_agent()
    strict = HttpAgent(f"{draft_server}/{name}", thread_id="t", strict_draft=True)
    with pytest.raises(EventSequenceError, match=text) as caught:
        await strict.run_agent()
    assert caught.value.rule == rule


def verify(tmp_path: Path, stream: list[dict[str, Any]], *options: str) -> dict[str, Any]:
    recording = tmp_path / "run.jsonl"
    recording.write_text("".join(json.dumps(e) + "\n" for e in stream))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        agui(["verify", str(recording), "--output", "json", *options])
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


@pytest.mark.parametrize("name", NAMES)
def test_agui_verify_lists_the_warning_and_fails_with_strict_draft(
    name: str, tmp_path: Path
) -> None:
    rule, text, stream = STREAMS[name]
    report = verify(tmp_path, stream)
    assert report["ok"] is True
    assert any(f"[{rule}]" in w and text in w for w in report["warnings"]), report["warnings"]
    strict = verify(tmp_path, stream, "--strict-draft")
    assert strict["ok"] is False
    assert f"[{rule}]" in strict["error"]
    assert text in strict["error"]


@pytest.mark.parametrize("name", NAMES)
def test_the_grader_behind_agui_validate_reports_the_rule_with_strict_draft(name: str) -> None:
    rule, _, stream = STREAMS[name]
    lenient = StreamGrader()

    def grade_leniently() -> None:
        for raw in stream:
            lenient.feed(parse_event(raw))
        lenient.finish()

    with pytest.warns(DraftRuleWarning):
        grade_leniently()
    assert not [f for f in lenient.findings if f.rule == rule]
    grader = StreamGrader(strict_draft=True)
    for raw in stream:
        grader.feed(parse_event(raw))
    grader.finish()
    assert [f.rule for f in grader.findings if f.severity == "error"] == [rule]


def test_agui_validate_takes_the_option() -> None:
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
        pytest.raises(SystemExit) as caught,
    ):
        agui(["validate", "--help"])
    assert caught.value.code == 0
    args = build_parser().parse_args(["validate", "http://127.0.0.1:1/agent", "--strict-draft"])
    assert args.strict_draft is True
