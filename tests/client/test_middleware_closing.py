"""A middleware chain closes every stream it opened when a run ends, innermost last.

An async-generator middleware (the documented pass-through ``async for e in next.run(input):
yield e``) does not close the stream it iterates when it is closed itself. Before the chain
closed them, a failed run left those streams to the garbage collector: they were closed later
in another task, or at interpreter exit while their own ``finally`` still ran ("Task exception
was never retrieved ... aclose(): asynchronous generator is already running").
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from ag_ui.client import HttpAgent
from ag_ui.core import RunError
from ag_ui.demo import create_demo_app
from tests.support.servers import FD, serve, serve_process

pytestmark = pytest.mark.anyio

TRAILERS = ("never retrieved", "already running", "Traceback")


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with serve(create_demo_app()) as url:
        yield f"{url}/agent"


async def pass_through(input: Any, next: Any) -> AsyncIterator[Any]:
    async for event in next.run(input):
        yield event


class Closing:
    """A middleware whose stream logs when (and in which task) it is closed."""

    def __init__(self, name: str, log: list[tuple[str, Any]]) -> None:
        self.name, self.log = name, log

    async def __call__(self, input: Any, next: Any) -> AsyncIterator[Any]:
        try:
            async for event in next.run(input):
                yield event
        finally:
            self.log.append((self.name, asyncio.current_task()))


async def test_a_failed_run_closes_every_inner_stream_in_its_own_task(demo_url: str) -> None:
    log: list[tuple[str, Any]] = []
    agent = HttpAgent(demo_url)
    agent.use(pass_through, Closing("middle", log), pass_through, Closing("inner", log))
    agent.add_message({"id": "u1", "role": "user", "content": "crash"})
    with pytest.raises(RunError):
        await agent.run_agent()
    # Closed before run_agent returned, in the task that ran the run. The response is read to
    # its end after RUN_ERROR (a new run may follow in it), so each ends on its own, innermost
    # first.
    assert [name for name, _ in log] == ["inner", "middle"]
    assert {task for _, task in log} == {asyncio.current_task()}


async def test_a_finished_run_and_an_abandoned_stream_close_them_too(demo_url: str) -> None:
    log: list[tuple[str, Any]] = []
    agent = HttpAgent(demo_url)
    agent.use(pass_through, Closing("inner", log))
    agent.add_message({"id": "u1", "role": "user", "content": "hi"})
    await agent.run_agent()
    assert [name for name, _ in log] == ["inner"]
    log.clear()
    async with agent.stream() as events:
        async for _event in events:
            break  # the caller walks away after the first event
    assert [name for name, _ in log] == ["inner"]


PASS_THROUGH_SCRIPT = """
import asyncio, sys
from ag_ui.client import HttpAgent

async def pass_through(input, next):
    async for event in next.run(input):
        yield event

async def main():
    agent = HttpAgent(sys.argv[1])
    agent.use(pass_through, pass_through)
    agent.add_message({"id": "u1", "role": "user", "content": "crash"})
    try:
        await agent.run_agent()
    except Exception as exc:
        error = exc  # kept (a reference cycle through its traceback) until exit
        print("failed:", type(error).__name__)

asyncio.run(main())
"""


def test_agui_run_and_a_pass_through_script_print_no_trailer_after_the_run_error() -> None:
    # The demo app in a uvicorn process of its own, as `agui demo` serves it.
    command = [sys.executable, "-m", "uvicorn", "ag_ui.demo:create_demo_app", "--factory"]
    command += ["--fd", FD]
    with serve_process(command) as url:
        run = subprocess.run(
            [sys.executable, "-m", "ag_ui", "run", f"{url}/agent", "-m", "crash"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        script = subprocess.run(
            [sys.executable, "-c", PASS_THROUGH_SCRIPT, f"{url}/agent"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 1
    assert "agent_error" in run.stdout + run.stderr
    assert script.stdout.strip() == "failed: RunError", script.stderr
    for done in (run, script):
        assert not any(trailer in done.stderr for trailer in TRAILERS), done.stderr
