"""Real older peers against this SDK's server (the demo agent on a real uvicorn).

* Microsoft Agent Framework's Python client (``agent-framework-ag-ui`` 1.7.0, in
  ``.venv-fw-agent-framework``) declares no ``protocolVersion``: the server downgrades, so a
  subagent's events are withheld instead of merged into the reply (docs/server.md, "Older
  clients"); and its habit of running a client tool itself and re-posting the tool message
  without ``resume`` ends the booking in one round instead of booking again forever.
* The official 0.x-era package (``ag-ui-protocol`` 0.1.10, in ``.venv-fw-official-0x``) parses
  every frame the server sends a client that declares no version; a 1.0 client's stream it
  cannot.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from ag_ui.demo import create_demo_app
from tests.frameworks.venvs import framework_venv
from tests.support.servers import serve


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with serve(create_demo_app()) as url:
        yield f"{url}/agent"


@pytest.fixture(scope="module")
def demo_without_downgrade_url() -> Iterator[str]:
    with serve(create_demo_app(downgrade_older_clients=False)) as url:
        yield f"{url}/agent"


MAF_CLIENT = r"""
import asyncio, json, sys
import httpx
from agent_framework import Agent, tool
from agent_framework.ag_ui import AGUIChatClient

url, prompt = sys.argv[1], sys.argv[2]
posts = []

async def count(request):
    if request.method == "POST":
        posts.append(json.loads(request.content))

@tool
def confirm_booking(request: str) -> str:
    "Asks the user to confirm a booking."
    return json.dumps({"approved": True})

async def main():
    http = httpx.AsyncClient(timeout=30, event_hooks={"request": [count]})
    client = AGUIChatClient(endpoint=url, http_client=http)
    agent = Agent(name="demo", client=client, tools=[confirm_booking])
    try:
        response = await agent.run(prompt)
        text, error = response.text, None
    except Exception as exc:
        text, error = None, f"{type(exc).__name__}: {exc}"
    print(json.dumps({"text": text, "error": error, "posts": len(posts),
                      "versions": [p.get("protocolVersion") for p in posts]}))

asyncio.run(main())
"""


def _maf(url: str, prompt: str) -> dict[str, Any]:
    python = framework_venv("agent-framework", "official")
    done = subprocess.run(
        [str(python), "-c", MAF_CLIENT, url, prompt],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


@pytest.fixture(scope="module")
def maf_answers(demo_url: str, demo_without_downgrade_url: str) -> dict[str, dict[str, Any]]:
    """The three conversations, run concurrently (each client process imports for seconds)."""
    runs = {
        "book": (demo_url, "book a table for two"),
        "research": (demo_url, "research tides"),
        "research-no-downgrade": (demo_without_downgrade_url, "research tides"),
    }
    with ThreadPoolExecutor(len(runs)) as pool:
        futures = {name: pool.submit(_maf, *run) for name, run in runs.items()}
        return {name: future.result() for name, future in futures.items()}


def test_agent_framework_client_books_once_instead_of_looping(
    maf_answers: dict[str, dict[str, Any]],
) -> None:
    answer = maf_answers["book"]
    assert answer["error"] is None, answer
    # First POST: the booking call (the client ignores the interrupt and runs the tool itself);
    # second: its tool message, which the demo takes as the answer. Before: 40 POSTs and more.
    assert answer["posts"] == 2, answer
    assert "Done: your booking is confirmed." in answer["text"]
    assert answer["versions"] == [None, None]  # it declares no protocol version


def test_agent_framework_client_does_not_get_a_subagents_text(
    maf_answers: dict[str, dict[str, Any]],
) -> None:
    subagent_said = "tides is worth a closer look"
    downgraded = maf_answers["research"]
    assert downgraded["error"] is None, downgraded
    assert "My researcher looked into tides." in downgraded["text"]
    assert subagent_said not in downgraded["text"]
    # The server opted out: the client merges the subagent's words into the reply.
    merged = maf_answers["research-no-downgrade"]
    assert subagent_said in merged["text"], merged


OFFICIAL_0X_PARSER = r"""
import json, sys
from pydantic import TypeAdapter
from ag_ui.core import Event
adapter = TypeAdapter(Event)
failures = []
for line in sys.stdin:
    if line.startswith("data: "):
        try:
            adapter.validate_json(line[6:])
        except Exception as exc:
            failures.append(json.loads(line[6:])["type"])
print(json.dumps(failures))
"""


def _sse(url: str, body: dict[str, Any]) -> str:
    answer = httpx.post(url, json=body, headers={"accept": "text/event-stream"}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.text


def _unparsed_by_0x(stream: str) -> list[str]:
    python = framework_venv("official-0x", "official")
    done = subprocess.run(
        [str(python), "-c", OFFICIAL_0X_PARSER],
        input=stream,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    failures: list[str] = json.loads(done.stdout)
    return failures


@pytest.mark.parametrize("prompt", ["research tides", "hello", "book a table"])
def test_the_official_0x_package_parses_what_an_undeclared_client_gets(
    demo_url: str, prompt: str
) -> None:
    body = {
        "threadId": "t",
        "runId": "r",
        "state": {},
        "tools": [],
        "context": [],
        "messages": [{"id": "u1", "role": "user", "content": prompt}],
    }
    assert _unparsed_by_0x(_sse(demo_url, body)) == []
    declared = _sse(demo_url, {**body, "protocolVersion": "1.0"})
    if prompt == "research tides":  # a 1.0 client gets the subagent, which 0.1.10 cannot read
        assert "SUBAGENT_STARTED" in _unparsed_by_0x(declared)


def test_a_declared_old_version_gets_flattened_content_and_no_subagent_messages() -> None:
    from ag_ui.core import parse_event
    from ag_ui.server._downgrade import client_era, downgraded

    snapshot = parse_event(
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {
                    "id": "u1",
                    "role": "user",
                    "content": [{"type": "text", "text": "hel"}, {"type": "text", "text": "lo"}],
                },
                {"id": "s1", "role": "assistant", "content": "sub", "subagentRunId": "sub-1"},
                {"id": "a1", "role": "assistant", "content": "done"},
            ],
        }
    )
    era = client_era("0.0.39")
    assert era == (0, 0, 39)
    result = downgraded(snapshot, era)
    assert result is not None
    wire = result.model_dump(by_alias=True, mode="json")["messages"]
    assert wire == [
        {"id": "u1", "role": "user", "content": "hello"},
        {"id": "a1", "role": "assistant", "content": "done"},
    ]
    assert client_era("1.0") == (1, 0, 0)  # 1.0.x loses only the 1.1 encryptedValueType
    assert client_era("1.1") is None
    assert client_era(None) == (0, 0, 57)
