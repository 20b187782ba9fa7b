"""A run cut by the server's shutdown is saved ``cancelled`` (docs/threads.md, "Faults"): a real
uvicorn process with a graceful timeout shorter than the run, sent SIGTERM mid-run, with no run
store. uvicorn cancels the request past its timeout, then runs the app's lifespan shutdown; the
endpoint's lifespan waits for the cut run to save its thread before the process ends."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import anyio
import httpx

from ag_ui.store import SqliteThreadStore
from ag_ui.store._thread_base import INCOMPLETE_KEY
from tests.support.servers import listening_socket

REPO = Path(__file__).resolve().parents[2]


def test_sigterm_mid_run_saves_the_run_cancelled(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    sock = listening_socket()
    port = sock.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "tests.server.shutdown_thread_app",
        str(db),
        str(sock.fileno()),
    ]
    process = subprocess.Popen(command, cwd=REPO, pass_fds=[sock.fileno()])
    sock.close()
    try:
        body = {
            "threadId": "first",
            "runId": "r1",
            "messages": [{"id": "u1", "role": "user", "content": "My first question"}],
        }
        with (
            httpx.Client(timeout=30) as client,
            client.stream("POST", f"http://127.0.0.1:{port}/agent", json=body) as response,
        ):
            try:
                for line in response.iter_lines():
                    if "TEXT_MESSAGE_CONTENT" in line:
                        process.send_signal(signal.SIGTERM)  # the client stays connected
            except httpx.HTTPError:
                pass  # the server closes the connection when it cancels the run
        process.wait(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    async def load() -> None:
        thread = await SqliteThreadStore(db).load("first", owner=None)
        assert [run.outcome for run in thread.runs] == ["cancelled"]
        question, reply = thread.messages
        assert question.content == "My first question"
        assert reply.content == "Half a "
        assert reply.metadata == {INCOMPLETE_KEY: {"incomplete": "cancelled"}}

    anyio.run(load)
