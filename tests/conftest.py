"""Shared test helpers: where the cross-SDK fixtures live."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ``shared/`` folder beside the checkout (fixtures, protocol reference)."""
    if not (SHARED / "fixtures").is_dir():
        pytest.fail(f"expected the shared fixtures at {SHARED / 'fixtures'}")
    return SHARED
