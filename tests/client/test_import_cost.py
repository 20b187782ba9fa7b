"""``import ag_ui.client`` leaves httpx for the first run (benchmarks/bench_import.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

LAZY = ("httpx", "ag_ui.client._transport", "ag_ui.client._streaming_transport")


def test_client_import_loads_no_httpx() -> None:
    code = f"import sys, ag_ui.client; print([m for m in {LAZY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_new_http_client_still_resolves() -> None:
    import ag_ui.client
    from ag_ui.client._transport import new_http_client

    assert ag_ui.client.new_http_client is new_http_client
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = ag_ui.client.nope  # type: ignore[attr-defined]
