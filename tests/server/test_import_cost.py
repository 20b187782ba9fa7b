"""``import ag_ui.server`` leaves out what only some servers use (benchmarks/bench_import.py)."""

from __future__ import annotations

import subprocess
import sys

LAZY = ("sqlite3", "ag_ui.store.thread_sqlite", "ag_ui.apply")


def test_server_import_loads_no_thread_store_or_reducer() -> None:
    code = f"import sys, ag_ui.server; print([m for m in {LAZY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_lazy_names_still_resolve() -> None:
    from ag_ui.store import SqliteThreadStore
    from ag_ui.store.thread_sqlite import SqliteThreadStore as direct

    assert SqliteThreadStore is direct
