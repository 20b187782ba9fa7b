"""The demo agent the documentation's client blocks talk to (one per session, free port)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

READY = re.compile(r"AG-UI demo agent on http://(?P<address>127\.0\.0\.1:\d+)/agent")


@pytest.fixture(scope="session")
def docs_demo_agent_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``agui demo --port 0`` in a subprocess; yields the ``host:port`` it listens on (the
    socket is bound before the ready line is printed)."""
    log = tmp_path_factory.mktemp("demo-agent") / "agui-demo.log"
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "ag_ui", "demo", "--port", "0", "--delay", "0"],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 20
        while (ready := READY.search(log.read_text(encoding="utf-8"))) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"agui demo did not start: {log.read_text(encoding='utf-8')!r}")
            time.sleep(0.05)
        yield ready.group("address")
    finally:
        process.terminate()
        process.wait(timeout=10)
