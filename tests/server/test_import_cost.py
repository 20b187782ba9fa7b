"""``import ag_ui.server`` leaves out what only some servers use (benchmarks/bench_import.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ag_ui.server

# Imported on first use of a name that needs them: the thread stores and the reducer (a
# server that keeps no thread), and Starlette's request/routing/app modules, anyio, asyncio,
# the verifier and the run stores (a process that only names an error or a code).
LAZY = (
    "sqlite3",
    "ag_ui.store.thread_sqlite",
    "ag_ui.apply",
    "ag_ui.store",
    "ag_ui.verify",
    "ag_ui.server.endpoint",
    "starlette.requests",
    "starlette.routing",
    "starlette.applications",
    "anyio",
    "asyncio",
)


def test_server_import_loads_none_of_the_lazy_modules() -> None:
    code = f"import sys, ag_ui.server; print([m for m in {LAZY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_create_app_still_loads_no_thread_store_or_reducer() -> None:
    lazy = ("sqlite3", "ag_ui.store.thread_sqlite", "ag_ui.apply")
    code = (
        "import sys\nfrom ag_ui.server import create_app, RunContext\n"
        f"print([m for m in {lazy!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_lazy_names_still_resolve() -> None:
    from ag_ui.server.endpoint import create_app
    from ag_ui.store import SqliteThreadStore
    from ag_ui.store.thread_sqlite import SqliteThreadStore as direct

    assert SqliteThreadStore is direct
    assert ag_ui.server.create_app is create_app
    assert set(ag_ui.server.__all__) <= set(dir(ag_ui.server))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = ag_ui.server.nope  # type: ignore[attr-defined]
