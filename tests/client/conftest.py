"""Fixtures for the client tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.client.client_helpers import LiveServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def live_server() -> Iterator[LiveServer]:
    """A real uvicorn on 127.0.0.1 (free port) for timing and disconnect behaviour."""
    server = LiveServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
