"""The examples the README points at run and say what they claim."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_roundtrip_example() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "examples" / "roundtrip.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert result.stdout.startswith("--- text/event-stream (")
    assert result.stdout.count("data: ") == 8
    assert "decoded 8 events back; assistant said: 'Hello from AG-UI ✓'" in result.stdout
