"""The probe suite of issue 37: every command that serves on a developer's machine (``agui
demo``, ``agui serve``, ``agui replay``, ``agui inspect``), started as a real process, is sent
what a DNS-rebinding page sends (the attacker's name in ``Host``) and what another site's page
sends (its ``Origin``) on every route. Each request is a 403 naming ``allowed_hosts`` (the
inspector, which has no such option, says it answers its own page only), and
afterwards nothing was read, written or run: the threads are as they were, the provider was not
called, the replay still answers its first run, the inspector started no turn.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import httpx
import pytest

from tests.providers.fake_provider import CHAT, FakeProvider, Reply

AGUI = [sys.executable, "-m", "ag_ui"]
EVIL_ORIGIN = "https://evil.example"
RUN_BODY = {
    "threadId": "probe-thread",
    "runId": "probe-run",
    "messages": [{"id": "m-probe", "role": "user", "content": "weather in Paris"}],
    "tools": [],
    "context": [],
    "state": {},
}


@contextmanager
def started(*args: str, env: Optional[dict[str, str]] = None) -> Iterator[str]:
    """``agui ARGS`` running; yields ``http://127.0.0.1:PORT`` from its first lines."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    process = subprocess.Popen(
        [*AGUI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**environment, **(env or {})},
    )
    try:
        assert process.stdout is not None
        for _ in range(5):
            line = process.stdout.readline()
            found = re.findall(r"http://127\.0\.0\.1:\d+", line)
            if found:
                yield found[-1]  # the inspector names the agent first, then itself
                break
        else:
            pytest.fail(f"agui {args[0]} printed no address: {process.stderr}")
    finally:
        process.terminate()
        process.wait(timeout=15)


def probe(
    base: str, routes: list[tuple[str, str, Any]], *, names: str = "allowed_hosts", **headers: str
) -> list[str]:
    """Send every route with ``headers``; the routes that did not answer the guard's 403 (its
    message naming ``names``: the option, or for the inspector, which has none, its own page)."""
    wrong = []
    with httpx.Client(base_url=base, timeout=10) as client:
        for method, path, body in routes:
            response = client.request(method, path, json=body, headers=headers)
            text = response.text
            code = "host_not_allowed" if "host" in headers else "cross_origin_request"
            if (
                response.status_code != 403
                or names not in text
                or response.json()["error"]["code"] != code
            ):
                wrong.append(f"{method} {path}: {response.status_code} {text[:200]}")
    return wrong


def rebinding(base: str) -> dict[str, str]:
    """The ``Host`` a rebinding page on ``evil.example`` sends to this server's port."""
    return {"host": "evil.example:" + base.rsplit(":", 1)[1]}


def agent_routes(thread: str) -> list[tuple[str, str, Any]]:
    return [
        ("POST", "/agent", RUN_BODY),
        ("GET", "/agent", None),
        ("GET", "/agent/capabilities", None),
        ("GET", f"/agent/connect?threadId={thread}", None),
        ("GET", "/agent/threads", None),
        ("GET", f"/agent/threads/{thread}", None),
        ("PATCH", f"/agent/threads/{thread}", {"title": "pwned"}),
        ("DELETE", f"/agent/threads/{thread}", None),
    ]


def threads_of(base: str) -> list[dict[str, Any]]:
    response = httpx.get(base + "/agent/threads", timeout=10)
    assert response.status_code == 200, response.text
    threads: list[dict[str, Any]] = response.json()["threads"]
    return threads


def seed_thread(base: str) -> str:
    """One run made the legitimate way (a loopback Host, no Origin); its thread id."""
    with httpx.stream("POST", base + "/agent", json=RUN_BODY, timeout=30) as response:
        assert response.status_code == 200
        assert "RUN_FINISHED" in response.read().decode()
    return str(RUN_BODY["threadId"])


@pytest.mark.parametrize("attack", ["rebinding Host", "foreign Origin"])
def test_agui_demo_answers_no_foreign_page(tmp_path: Path, attack: str) -> None:
    with started(
        "demo", "--no-chat", "--port", "0", "--delay", "0", env={"AGUI_DATA_DIR": str(tmp_path)}
    ) as base:
        thread = seed_thread(base)
        before = threads_of(base)
        headers = rebinding(base) if attack == "rebinding Host" else {"origin": EVIL_ORIGIN}
        assert probe(base, agent_routes(thread), **headers) == []
        after = threads_of(base)
        history = httpx.get(f"{base}/agent/threads/{thread}", timeout=10).json()
    # 0 reads (every answer was the 403), 0 writes (title and thread kept), 0 runs (one turn).
    assert after == before
    assert [t["threadId"] for t in after] == [thread]
    assert [m["role"] for m in history["messages"]].count("user") == 1


@pytest.mark.parametrize("attack", ["rebinding Host", "foreign Origin"])
def test_agui_serve_spends_no_provider_call_for_a_foreign_page(tmp_path: Path, attack: str) -> None:
    with FakeProvider() as fake:
        fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
        with started(
            "serve",
            "--model",
            "openai:probe-model",
            "--base-url",
            fake.openai_url,
            "--port",
            "0",
            env={"AGUI_DATA_DIR": str(tmp_path)},
        ) as base:
            thread = seed_thread(base)
            assert len(fake.bodies(CHAT)) == 1
            before = threads_of(base)
            headers = rebinding(base) if attack == "rebinding Host" else {"origin": EVIL_ORIGIN}
            assert probe(base, agent_routes(thread), **headers) == []
            assert threads_of(base) == before
        assert len(fake.bodies(CHAT)) == 1  # 0 runs: the provider (and its key) was not used


def write_recording(path: Path) -> Path:
    """Two recorded runs, told apart by their text: a probe that got a run would shift them."""
    lines = []
    for number in (1, 2):
        run = {"threadId": "t", "runId": f"r{number}"}
        lines += [
            {"type": "RUN_STARTED", **run},
            {"type": "TEXT_MESSAGE_START", "messageId": f"m{number}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{number}", "delta": f"run {number}"},
            {"type": "TEXT_MESSAGE_END", "messageId": f"m{number}"},
            {"type": "RUN_FINISHED", **run},
        ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.parametrize("attack", ["rebinding Host", "foreign Origin"])
def test_agui_replay_answers_no_foreign_page(tmp_path: Path, attack: str) -> None:
    recording = write_recording(tmp_path / "two.jsonl")
    with started("replay", str(recording), "--port", "0", "--instant") as base:
        headers = rebinding(base) if attack == "rebinding Host" else {"origin": EVIL_ORIGIN}
        # The recording carries no capabilities: the run is its only route.
        routes = [("POST", "/agent", RUN_BODY), ("GET", "/agent", None)]
        assert probe(base, routes, **headers) == []
        with httpx.stream("POST", base + "/agent", json=RUN_BODY, timeout=10) as response:
            first = response.read().decode()
    assert '"delta":"run 1"' in first  # the probes were given no run


def inspector_routes(session: str) -> list[tuple[str, str, Any]]:
    at = f"/api/sessions/{session}"
    return [
        ("GET", "/", None),
        ("GET", "/assets/app.js", None),
        ("GET", "/api/info", None),
        ("GET", f"/api/stream?session={session}", None),
        ("GET", f"{at}/events/0", None),
        ("GET", f"{at}/export?format=jsonl", None),
        ("GET", "/api/stored-threads", None),
        ("POST", "/api/stored-threads", {"threadId": "probe-thread"}),
        ("POST", "/api/threads", {}),
        ("POST", f"{at}/turn", {"message": "weather in Paris"}),
        ("POST", f"{at}/tools", {"results": {"c1": "x"}}),
        ("POST", f"{at}/resume", {"responses": {"i1": {"status": "resolved"}}}),
        ("POST", f"{at}/stop", {}),
        ("POST", f"{at}/playback", {"action": "play"}),
    ]


@pytest.mark.parametrize("attack", ["rebinding Host", "foreign Origin"])
def test_agui_inspect_answers_no_foreign_page(tmp_path: Path, attack: str) -> None:
    with (
        started(
            "demo", "--no-chat", "--port", "0", "--delay", "0", env={"AGUI_DATA_DIR": str(tmp_path)}
        ) as agent,
        started("inspect", agent + "/agent", "--port", "0", "--no-browser") as base,
    ):
        before = httpx.get(base + "/api/info", timeout=10).json()["sessions"]
        session = before[0]["id"]
        headers = rebinding(base) if attack == "rebinding Host" else {"origin": EVIL_ORIGIN}
        # The page's own POST header too: only the guard stands in the way.
        own_page = "answers its own page only"
        page_header = {"x-agui-inspector": "1"}
        assert (
            probe(base, inspector_routes(session), names=own_page, **headers, **page_header) == []
        )
        after = httpx.get(base + "/api/info", timeout=10).json()["sessions"]
        stored = httpx.get(agent + "/agent/threads", timeout=10).json()["threads"]
    assert after == before  # no session opened, no turn taken
    assert stored == []  # the agent behind it ran nothing


def test_a_name_given_with_allow_host_is_served_and_only_it(tmp_path: Path) -> None:
    """The allowed case: ``--allow-host`` names what a reverse proxy (or the LAN) calls this
    machine; that name is served, threads included, and any other name is still refused."""
    with started(
        "demo",
        "--no-chat",
        "--port",
        "0",
        "--delay",
        "0",
        "--allow-host",
        "agent.lan",
        env={"AGUI_DATA_DIR": str(tmp_path)},
    ) as base:
        port = base.rsplit(":", 1)[1]
        named = {"host": f"agent.lan:{port}"}
        with httpx.stream("POST", base + "/agent", json=RUN_BODY, headers=named) as response:
            assert response.status_code == 200
            assert "RUN_FINISHED" in response.read().decode()
        listed = httpx.get(base + "/agent/threads", headers=named, timeout=10)
        assert probe(base, agent_routes("probe-thread"), **rebinding(base)) == []
    assert [t["threadId"] for t in listed.json()["threads"]] == ["probe-thread"]
