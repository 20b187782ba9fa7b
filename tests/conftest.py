"""Shared test helpers: where the cross-SDK fixtures live."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.frameworks.fixtures import framework_server  # noqa: F401  (a fixture, see there)
from tests.redis_helpers import RedisServer

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


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
