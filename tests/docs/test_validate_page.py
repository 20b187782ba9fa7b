"""docs/validate.md's sample output is what ``agui validate`` prints: the command is run as the
page says (``agui demo``'s agent with a run store, served by uvicorn on 127.0.0.1) and its
output compared with the page's console block, line by line. Only what changes from run to run
is masked: the port, the run ids in interrupt ids, and the reconnect's SSE id."""

from __future__ import annotations

import re
import subprocess
import sys

from ag_ui.demo import create_demo_app
from ag_ui.store import InMemoryRunStore
from ag_ui.testing import serve
from tests.docs.blocks import REPO

AGUI = [sys.executable, "-m", "ag_ui"]
PAGE = REPO / "docs" / "validate.md"
COMMAND = '$ agui validate http://127.0.0.1:8000/agent --message "book a table"'
_VARYING = [
    (re.compile(r"http://127\.0\.0\.1:\d+/"), "http://127.0.0.1:8000/"),
    (re.compile(r"run-[0-9a-f]{12}"), "run-<id>"),
    (re.compile(r"'[A-Za-z0-9_-]{24}:(\d+)'"), r"'<sse id>:\1'"),
]


def _masked(text: str) -> list[str]:
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text.rstrip("\n").splitlines()


def _sample() -> str:
    page = PAGE.read_text(encoding="utf-8")
    start = page.index(COMMAND + "\n") + len(COMMAND) + 1
    return page[start : page.index("```", start)]


def test_the_sample_output_is_what_the_command_prints() -> None:
    with serve(create_demo_app(delay=0.03, store=InMemoryRunStore())) as server:
        done = subprocess.run(
            [*AGUI, "validate", server.agent_url(), "--message", "book a table"],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert _masked(done.stdout) == _masked(_sample())
