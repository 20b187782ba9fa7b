"""Fixtures for the provider tests: the fake provider server, per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.providers.fake_provider import FakeProvider


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
