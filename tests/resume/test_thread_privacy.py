"""Thread history (``GET <path>/connect?threadId=``) is private: thread ids are chosen by
clients, so knowing one must not be enough to read the thread (issue 11, item 5).

Each principal reads only the runs it created; the anonymous principal (no ``authorize``
hook, or a hook that returns ``None``/``True``) gets a 403 naming the option that serves it,
``public_thread_history=True``. Against a real uvicorn server.
"""

from __future__ import annotations

from typing import Any, Optional

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Mount

from ag_ui.client import SyncHttpAgent
from ag_ui.core import RunAgentInput
from ag_ui.core.errors import HTTPStatusError
from ag_ui.server import AgentEndpoint, RunContext, create_app
from ag_ui.store import InMemoryRunStore
from tests.support.servers import serve
from tests.support.sse import sse_events, sse_ids


async def hello(run_input: RunAgentInput, ctx: RunContext) -> None:
    await ctx.say(f"secret of {run_input.run_id}")


def body(run_id: str, thread_id: str = "t1") -> dict[str, Any]:
    return {"threadId": thread_id, "runId": run_id, "messages": []}


def by_header(request: Request) -> Optional[str]:
    """The caller named by ``x-user``; no header: anonymous (the hook returns ``None``)."""
    return request.headers.get("x-user")


def user(name: str) -> dict[str, str]:
    return {"x-user": name}


def run_ids(history: httpx.Response) -> list[str]:
    return [e["runId"] for e in sse_events(history.text) if e["type"] == "RUN_STARTED"]


def test_anonymous_thread_history_is_refused_with_the_option_named() -> None:
    app = create_app(hello, store=InMemoryRunStore(), keepalive=None)
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        run = http.post("/agent", json=body("r1"))
        assert run.status_code == 200
        for thread in ("t1", "no-such-thread"):  # the same answer: nothing says t1 exists
            history = http.get("/agent/connect", params={"threadId": thread})
            assert history.status_code == 403
            error = history.json()["error"]
            assert error["code"] == "thread_history_not_public"
            assert "public_thread_history=True" in error["message"]
            assert "authorize" in error["message"]
        # The run itself stays reachable by its unguessable key.
        key = run.headers["ag-ui-resume-key"]
        assert http.get("/agent/connect", params={"runKey": key}).status_code == 200


def test_public_thread_history_serves_the_anonymous_runs_of_a_thread() -> None:
    app = create_app(hello, store=InMemoryRunStore(), keepalive=None, public_thread_history=True)
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        keys = [http.post("/agent", json=body(r)).headers["ag-ui-resume-key"] for r in "ab"]
        history = http.get("/agent/connect", params={"threadId": "t1"})
        assert history.status_code == 200
        assert run_ids(history) == ["a", "b"]
        assert sse_ids(history.text) == [f"{keys[0]}:5", f"{keys[1]}:5"]


def test_each_principal_reads_only_its_own_runs_of_a_thread() -> None:
    # Even with public_thread_history on: it opens the anonymous runs only.
    store = InMemoryRunStore()
    app = create_app(
        hello, store=store, keepalive=None, authorize=by_header, public_thread_history=True
    )
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        for run_id, who in [("alice-1", "alice"), ("bob-1", "bob"), ("alice-2", "alice")]:
            assert http.post("/agent", json=body(run_id), headers=user(who)).status_code == 200
        assert http.post("/agent", json=body("anonymous-1")).status_code == 200

        alice = http.get("/agent/connect", params={"threadId": "t1"}, headers=user("alice"))
        assert (alice.status_code, run_ids(alice)) == (200, ["alice-1", "alice-2"])
        assert "secret of bob-1" not in alice.text
        bob = http.get("/agent/connect", params={"threadId": "t1"}, headers=user("bob"))
        assert run_ids(bob) == ["bob-1"]
        anonymous = http.get("/agent/connect", params={"threadId": "t1"})
        assert run_ids(anonymous) == ["anonymous-1"]
        # A principal with no run in the thread gets nothing: the 404 of an unknown thread.
        mallory = http.get("/agent/connect", params={"threadId": "t1"}, headers=user("mallory"))
        assert (mallory.status_code, mallory.json()["error"]["code"]) == (404, "run_not_found")


def test_a_hook_that_admits_anonymously_keeps_thread_history_private() -> None:
    app = create_app(hello, store=InMemoryRunStore(), keepalive=None, authorize=lambda r: True)
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        assert http.post("/agent", json=body("r1")).status_code == 200
        history = http.get("/agent/connect", params={"threadId": "t1"})
        assert history.status_code == 403
        assert history.json()["error"]["code"] == "thread_history_not_public"


def test_the_client_reports_the_refusal_with_the_option_named() -> None:
    app = create_app(hello, store=InMemoryRunStore(), keepalive=None)
    with serve(app) as url, SyncHttpAgent(f"{url}/agent", thread_id="t1") as agent:
        assert agent.run_agent(run_id="r1").finished
        with pytest.raises(HTTPStatusError) as refused:
            agent.connect_agent()  # the thread's history, anonymously
    assert refused.value.status == 403
    assert "public_thread_history=True" in str(refused.value)


def test_a_mounted_endpoint_keeps_thread_history_private_too() -> None:
    # app.mount(path, endpoint) reaches the connect endpoint without routes().
    for public, status in [(False, 403), (True, 200)]:
        endpoint = AgentEndpoint(
            hello, store=InMemoryRunStore(), keepalive=None, public_thread_history=public
        )
        app = Starlette(routes=[Mount("/agent", endpoint)], lifespan=endpoint.lifespan)
        with serve(app) as url, httpx.Client(base_url=url, timeout=10) as http:
            assert http.post("/agent/", json=body("r1")).status_code == 200  # the mount's root
            history = http.get("/agent/connect", params={"threadId": "t1"})
            assert history.status_code == status
