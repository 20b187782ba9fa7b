"""Issue 37 in a real browser (Debian's headless Chromium, driven by Playwright): an agent with
the tap on, wrapped in the permissive CORS middleware people add when their front end runs on
another port (``allow_origins=["*"]``), served by uvicorn on 127.0.0.1.

* A page of another site (``http://evil.example:PORT``, resolved to 127.0.0.1 by the browser's
  resolver rules, no network) reads ``/agent/tap`` with ``fetch`` and ``EventSource`` while a run
  carrying a secret goes through: it reads nothing of the run, only the 403 naming the option.
* A DNS-rebinding page (``http://evil.example:AGENT_PORT``: the document came from the attacker,
  the requests reach the agent) gets the 403 on the tap, the run and the threads: no run.
* The allowed case: a front end on a loopback origin (``http://localhost:OTHER_PORT``) runs the
  agent through the CORS middleware; the tap stays closed to it, and open to ``agui inspect``'s
  kind of client (no Origin), which sees the secret: the tap was live all along.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import HTMLResponse
from starlette.routing import Route

from ag_ui.server import create_app
from ag_ui.store import open_thread_store
from tests.inspect.conftest import serve
from tests.support.chromium import chromium_context

SECRET = "s3cret-in-state-4711"
EVIL = "evil.example"

READ_TAP = """async (url) => {
  const seen = {status: null, body: "", error: null, sse: [], sseErrors: 0};
  const source = new EventSource(url);
  source.onmessage = (event) => seen.sse.push(event.data);
  source.onerror = () => { seen.sseErrors += 1; };
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 3000);
  try {
    const response = await fetch(url, {signal: stop.signal});
    seen.status = response.status;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      seen.body += decoder.decode(value);
    }
  } catch (error) {
    seen.error = String(error);
  }
  // The EventSource gets its answer in its own time: wait for its error (or 3 s).
  for (let waited = 0; seen.sseErrors === 0 && waited < 3000; waited += 50) {
    await new Promise((done) => setTimeout(done, 50));
  }
  source.close();
  return seen;
}"""

CALL = """async ([url, method, body]) => {
  try {
    const response = await fetch(url, {
      method, headers: body ? {"content-type": "application/json"} : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return {status: response.status, body: await response.text()};
  } catch (error) {
    return {status: null, body: String(error)};
  }
}"""


def run_body(run: str) -> dict[str, Any]:
    return {
        "threadId": "t-" + run,
        "runId": run,
        "messages": [{"id": "m-" + run, "role": "user", "content": "hi"}],
        "tools": [],
        "context": [],
        "state": {"note": SECRET},
    }


class Counting:
    """The agent: counts its runs (a page that got one through would show here)."""

    def __init__(self) -> None:
        self.runs = 0

    async def __call__(self, run_input: Any, ctx: Any) -> None:
        self.runs += 1
        await ctx.say("hello")


@pytest.fixture(scope="module")
def agent() -> Counting:
    return Counting()


@pytest.fixture(scope="module")
def agent_base(agent: Counting) -> Iterator[str]:
    app = create_app(agent, tap=True, threads=open_thread_store("memory:"))
    app.add_middleware(
        CORSMiddleware, allow_origins=["*"], allow_methods=["*"], allow_headers=["*"]
    )
    with serve(app) as base:
        yield base


@pytest.fixture(scope="module")
def page_base() -> Iterator[str]:
    """Any page: the origin is what the browser is told the host is."""

    async def index(request: Any) -> HTMLResponse:
        return HTMLResponse("<!doctype html><title>a page</title><p>a page</p>")

    with serve(Starlette(routes=[Route("/", index)])) as base:
        yield base


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    rules = f"--host-resolver-rules=MAP {EVIL} 127.0.0.1"
    with chromium_context(profile, extra_args=(rules,)) as context:
        yield context


def port_of(base: str) -> str:
    return base.rsplit(":", 1)[1]


def watch_tap(base: str, seen: list[str], ready: threading.Event) -> None:
    """What ``agui inspect --tap`` does: a loopback client without Origin reads the tap."""
    with httpx.stream("GET", base + "/agent/tap", timeout=10) as response:
        assert response.status_code == 200
        ready.set()
        for line in response.iter_lines():
            seen.append(line)
            if '"kind":"end"' in line:
                return


def test_a_page_of_another_site_reads_nothing_from_the_tap(
    browser: Any, agent: Counting, agent_base: str, page_base: str, tmp_path: Path
) -> None:
    page = browser.new_page()
    page.goto(f"http://{EVIL}:{port_of(page_base)}/")
    reading = page.evaluate_handle(f"({READ_TAP})({json.dumps(agent_base + '/agent/tap')})")
    # Meanwhile a real watcher (no Origin: agui inspect) and a run carrying a secret.
    watched: list[str] = []
    ready = threading.Event()
    watcher = threading.Thread(target=watch_tap, args=(agent_base, watched, ready))
    watcher.start()
    assert ready.wait(10)
    with httpx.stream("POST", agent_base + "/agent", json=run_body("r-secret")) as response:
        assert "RUN_FINISHED" in response.read().decode()
    watcher.join(10)
    seen = reading.json_value()
    page.close()
    assert any(SECRET in line for line in watched)  # the tap was live and carried it
    # The page: the 403 (readable: the CORS middleware put its header on it), and no more.
    assert seen["status"] == 403, seen
    assert json.loads(seen["body"])["error"]["code"] == "cross_origin_request"
    assert "allowed_hosts" in seen["body"]
    assert SECRET not in json.dumps(seen)
    assert seen["sse"] == []
    assert seen["sseErrors"] >= 1


def test_a_rebinding_page_gets_no_tap_no_run_no_threads(
    browser: Any, agent: Counting, agent_base: str
) -> None:
    runs = agent.runs
    rebound = f"http://{EVIL}:{port_of(agent_base)}"
    page = browser.new_page()
    # The document at the attacker's name, now resolved to 127.0.0.1 (the app's own 404 page:
    # what it says does not matter, the attacker's script runs in its origin all the same).
    page.goto(rebound + "/")
    answers = {
        what: page.evaluate(f"({CALL})", [rebound + path, method, body])
        for what, (method, path, body) in {
            "tap": ("GET", "/agent/tap", None),
            "run": ("POST", "/agent", run_body("r-rebound")),
            "threads": ("GET", "/agent/threads", None),
        }.items()
    }
    page.close()
    for what, answer in answers.items():
        assert answer["status"] == 403, (what, answer)
        error = json.loads(answer["body"])["error"]
        assert error["code"] == "host_not_allowed", (what, error)
        assert "allowed_hosts" in error["message"]
    assert agent.runs == runs  # 0 runs


def test_a_front_end_on_another_loopback_port_runs_the_agent_but_never_reads_the_tap(
    browser: Any, agent: Counting, agent_base: str, page_base: str
) -> None:
    runs = agent.runs
    page = browser.new_page()
    page.goto(f"http://localhost:{port_of(page_base)}/")
    run = page.evaluate(f"({CALL})", [agent_base + "/agent", "POST", run_body("r-front-end")])
    tap = page.evaluate(f"({CALL})", [agent_base + "/agent/tap", "GET", None])
    page.close()
    assert run["status"] == 200, run
    assert "RUN_FINISHED" in run["body"]
    assert agent.runs == runs + 1
    assert tap["status"] == 403
    assert json.loads(tap["body"])["error"]["code"] == "cross_origin_request"
