"""Run the Python code blocks of the documentation as whole programs.

Every fenced block tagged ``python`` (or ``py``, ``pycon``) in README.md and docs/*.md is a test;
new doc files are picked up by the glob, with no change here. The conventions doc authors follow:

- **A block is a whole program**: imports included, no top-level ``await`` (use
  ``anyio.run(main)``), no names defined in another block. It passes when it exits 0 and prints
  no traceback (``Traceback``, ``Task exception was never retrieved``, ``Exception ignored``) on
  stderr: a subscriber's exception that is only logged fails the block too.
- **Client blocks** talk to ``http://127.0.0.1:8000/agent``, what ``agui demo`` serves. The
  harness serves the demo agent once per session on a free port and rewrites the literal
  addresses ``127.0.0.1:8000`` and ``localhost:8000`` in the block to that port before running
  it, so the documented address never needs port 8000 to be free.
- **Server blocks** are found by their code: a block that calls ``uvicorn.run(...)`` serves
  itself (``port=8000`` and the addresses above are rewritten to a free port); a block that
  assigns a module-level ``app`` and does not call ``uvicorn.run`` is served by the harness with
  ``uvicorn block:app``. Either way it runs as a subprocess; the harness waits until it answers a
  ``POST /agent`` run (another path with ``path=``), then stops it. A 200 answer must be a legal,
  finished AG-UI run (read by ``HttpAgent``, strict); 401/403 (an ``authorize`` example) counts
  as an answer; anything else fails the block.
- **Doctest blocks** (the block starts with ``>>>``) are run with ``doctest`` and must print what
  they show.
- **What a block needs** goes in one HTML comment on the line right before its fence (invisible
  on GitHub)::

      <!-- docs-test: uses=recording,redis env=OPENAI_API_KEY=sk-test path=/chat -->

  ``uses=`` names fixtures (comma-separated, applied in order), ``env=NAME=VALUE`` (repeatable)
  sets an environment variable, ``path=`` is the path a server block is checked at. Fixtures live
  in ``tests/docs/fixtures/``: add a module there with a function decorated by
  ``@doc_fixture("name")`` (a generator that sets up, yields, and cleans up; it gets the
  ``BlockRun``: write files into ``run.workdir``, set ``run.env``, ``run.rewrite(old, new)``
  addresses, reach pytest fixtures with ``run.pytest_fixture(name)``). Built in: ``demo-agent``
  (automatic for client blocks), ``recording`` (``run.jsonl``, a recorded demo run) and ``redis``
  (a real redis-server; ``127.0.0.1:6379`` is rewritten to it).

There is no way to skip a block: an unknown key, an unknown fixture, or a directive that is not
right before a Python block fails the test.
"""

from __future__ import annotations

import doctest
import importlib
import io
import os
import pkgutil
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest

from tests.docs.blocks import (
    CLIENT_ADDRESSES,
    Block,
    Directives,
    DocBlockError,
    Kind,
    collect_blocks,
    doc_files,
    extract_blocks,
)

__all__ = [
    "Block",
    "BlockRun",
    "DocBlockError",
    "Directives",
    "collect_blocks",
    "doc_files",
    "doc_fixture",
    "extract_blocks",
    "run_block",
]

_PORT_ARGUMENT = re.compile(r"\bport\s*=\s*8000\b")
_TRACEBACK_MARKS = (
    "Traceback (most recent call last)",
    "Task exception was never retrieved",
    "Exception ignored",
)
PROGRAM_TIMEOUT = 60.0
SERVER_START_TIMEOUT = 20.0


# -- fixtures ------------------------------------------------------------------------------------

FixtureFunction = Callable[["BlockRun"], Iterator[None]]
_FIXTURES: dict[str, Callable[[BlockRun], AbstractContextManager[None]]] = {}
_FIXTURE_PACKAGE = "tests.docs.fixtures"


def doc_fixture(name: str) -> Callable[[FixtureFunction], FixtureFunction]:
    """Register a generator function as the fixture a block names with ``uses=name``."""

    def register(function: FixtureFunction) -> FixtureFunction:
        if name in _FIXTURES:
            raise ValueError(f"docs-test fixture {name!r} is defined twice")
        _FIXTURES[name] = contextmanager(function)
        return function

    return register


def fixtures() -> dict[str, Callable[[BlockRun], AbstractContextManager[None]]]:
    """Every registered fixture (each module of tests/docs/fixtures/ is imported once)."""
    package = importlib.import_module(_FIXTURE_PACKAGE)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{_FIXTURE_PACKAGE}.{module.name}")
    return _FIXTURES


@dataclass
class BlockRun:
    """A block being run: its working directory, environment and address rewrites."""

    block: Block
    workdir: Path
    request: Optional[pytest.FixtureRequest] = None
    env: dict[str, str] = field(default_factory=dict)
    rewrites: dict[str, str] = field(default_factory=dict)

    def rewrite(self, old: str, new: str) -> None:
        """Replace the literal ``old`` by ``new`` in the block's source before it runs."""
        self.rewrites[old] = new

    def pytest_fixture(self, name: str) -> Any:
        """A pytest fixture's value (e.g. the session's ``redis_server``)."""
        if self.request is None:
            raise DocBlockError(f"fixture {name!r} needs a pytest request")
        return self.request.getfixturevalue(name)

    def source(self) -> str:
        text = self.block.source
        for old, new in self.rewrites.items():
            text = text.replace(old, new)
        return text


# -- running -------------------------------------------------------------------------------------


def run_block(block: Block, workdir: Path, request: Optional[pytest.FixtureRequest] = None) -> str:
    """Run ``block`` as documented; raise ``DocBlockError`` when it does not work. Returns
    what it printed (stdout)."""
    run = BlockRun(block, workdir, request)
    known = fixtures()
    names = list(block.directives.uses)
    if block.is_client and "demo-agent" not in names:
        names.insert(0, "demo-agent")
    unknown = [name for name in names if name not in known]
    if unknown:
        raise DocBlockError(
            f"{block.id}: unknown docs-test fixture {', '.join(unknown)} "
            f"(known: {', '.join(sorted(known))}; add one in tests/docs/fixtures/)"
        )
    with ExitStack() as stack:
        for name in names:
            stack.enter_context(known[name](run))
        run.env.update(block.directives.env)
        kind = block.kind
        if kind == "doctest":
            return _run_doctest(run)
        if kind == "program":
            return _run_program(run)
        return _run_server(run, kind)


def _environment(run: BlockRun) -> dict[str, str]:
    env = dict(os.environ)
    env.update(run.env)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _write(run: BlockRun, name: str = "block.py") -> Path:
    path = run.workdir / name
    path.write_text(run.source(), encoding="utf-8")
    return path


def _check_output(run: BlockRun, returncode: Optional[int], stdout: str, stderr: str) -> None:
    problems = []
    if returncode not in (0, None):
        problems.append(f"exit status {returncode}")
    problems.extend(f"{mark!r} on stderr" for mark in _TRACEBACK_MARKS if mark in stderr)
    if problems:
        raise DocBlockError(
            f"{run.block.id} does not run as written ({'; '.join(problems)})\n"
            f"--- block as run:\n{run.source()}--- stdout:\n{stdout}--- stderr:\n{stderr}"
        )


def _run_program(run: BlockRun) -> str:
    path = _write(run)
    try:
        done = subprocess.run(
            [sys.executable, str(path)],
            cwd=run.workdir,
            env=_environment(run),
            capture_output=True,
            text=True,
            timeout=PROGRAM_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        raise DocBlockError(
            f"{run.block.id} did not finish within {PROGRAM_TIMEOUT:.0f} s (a server block must "
            f"call uvicorn.run or define a module-level `app`)\n--- stderr:\n{exc.stderr!r}"
        ) from None
    _check_output(run, done.returncode, done.stdout, done.stderr)
    return done.stdout


def _run_doctest(run: BlockRun) -> str:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(run.source(), {}, run.block.id, str(run.block.path), run.block.line)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    cwd = os.getcwd()
    os.chdir(run.workdir)
    try:
        result = runner.run(test, out=out.write)
    finally:
        os.chdir(cwd)
    if result.failed or not result.attempted:
        raise DocBlockError(f"{run.block.id}: doctest failed\n{out.getvalue()}")
    return out.getvalue()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_server(run: BlockRun, kind: Kind) -> str:
    port = free_port()
    for address in CLIENT_ADDRESSES:
        run.rewrite(address, f"127.0.0.1:{port}")
    path = _write(run)
    if kind == "server":
        source = _PORT_ARGUMENT.sub(f"port={port}", path.read_text(encoding="utf-8"))
        path.write_text(source, encoding="utf-8")
        command = [sys.executable, str(path)]
    else:
        command = [
            *(sys.executable, "-m", "uvicorn", f"{path.stem}:app"),
            *("--app-dir", str(run.workdir), "--host", "127.0.0.1", "--port", str(port)),
            *("--log-level", "warning"),
        ]
    logs = run.workdir / "server.log"
    with open(logs, "w+", encoding="utf-8") as log:
        process = subprocess.Popen(
            command, cwd=run.workdir, env=_environment(run), stdout=log, stderr=subprocess.STDOUT
        )
        try:
            answer = _wait_for_answer(
                run, process, f"http://127.0.0.1:{port}{run.block.directives.path}", logs
            )
        finally:
            _stop(process)
        output = logs.read_text(encoding="utf-8")
    _check_output(run, None, "", output)
    return answer


def _wait_for_answer(run: BlockRun, process: subprocess.Popen[bytes], url: str, logs: Path) -> str:
    import anyio

    from ag_ui.client import HttpAgent
    from ag_ui.core.errors import AGUIError, HTTPStatusError, TransportError

    async def one_run() -> str:
        # Over SSE, then asking for protobuf (with SSE acceptable): a server that negotiates
        # must get both right; one that only speaks SSE answers SSE to both.
        answers = []
        for proto in (False, True):
            agent = HttpAgent(url, idle_timeout=PROGRAM_TIMEOUT, proto=proto)
            agent.add_message({"id": "docs-test", "role": "user", "content": "Hello"})
            result = await agent.run_agent()
            if not result.finished:
                raise DocBlockError(f"{run.block.id}: the run served at {url} did not finish")
            answers.append(f"{len(result.new_messages)} new message(s)")
        return f"{url}: finished ({', '.join(answers)})"

    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise DocBlockError(
                f"{run.block.id}: the server exited ({process.returncode}) before answering\n"
                f"--- block as run:\n{run.source()}--- output:\n{logs.read_text(encoding='utf-8')}"
            )
        try:
            return anyio.run(one_run)
        except HTTPStatusError as exc:
            if exc.status in (401, 403):
                return f"{url}: HTTP {exc.status}"
            raise DocBlockError(
                f"{run.block.id}: {url} answered HTTP {exc.status}: {exc.body!r}\n"
                f"--- output:\n{logs.read_text(encoding='utf-8')}"
            ) from None
        except TransportError:
            if time.monotonic() > deadline:
                raise DocBlockError(
                    f"{run.block.id}: nothing answered at {url} within {SERVER_START_TIMEOUT:.0f} s"
                    f"\n--- output:\n{logs.read_text(encoding='utf-8')}"
                ) from None
            time.sleep(0.1)
        except AGUIError as exc:
            raise DocBlockError(
                f"{run.block.id}: the run served at {url} failed: {type(exc).__name__}: {exc}\n"
                f"--- output:\n{logs.read_text(encoding='utf-8')}"
            ) from None


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)  # uvicorn shuts down gracefully on SIGTERM
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
