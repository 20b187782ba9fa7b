"""``agui serve --model``: serves a model that ``agui run`` talks to; every set-up mistake is
one line on stderr with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import httpx
import pytest

from ag_ui.cli import main
from tests.providers.fake_provider import CHAT, MESSAGES, FakeProvider, Reply

AGUI = [sys.executable, "-m", "ag_ui"]


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


def env(**values: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    return {**base, **values}


def agui(*args: str, **environment: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AGUI, *args], capture_output=True, text=True, timeout=60, env=env(**environment)
    )


@contextmanager
def serving(*args: str, log: Optional[list[str]] = None, **environment: str) -> Iterator[str]:
    """``agui serve ARGS --port 0`` running; yields the URL it printed (and puts what it wrote
    on stderr in ``log`` when it has stopped)."""
    server = subprocess.Popen(
        [*AGUI, "serve", *args, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(**environment),
    )
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()
        assert " on http://127.0.0.1:" in ready, server.stderr.read() if server.stderr else ready
        url = ready.split(" on ", 1)[1].split(". ", 1)[0]
        assert server.stdout.readline().strip() == f"Capabilities: {url}/capabilities"
        hint = server.stdout.readline()
        assert hint.strip() == f'Try:  agui run {url} -m "Hello!"'
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)
        if log is not None and server.stderr is not None:
            log.append(server.stderr.read())


def test_serves_an_openai_compatible_model_that_agui_run_talks_to(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are terse.", encoding="utf-8")
    # A local server needs no key at all.
    with serving(
        "--model", "openai:llama3.2", "--base-url", fake.openai_url, "--system", f"@{prompt}"
    ) as url:
        done = agui("run", url, "-m", "hi")
        capabilities = httpx.get(f"{url}/capabilities").json()
    assert done.returncode == 0, done.stderr
    assert "Hello from the model." in done.stdout
    body: Any = fake.bodies(CHAT)[0]
    assert body["model"] == "llama3.2"
    assert body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert fake.requests[0].headers["authorization"] == "Bearer not-needed"
    assert capabilities["identity"] == {"name": "llama3.2", "type": "openai", "provider": "openai"}
    assert capabilities["execution"] == {"maxIterations": 10}


def test_serves_anthropic_with_the_key_from_the_environment(fake: FakeProvider) -> None:
    fake.queue(MESSAGES, Reply.sse("anthropic_text.sse"))
    with serving(
        "--model",
        "anthropic:claude-sonnet-4-5",
        ANTHROPIC_API_KEY="sk-ant-test",
        ANTHROPIC_BASE_URL=fake.url,
    ) as url:
        done = agui("run", url, "-m", "hi", "--output", "json")
    assert done.returncode == 0, done.stderr
    assert '"Hello from Claude."' in done.stdout
    headers = fake.requests[0].headers
    # The SDK sends the key as x-api-key (older releases) or as a bearer token.
    assert "sk-ant-test" in (headers.get("x-api-key", ""), headers.get("authorization", "")[7:])


def test_a_provider_failure_is_a_failed_run_for_agui_run(fake: FakeProvider) -> None:
    # The SDK retries twice by default (here after 1 ms, as the provider says): three 429s.
    limited = Reply.error(
        429,
        {"error": {"message": "slow down", "code": "rate_limit_exceeded"}},
        headers={"retry-after-ms": "1"},
    )
    fake.queue(CHAT, limited, limited, limited)
    with serving(
        "--model", "openai:gpt-4o-mini", OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=fake.openai_url
    ) as url:
        done = agui("run", url, "-m", "hi")
    assert done.returncode == 1
    assert "[rate_limited] The model provider is rate limiting requests" in done.stdout
    assert "slow down" not in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "Task exception was never retrieved" not in done.stderr
    assert len(fake.bodies(CHAT)) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "gpt-4o"], "agui serve: model spec 'gpt-4o' is not PROVIDER:MODEL"),
        (["--model", "gemini:pro"], "agui serve: unknown provider 'gemini' in 'gemini:pro'"),
        (
            ["--model", "openai:gpt-4o-mini"],
            "agui serve: no API key for OpenAI: set the OPENAI_API_KEY environment variable",
        ),
        (
            ["--model", "anthropic:claude-sonnet-4-5"],
            "agui serve: no API key for Anthropic: set the ANTHROPIC_API_KEY environment variable",
        ),
        (
            [
                "--model",
                "openai:x",
                "--base-url",
                "http://127.0.0.1:1/v1",
                "--system",
                "@/no/such/file",
            ],
            "agui serve: cannot read the system prompt from /no/such/file",
        ),
    ],
)
def test_set_up_mistakes_are_one_line_and_exit_2(
    args: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    assert main(["serve", *args]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(message)


def test_a_port_out_of_range_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--model", "openai:x", "--port", "99999"])
    assert exited.value.code == 2
    assert "argument --port: 99999 is not a port (0-65535" in capsys.readouterr().err


def test_a_missing_extra_names_it() -> None:
    code = (
        "import sys; sys.modules['openai'] = None\n"
        "from ag_ui.cli import main\n"
        "sys.exit(main(['serve', '--model', 'openai:gpt-4o-mini']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env()
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "agui serve: ag_ui.providers needs the OpenAI SDK for this model: install the openai "
        "extra (pip install 'ag-ui-sdk[openai]')"
    )


def test_threads_keep_the_conversation_and_the_model_gets_the_stored_history(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    store = f"sqlite:///{tmp_path / 'threads.db'}"
    with serving(
        "--model", "openai:llama3.2", "--base-url", fake.openai_url, "--threads", store
    ) as url:

        def run(message_id: str, text: str, run_id: str) -> None:
            body = {
                "threadId": "t1",
                "runId": run_id,
                "messages": [{"id": message_id, "role": "user", "content": text}],
            }
            response = httpx.post(url, json=body, timeout=20)
            assert response.status_code == 200
            assert '"type":"RUN_FINISHED"' in response.text

        run("u1", "first question", "r1")
        run("u2", "second question", "r2")  # only the new message
        listing = httpx.get(f"{url}/threads").json()
    # The model saw the first exchange on the second call: the server sent the stored history.
    second: Any = fake.bodies(CHAT)[1]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert second["messages"][1]["content"] == "Hello from the model."
    assert listing["threads"][0]["title"] == "first question"
    shown = agui("threads", "show", store, "t1")
    assert shown.returncode == 0
    assert "assistant> Hello from the model." in shown.stdout


def test_a_bad_threads_url_is_a_usage_error() -> None:
    done = agui("serve", "--model", "openai:x", "--threads", "mysql://db")
    assert done.returncode == 2
    assert "thread store URL 'mysql://db' is not supported" in done.stderr


def test_threads_on_postgresql(fake: FakeProvider, postgres_server: Any) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    database = postgres_server.database()
    try:
        with serving(
            "--model", "openai:llama3.2", "--base-url", fake.openai_url, "--threads", database
        ) as url:
            body = {
                "threadId": "pg1",
                "runId": "r1",
                "messages": [{"id": "u1", "role": "user", "content": "kept on PostgreSQL"}],
            }
            assert '"RUN_FINISHED"' in httpx.post(url, json=body, timeout=20).text
            listing = httpx.get(f"{url}/threads", timeout=20).json()
        assert [t["title"] for t in listing["threads"]] == ["kept on PostgreSQL"]
        shown = agui("threads", "show", database, "pg1")
        assert shown.returncode == 0, shown.stderr
        assert "assistant> Hello from the model." in shown.stdout
    finally:
        postgres_server.drop(database)


def test_a_database_that_is_not_there_serves_without_threads(fake: FakeProvider) -> None:
    from tests.redis_helpers import free_port

    absent = f"postgresql://postgres@127.0.0.1:{free_port()}/nothing?connect_timeout=2"
    server = subprocess.Popen(
        [
            *AGUI,
            "serve",
            "--model",
            "openai:x",
            "--base-url",
            fake.openai_url,
            "--port",
            "0",
            "--threads",
            absent,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        assert server.stderr is not None
        warning = server.stderr.readline()
        assert warning.startswith("agui serve: conversations will not be kept:")
        assert "did not answer" in warning or "cannot" in warning
    finally:
        server.terminate()
        server.wait(timeout=10)
