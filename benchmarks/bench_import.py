"""Import time of ``ag_ui.core``: this package vs the official ``ag-ui-protocol`` 1.0.0.

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
    "import time\nstart = time.perf_counter()\nimport ag_ui.core\n"
    "print(time.perf_counter() - start)\n"
)


def _import_seconds(python: str, env: dict[str, str]) -> float:
    out = subprocess.run(
        [python, "-c", _TIMED_IMPORT], capture_output=True, text=True, env=env, check=True
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
    pythons = {"ours": sys.executable, "official": str(OFFICIAL_PYTHON)}
    for python in pythons.values():  # warm the OS file cache and any missing bytecode
        _import_seconds(python, env)
    times: dict[str, list[float]] = {name: [] for name in pythons}
    for _ in range(runs):
        for name, python in pythons.items():
            times[name].append(_import_seconds(python, env))

    print(f"import ag_ui.core, {runs} fresh interpreters each, alternating")
    print(f"{'':<10}{'best':>10}{'median':>10}")
    for name, samples in times.items():
        best, median = min(samples) * 1e3, statistics.median(samples) * 1e3
        print(f"{name:<10}{best:>8.1f}ms{median:>8.1f}ms")
    ours, official = times["ours"], times["official"]
    print(
        f"ours / official: best {min(ours) / min(official):.2f}, "
        f"median {statistics.median(ours) / statistics.median(official):.2f}"
    )


if __name__ == "__main__":
    main()
