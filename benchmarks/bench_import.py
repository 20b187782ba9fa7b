"""Import time of ``ag_ui.core``, ``ag_ui.client`` and ``ag_ui.server`` against the official
``ag-ui-protocol`` 1.0.0's ``ag_ui.core``.

Run: ``.venv/bin/python benchmarks/bench_import.py [--runs 20]`` (after ``scripts/test`` made
.venv-official). Each run is a fresh interpreter timing ``import ag_ui.core`` (pydantic
included) with ``time.perf_counter``; ours and the official one alternate, so a change in the
machine's load hits both. Interpreter start-up is left out: it is the same for both and would
only dilute the ratio.

Both packages are measured with their bytecode cached, as an installed package is: the official
one was compiled by pip, and this checkout is compiled here first (``__pycache__`` is ignored
by git). Without that, a checkout run under ``PYTHONDONTWRITEBYTECODE=1`` would recompile every
module of ours on each start and measure the compiler, not the import.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OFFICIAL_PYTHON = REPO / ".venv-official" / "bin" / "python"
_TIMED_IMPORT = (
    "import time\nstart = time.perf_counter()\n{statement}\nprint(time.perf_counter() - start)\n"
)
# Targets (issue 27): the server in absolute time, core and client against the official core.
SERVER_TARGET_MS = 150.0
RATIO_TARGET = 1.5


def _import_seconds(python: str, env: dict[str, str], module: str = "ag_ui.core") -> float:
    statement = module if " " in module else f"import {module}"
    out = subprocess.run(
        [python, "-c", _TIMED_IMPORT.format(statement=statement)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return float(out.stdout)


def _compile_ours() -> None:
    import ag_ui

    for path in ag_ui.__path__:
        compileall.compile_dir(path, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="fresh interpreters per package")
    runs = parser.parse_args().runs
    if not OFFICIAL_PYTHON.exists():
        sys.exit("run scripts/test first: it creates .venv-official with ag-ui-protocol 1.0.0")
    _compile_ours()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cases = {
        "ours": (sys.executable, "ag_ui.core"),
        "official": (str(OFFICIAL_PYTHON), "ag_ui.core"),
        "ours client": (sys.executable, "ag_ui.client"),
        "ours server": (sys.executable, "ag_ui.server"),
        # What a server program pays: the package's names are imported on first use (PEP 562),
        # so the endpoint's Starlette, anyio and store modules come with create_app.
        "ours create_app": (sys.executable, "from ag_ui.server import create_app"),
    }
    for python, module in cases.values():  # warm the OS file cache and any missing bytecode
        _import_seconds(python, env, module)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, (python, module) in cases.items():
            times[name].append(_import_seconds(python, env, module))

    print(f"{runs} fresh interpreters each, alternating")
    print(f"{'':<16}{'best':>10}{'median':>10}{'median / official core':>26}")
    official = statistics.median(times["official"])
    for name, samples in times.items():
        best, median = min(samples) * 1e3, statistics.median(samples) * 1e3
        print(f"{name:<16}{best:>8.1f}ms{median:>8.1f}ms{median / 1e3 / official:>25.2f}x")
    ours, official_times = times["ours"], times["official"]
    print(
        f"ours / official (ag_ui.core): best {min(ours) / min(official_times):.2f}, "
        f"median {statistics.median(ours) / official:.2f}"
    )
    server = statistics.median(times["ours server"]) * 1e3
    client = statistics.median(times["ours client"]) / official
    print(
        f"targets: ag_ui.server {server:.0f} ms (<= {SERVER_TARGET_MS:.0f}: "
        f"{'met' if server <= SERVER_TARGET_MS else 'not met'}); ag_ui.client {client:.2f}x "
        f"(<= {RATIO_TARGET}x: {'met' if client <= RATIO_TARGET else 'not met'})"
    )


if __name__ == "__main__":
    main()
