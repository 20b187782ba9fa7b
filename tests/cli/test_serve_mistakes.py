"""``agui serve`` given what a new user gets wrong: a base URL that is not one, a timeout that
is not a number of seconds, a base URL without ``/v1``, a provider that is not there. Each is
one clear line (at start, exit status 2), or a run error naming the fix with the server log
saying which URL failed and why; never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ag_ui.cli import main
from tests.cli.test_serve import agui, fake, serving
from tests.providers.fake_provider import FakeProvider

__all__ = ["fake"]  # the fixture, shared with test_serve.py

FIX = "an http:// or https:// URL with a host, e.g. http://127.0.0.1:11434/v1 for Ollama"


@pytest.fixture
def no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    return monkeypatch


@pytest.mark.parametrize(
    ("model", "base_url", "expected"),
    [
        ("openai:llama3.2", "localhost:11434/v1", f"is not {FIX}"),
        ("openai:llama3.2", "ftp://127.0.0.1/v1", f"is not {FIX}"),
        ("openai:llama3.2", "http://[::1/v1", f"is not a URL (Invalid IPv6 URL); give {FIX}"),
        (
            "openai-responses:m",
            "http://127.0.0.1:99999/v1",
            f"is not a URL (Port out of range 0-65535); give {FIX}",
        ),
        ("anthropic:claude", "http://127.0.0.1:8080 /v1", f"has a space in it; give {FIX}"),
    ],
)
def test_a_base_url_that_is_not_one_is_refused_at_start(
    no_provider_environment: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    model: str,
    base_url: str,
    expected: str,
) -> None:
    assert main(["serve", "--model", model, "--base-url", base_url, "--no-threads"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [f"agui serve: the base URL {base_url!r} {expected}"]


@pytest.mark.parametrize("variable", ["OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"])
def test_a_base_url_variable_that_is_not_one_is_named(
    no_provider_environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str
) -> None:
    no_provider_environment.setenv(variable, "127.0.0.1:11434")
    model = "anthropic:claude" if variable.startswith("ANTHROPIC") else "openai:llama3.2"
    assert main(["serve", "--model", model, "--no-threads"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"agui serve: {variable} '127.0.0.1:11434' is not {FIX}"
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--timeout", "nan"], "argument --timeout: nan must be a finite number more than 0"),
        (["--timeout", "inf"], "argument --timeout: inf must be a finite number more than 0"),
        (["--max-rounds", "1e3"], "argument --max-rounds: '1e3' is not a whole number"),
    ],
)
def test_numbers_that_are_not_usable_are_refused_at_parse_time(
    args: list[str], expected: str
) -> None:
    done = agui("serve", "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1", *args)
    assert done.returncode == 2
    assert done.stderr.strip() == f"agui serve: {expected} (see 'agui serve --help')"


def test_a_base_url_without_v1_says_to_check_the_url_not_the_model(fake: FakeProvider) -> None:
    log: list[str] = []
    # The API is at /v1/chat/completions; the request goes to /chat/completions: a 404.
    with serving(
        "--model", "openai:llama3.2", "--base-url", fake.url, "--no-threads", log=log
    ) as url:
        done = agui("run", url, "-m", "hi")
    assert done.returncode == 1
    assert (
        "[provider_url_not_found] The model provider has no such API at the configured URL "
        "(HTTP 404); check the base URL." in done.stdout
    )
    assert "model_not_found" not in done.stdout
    assert "Traceback" not in done.stdout + done.stderr + log[0]


def test_a_provider_that_is_not_there_is_named_in_the_server_log() -> None:
    log: list[str] = []
    with serving(
        "--model", "openai:llama3.2", "--base-url", "http://127.0.0.1:9/v1", "--no-threads", log=log
    ) as url:
        done = agui("run", url, "-m", "hi")
    assert done.returncode == 1
    assert "[provider_unreachable] The model provider could not be reached." in done.stdout
    # The operator's side: which URL, and the connection's own error (the SDK says only
    # "Connection error."), each retry and then the failure, one line each.
    failures = [line for line in log[0].splitlines() if "model provider openai at" in line]
    assert len(failures) == 3, log[0]
    for line in failures:
        assert (
            "openai at http://127.0.0.1:9/v1/ failed: APIConnectionError: Connection error. ("
            in line
        )
        assert "ConnectError" in line
    assert "retry 1 of 2" in failures[0]
    assert "retry 2 of 2" in failures[1]
    assert "Traceback" not in log[0]


def test_a_system_prompt_file_that_is_not_utf8_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_bytes(b"Be brief.\n\xff")
    args = ["--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1", "--no-threads"]
    assert main(["serve", *args, "--system", f"@{prompt}"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"agui serve: cannot read the system prompt from {prompt}: it is not UTF-8 text "
        "(byte 0xff at offset 10); save it as UTF-8"
    )
