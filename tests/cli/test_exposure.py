"""What ``agui demo`` and ``agui serve`` expose by where they listen (issue 37): conversations
are kept on a loopback ``--host`` only, unless ``--public-threads`` (warned); ``--allow-host``
entries are checked before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ag_ui.cli import build_parser
from ag_ui.cli._exposure import is_loopback_bind, threads_to_keep


@pytest.mark.parametrize("command", ["demo", "serve"])
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_a_loopback_bind_keeps_threads_quietly(
    command: str, host: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("AGUI_DATA_DIR", str(tmp_path))
    args = build_parser().parse_args([command, "--host", host, *MODEL[command]])
    assert is_loopback_bind(host)
    assert threads_to_keep(args, command) == "sqlite:///" + str(tmp_path / "threads.db")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", ["demo", "serve"])
@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "agent.example.com"])
def test_another_bind_keeps_none_unless_public_threads_and_then_warns(
    command: str, host: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("AGUI_DATA_DIR", str(tmp_path))
    parser = build_parser()
    args = parser.parse_args([command, "--host", host, *MODEL[command]])
    assert threads_to_keep(args, command) is None
    said = capsys.readouterr().err
    assert f"agui {command}: conversations are not kept on --host {host}" in said
    assert "--public-threads" in said
    explicit = parser.parse_args([command, "--host", host, "--threads", "memory:", *MODEL[command]])
    assert threads_to_keep(explicit, command) is None
    assert "(--threads is ignored)" in capsys.readouterr().err
    public = parser.parse_args([command, "--host", host, "--public-threads", *MODEL[command]])
    assert threads_to_keep(public, command) == "sqlite:///" + str(tmp_path / "threads.db")
    warning = capsys.readouterr().err
    assert f"agui {command}: warning: --public-threads on --host {host}" in warning
    assert "listed, read and deleted by anyone who reaches this server" in warning


@pytest.mark.parametrize("command", ["demo", "serve"])
@pytest.mark.parametrize(
    ("entry", "problem"),
    [("http://app.example.com/path", "is not an origin"), ("a/b", "is not a host name")],
)
def test_a_bad_allow_host_is_one_line_before_anything_serves(
    command: str, entry: str, problem: str
) -> None:
    options = {"demo": ["--no-chat"], "serve": [*MODEL["serve"], "--base-url", UNUSED]}
    options[command] += ["--port", "0", "--allow-host", entry]
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", command, *options[command]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert done.stderr.startswith(f"agui {command}: --allow-host: allowed_hosts: ")
    assert problem in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


UNUSED = "http://127.0.0.1:9/v1"  # a provider never called: the command stops before serving
MODEL = {"demo": [], "serve": ["--model", "openai:m"]}
