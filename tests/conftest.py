"""Shared test helpers: where the cross-SDK fixtures live, a real Redis, the demo agent."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.frameworks.fixtures import framework_server  # noqa: F401  (a fixture, see there)
from tests.postgres_helpers import PostgresServer
from tests.redis_helpers import RedisServer

# pytester: the test kit's pytest plugin is tested in subprocess pytest runs (tests/testing).
pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"

# ``agui demo`` keeps its threads in the data directory: never the user's home in tests (the
# variable is inherited by every command a test starts). One directory per test process.
os.environ["AGUI_DATA_DIR"] = tempfile.mkdtemp(prefix="agui-data-")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ``shared/`` folder beside the checkout (fixtures, protocol reference)."""
    if not (SHARED / "fixtures").is_dir():
        pytest.fail(f"expected the shared fixtures at {SHARED / 'fixtures'}")
    return SHARED


@pytest.fixture(scope="session")
def official_python() -> Path:
    """Python of the venv holding the official ``ag-ui-protocol`` 1.0.0 (made by scripts/test)."""
    python = REPO / ".venv-official" / "bin" / "python"
    if not python.exists():
        pytest.fail("the official package's venv is missing: run scripts/test once to create it")
    return python


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A real redis-server on 127.0.0.1 for the whole session (stopped at the end)."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL cluster on 127.0.0.1 for the whole session (each xdist worker
    has its own; ``postgres_server.database()`` gives a test its own database)."""
    server = PostgresServer()
    yield server
    server.close()


_DEMO_READY = re.compile(r"AG-UI demo agent on http://(?P<address>127\.0\.0\.1:\d+)/agent")


@pytest.fixture(scope="session")
def demo_agent_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``agui demo --port 0`` in a subprocess for the session; yields the ``host:port`` it
    listens on (the socket is bound before the ready line is printed)."""
    log = tmp_path_factory.mktemp("demo-agent") / "agui-demo.log"
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "ag_ui", "demo", "--port", "0", "--delay", "0"],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 20
        while (ready := _DEMO_READY.search(log.read_text(encoding="utf-8"))) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"agui demo did not start: {log.read_text(encoding='utf-8')!r}")
            time.sleep(0.05)
        yield ready.group("address")
    finally:
        process.terminate()
        process.wait(timeout=10)
