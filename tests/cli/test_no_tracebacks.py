"""No ``agui`` invocation prints a traceback for a user mistake or a remote failure.

The first tests are generic: they walk every registered subcommand (new ones are covered without
a change here) and feed it bad input derived from its own parser: an unknown option, each typed
option with a value its own type rejects, missing required arguments, and a missing file (or
unreachable URL) for its positionals. The others are the cases the first users met.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from ag_ui import cli
from ag_ui.cli import build_parser, subcommands
from tests.support.servers import serve

AGUI = [sys.executable, "-m", "ag_ui"]
TRACEBACK_MARKS = (
    "Traceback (most recent call last)",
    "Task exception was never retrieved",
    "Exception ignored",
    "Error:\n",
)
MISSING = "/nonexistent/agui-test-input"
# Values tried on each typed option; the first its own type rejects is used.
BAD_VALUES = ("garbage", "-1", "0", "99999", "nan", "{")
COMMANDS = subcommands(build_parser())


def agui(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AGUI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def assert_clean(done: subprocess.CompletedProcess[str], status: tuple[int, ...]) -> str:
    """No traceback anywhere, the expected status, exactly one line on stderr; returns it."""
    for mark in TRACEBACK_MARKS:
        assert mark not in done.stderr, done.stderr
        assert mark not in done.stdout, done.stdout
    assert done.returncode in status, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def _rejected_value(action: argparse.Action) -> str | None:
    for value in BAD_VALUES:
        if action.choices is not None:
            if value not in action.choices:
                return value
            continue
        try:
            action.type(value)  # type: ignore[misc]
        except (argparse.ArgumentTypeError, TypeError, ValueError):
            return value
    return None


def _bad_invocations() -> Iterator[tuple[str, list[str], tuple[int, ...]]]:
    for name, parser in COMMANDS.items():
        yield f"{name} --no-such-option", [name, "--no-such-option"], (2,)
        positionals = [a for a in parser._actions if not a.option_strings]
        required = [a for a in parser._actions if a.option_strings and a.required]
        filled: list[str] = []
        for action in required:
            filled += [action.option_strings[0], str(next(iter(action.choices or ["x"])))]
        if any(a.nargs not in ("?", "*") for a in positionals) or required:
            yield f"{name} (nothing)", [name], (2,)
        if positionals:
            # A missing file (or, for a URL, one nothing answers): usage error or failed run.
            yield f"{name} {MISSING}", [name, *filled, *[MISSING] * len(positionals)], (1, 2)
        for action in parser._actions:
            typed = action.type is not None and action.type is not str
            if not action.option_strings or not (typed or action.choices) or action.required:
                continue
            value = _rejected_value(action)
            if value is None:
                continue
            option = action.option_strings[-1]
            # Options before positionals: argparse stops at the first bad value, this one.
            args = [name, *filled, option, value, *[MISSING] * len(positionals)]
            yield f"{name} {option} {value}", args, (2,)


BAD = list(_bad_invocations())


def test_every_registered_subcommand_is_covered() -> None:
    assert {"encode", "verify", "convert", "demo", "run"} <= set(COMMANDS)
    covered = {case[1][0] for case in BAD}
    assert covered == set(COMMANDS)
    assert len(BAD) >= 15


@pytest.mark.parametrize(("args", "status"), [case[1:] for case in BAD], ids=[c[0] for c in BAD])
def test_bad_input_gets_one_line_and_no_traceback(args: list[str], status: tuple[int, ...]) -> None:
    line = assert_clean(agui(*args), status)
    assert line.startswith(("agui", "---")), line


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["encode", "nope.jsonl"], "agui encode: argument file: nope.jsonl does not exist"),
        (["demo", "--port", "99999"], "agui demo: argument --port: 99999 is not a port number"),
        (["demo", "--delay", "-1"], "agui demo: argument --delay: must be 0 seconds or more"),
        (["run", "http://127.0.0.1:9/a", "--idle-timeout", "0"], "must be more than 0 seconds"),
        (
            ["record", "http://127.0.0.1:9/a", "-m", "hi", "-o", "r.jsonl", "--idle-timeout", "-1"],
            "argument --idle-timeout: must be more than 0 seconds",
        ),
        (["run", "http://127.0.0.1:9/a", "--state", "{"], "argument --state: not valid JSON"),
        (["verify", "--state", "@/nope.json", "x.jsonl"], "cannot read /nope.json"),
    ],
)
def test_bad_values_are_refused_at_parse_time(args: list[str], expected: str) -> None:
    line = assert_clean(agui(*args), (2,))
    assert expected in line
    assert line.endswith(f"(see 'agui {args[0]} --help')")


def test_convert_output_paths_are_checked_before_anything_is_read(tmp_path: Path) -> None:
    source = tmp_path / "run.jsonl"
    source.write_text('{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n')
    line = assert_clean(agui("convert", str(source), "--to", "sse", "-o", "/missing/d/x.sse"), (2,))
    assert "the directory /missing/d does not exist; create it" in line
    line = assert_clean(agui("convert", str(source), "--to", "sse", "-o", str(tmp_path)), (2,))
    assert "is a directory; give a file name inside it" in line


def test_unreadable_input_is_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "bad.jsonl"
    binary.write_bytes(b'{"type": "RUN_STARTED", "threadId": "\xff"}\n')
    line = assert_clean(agui("encode", str(binary)), (1,))
    assert line.startswith("agui encode: the input is not UTF-8 text")


def _big_recording(tmp_path: Path) -> Path:
    lines = ['{"type":"RUN_STARTED","threadId":"t","runId":"r"}']
    for n in range(20_000):
        lines.append(json.dumps({"type": "CUSTOM", "name": "n", "value": n}))
    lines.append('{"type":"RUN_FINISHED","threadId":"t","runId":"r"}')
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _head(args: list[str]) -> tuple[int, str]:
    """Run ``agui ARGS | head -1``: read one line, close the pipe, return (status, stderr)."""
    process = subprocess.Popen(
        [*AGUI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    assert process.stdout is not None
    assert process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    return process.wait(timeout=60), stderr


@pytest.mark.parametrize(
    "command",
    [["convert", "{}", "--to", "sse"], ["encode", "{}"], ["verify", "{}", "--output", "text"]],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(
    command: list[str], tmp_path: Path
) -> None:
    big = str(_big_recording(tmp_path))
    if command[0] == "verify":  # verify prints little: give it many messages to list
        lines = ['{"type":"RUN_STARTED","threadId":"t","runId":"r"}']
        for n in range(5_000):
            lines.append(
                json.dumps({"type": "TEXT_MESSAGE_CHUNK", "messageId": f"m{n}", "delta": "x"})
            )
        lines.append('{"type":"RUN_FINISHED","threadId":"t","runId":"r"}')
        (tmp_path / "big.jsonl").write_text("\n".join(lines) + "\n")
    status, stderr = _head([big if arg == "{}" else arg for arg in command])
    assert (status, stderr) == (141, "")


@pytest.fixture
def paced_demo() -> Iterator[str]:
    """A demo agent that streams slowly (0.05 s a piece): its output outlasts a closed pipe."""
    process = subprocess.Popen(
        [*AGUI, "demo", "--port", "0", "--delay", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready = process.stdout.readline()
        yield ready.split(" on ", 1)[1].split(" ", 1)[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("output", ["text", "events"])
def test_agui_run_into_head_ends_quietly(paced_demo: str, output: str) -> None:
    status, stderr = _head(
        ["run", paced_demo, "-m", "What's the weather in Paris?", "--output", output]
    )
    assert (status, stderr) == (141, "")


def test_a_run_error_is_one_line_with_nothing_after_it(demo_agent_address: str) -> None:
    # No "Task exception was never retrieved" from a stream left open in the middleware chain.
    url = f"http://{demo_agent_address}/agent"
    done = agui("run", url, "-m", "crash")
    line = assert_clean(done, (1,))
    assert line.startswith("--- failed after 3 event(s): RunError: [agent_error] ")
    assert "run error: [agent_error]" in done.stdout
    done = agui("run", url, "-m", "crash", "--output", "json")
    assert assert_clean(done, (1,)).startswith("agui run: RunError: [agent_error]")
    assert json.loads(done.stdout)["ok"] is False


def test_http_error_bodies_are_printed_as_json() -> None:
    async def refuse(request: object) -> JSONResponse:
        body = {"error": {"code": "forbidden", "message": "no entry", "retry": False, "x": None}}
        return JSONResponse(body, status_code=403)

    with serve(Starlette(routes=[Route("/agent", refuse, methods=["POST"])])) as base:
        line = assert_clean(agui("run", f"{base}/agent", "-m", "hi"), (1,))
    assert "403 from http://127.0.0.1:" in line
    assert (
        '/agent: {"error": {"code": "forbidden", "message": "no entry", "retry": false, '
        '"x": null}}' in line
    )
    assert "(the agent wants credentials: --header 'Authorization: Bearer ...')" in line


def test_connection_refused_names_the_fix() -> None:
    line = assert_clean(agui("run", "http://127.0.0.1:9/agent", "-m", "hi"), (1,))
    assert line.endswith(
        "(is an agent running at http://127.0.0.1:9/agent? `agui demo` starts one)"
    )


def _with_handler(monkeypatch: pytest.MonkeyPatch, handler: object) -> None:
    """Make ``agui encode`` run ``handler`` (to reach the guard in ``main`` directly)."""
    parser = cli.build_parser()
    subcommands(parser)["encode"].set_defaults(func=handler)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)


def test_an_unexpected_exception_is_one_line_unless_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise RuntimeError("boom")

    _with_handler(monkeypatch, broken)
    assert cli.main(["encode"]) == 1
    assert capsys.readouterr().err == (
        "agui encode: unexpected RuntimeError: boom (a bug in agui: please report it; "
        "AGUI_TRACEBACK=1 shows where it happened)\n"
    )
    monkeypatch.setenv("AGUI_TRACEBACK", "1")
    assert cli.main(["encode"]) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_missing_extras_and_python_warnings_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def needs_redis(args: argparse.Namespace) -> int:
        warnings.warn("first line\n  second line", UserWarning, stacklevel=1)
        raise ModuleNotFoundError("No module named 'redis'", name="redis")

    _with_handler(monkeypatch, needs_redis)
    assert cli.main(["encode"]) == 1
    assert capsys.readouterr().err == (
        "agui encode: warning: first line second line\n"
        "agui encode: this command needs redis, which is not installed: "
        "pip install 'ag-ui-sdk[redis]'\n"
    )
