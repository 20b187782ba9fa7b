"""Every Python block of docs/providers.md and of the README's "Serve your model" section runs
as written, against the fake provider.

The blocks are whole programs that serve a model on 127.0.0.1:8000 with a real API key. Here
the key and base URL come from the environment the SDKs read (``OPENAI_API_KEY``,
``OPENAI_BASE_URL``, ``ANTHROPIC_*``), pointing at the fake provider, and ``uvicorn.run`` is
given a free port instead of 8000 (the one seam: nothing else of the block changes). Each
served agent must answer a run from our client with the fake model's text.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.providers.fake_provider import CHAT, MESSAGES, RESPONSES, FakeProvider, Reply
from tests.providers.runs import client, run_once

REPO = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)

RUNNER = """\
import os, runpy, sys
import uvicorn

port = int(os.environ["DOCS_TEST_PORT"])
serve = uvicorn.run


def run(app, **options):
    serve(app, **{**options, "host": "127.0.0.1", "port": port, "log_level": "warning"})


uvicorn.run = run
runpy.run_path(sys.argv[1], run_name="__main__")
"""


def _blocks() -> list[tuple[str, str]]:
    blocks = []
    docs = (REPO / "docs" / "providers.md").read_text(encoding="utf-8")
    for index, code in enumerate(BLOCK.findall(docs)):
        blocks.append((f"docs/providers.md block {index + 1}", code))
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Serve your model", 1)[1].split("\n### ", 1)[0]
    for index, code in enumerate(BLOCK.findall(section)):
        blocks.append((f"README Serve your model block {index + 1}", code))
    return blocks


BLOCKS = _blocks()


def test_the_docs_have_the_blocks_this_test_runs() -> None:
    assert len(BLOCKS) >= 5


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the block exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the block did not start serving")


@pytest.mark.anyio
@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[where for where, _ in BLOCKS])
async def test_block_serves_a_model_that_answers(
    where: str, code: str, fake: FakeProvider, tmp_path: Path
) -> None:
    anthropic = "Anthropic" in code
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    fake.queue(RESPONSES, Reply.sse("openai_responses_text.sse"))
    fake.queue(MESSAGES, Reply.sse("anthropic_text.sse"))
    program = tmp_path / "block.py"
    program.write_text(code, encoding="utf-8")
    port = _free_port()
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))},
        "OPENAI_API_KEY": "sk-docs-test",
        "OPENAI_BASE_URL": fake.openai_url,
        "ANTHROPIC_API_KEY": "sk-ant-docs-test",
        "ANTHROPIC_BASE_URL": fake.url,
        "DOCS_TEST_PORT": str(port),
    }
    process = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(program)],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(port, process)
        run = await run_once(client(f"http://127.0.0.1:{port}/agent"))
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert run.error is None, (where, stderr)
    expected = "Hello from Claude." if anthropic else "Hello from the model."
    assert run.messages[-1]["content"] == expected, where
