"""Plain AG-UI clients read a detached run as an ordinary stream: the real TypeScript client
(``@ag-ui/client@1.0.0``, which ignores SSE ids and unknown headers) ends with the same
messages and state as our client."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from ag_ui.client import HttpAgent
from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore
from tests.support.servers import serve

from .resume_helpers import make_story_agent, wire

INTEROP = Path(__file__).resolve().parent.parent / "interop"


def test_the_typescript_client_reads_a_detached_run() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the TypeScript peer tests")
    app = create_app(make_story_agent(delay=0.001), store=InMemoryRunStore())
    with serve(app) as url:
        done = subprocess.run(
            [node, str(INTEROP / "ts_client_run.mjs"), f"{url}/agent"],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=INTEROP,
        )
        ours = HttpAgent(f"{url}/agent", thread_id="thread-1")
        anyio.run(lambda: ours.run_agent(run_id="run-1"))
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)
    assert (theirs["error"], theirs["runError"]) == (None, None)
    assert theirs["messages"] == wire(ours.messages)
    assert theirs["state"] == ours.state == {"count": 3, "log": ["turn 0", "turn 1", "turn 2"]}
