"""``agui run`` shows reconnects: a line in text mode, a count in json mode."""

from __future__ import annotations

import io
import json
import re

import anyio
import httpx
import pytest

from ag_ui.cli.run import run_client
from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore
from tests.support.refusing import UnreachableAtFirst, agent

from .resume_helpers import CuttingTransport, lifespan, story_agent

pytestmark = pytest.mark.anyio


async def run_cut(output: str, cuts: list[int | None]) -> str:
    app = create_app(story_agent, store=InMemoryRunStore())
    transport = CuttingTransport(httpx.ASGITransport(app=app), list(cuts))
    out = io.StringIO()
    async with lifespan(app), httpx.AsyncClient(transport=transport) as http:
        with anyio.fail_after(10):
            code = await run_client(
                "http://localhost/agent", message="hi", output=output, stream=out, http_client=http
            )
    assert code == 0
    return out.getvalue()


async def test_text_output_prints_a_line_per_reconnect() -> None:
    text = await run_cut("text", [700, 900])
    masked = re.sub(r"after [A-Za-z0-9_-]{24}:", "after KEY:", text)
    masked = re.sub(r"call-[0-9a-f-]{36}-", "call-RUN-", masked)
    assert masked == (
        'state: {"count":0,"log":[]}\n'
        "assistant: part 0.0 \n"
        "--- connection lost (ConnectionLostError); reconnecting (attempt 1) after KEY:4\n"
        "part 0.1 part 0.2 part 0.3 part 0.4 part 0.5 \n"
        "--- connection lost (ConnectionLostError); reconnecting (attempt 1) after KEY:10\n"
        'state change: replace /count 1; replace /log ["turn 0"]\n'
        "assistant: part 1.0 part 1.1 part 1.2 part 1.3 part 1.4 part 1.5 \n"
        'state change: replace /count 2; replace /log ["turn 0","turn 1"]\n'
        "assistant: part 2.0 part 2.1 part 2.2 part 2.3 part 2.4 part 2.5 \n"
        'state change: replace /count 3; replace /log ["turn 0","turn 1","turn 2"]\n'
        'tool call search({"q": "resume me"})\n'
        "assistant: done\n"
        "--- success · 38 event(s) · 5 new message(s)\n"
        "pending tool calls: call-RUN-4\n"
        'final state: {"count":3,"log":["turn 0","turn 1","turn 2"]}\n'
    )


async def test_json_output_counts_reconnects() -> None:
    report = json.loads(await run_cut("json", [300, 300, 300]))
    assert report["ok"] is True
    assert report["reconnects"] == 3
    assert sum(report["events"].values()) == 38


async def test_text_output_says_when_a_refused_run_is_sent_again() -> None:
    """The thread store is unreachable for the first request (503, ``Retry-After: 1``): the
    line says the run was refused and is sent again, not that a connection was lost."""
    app = create_app(agent, threads=UnreachableAtFirst(failures=1), public_thread_history=True)
    out = io.StringIO()
    async with lifespan(app), httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http:
        with anyio.fail_after(10):
            code = await run_client(
                "http://localhost/agent", message="hi", output="text", stream=out, http_client=http
            )
    assert code == 0
    lines = out.getvalue().splitlines()
    assert re.fullmatch(
        r"--- run refused \(HTTP 503\); sending it again in 1\.[0-2] s \(attempt 1\)", lines[0]
    ), lines
    assert lines[1] == "assistant: hello"
