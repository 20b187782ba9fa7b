"""Fixtures for the resume tests (``redis_server`` comes from tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
