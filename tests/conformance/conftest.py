"""Fixtures for the conformance lane: one uvicorn on 127.0.0.1 serves every corpus stream."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conformance.corpus import CorpusServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def corpus_server() -> Iterator[CorpusServer]:
    """One real server for all streams (a server per stream would dominate the lane's time)."""
    server = CorpusServer()
    with server.running():
        yield server
