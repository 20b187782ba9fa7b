"""The package installed without a C compiler: the protobuf suite passes on the pure-Python
paths alone (``AG_UI_PURE_PYTHON=1`` makes ``ag_ui.proto`` ignore the compiled module).

The two modules that test the compiled paths directly (and both implementations side by side)
are left out; everything else in tests/proto, Node interop included, runs in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMPILED_ONLY = ("test_fast_paths.py", "test_compiled_values.py", Path(__file__).name)


def test_the_protobuf_suite_passes_on_the_python_paths() -> None:
    env = {**os.environ, "AG_UI_PURE_PYTHON": "1"}
    ignored = [f"--ignore={HERE / name}" for name in COMPILED_ONLY]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE), *ignored],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


def test_the_subprocess_really_runs_without_the_compiled_module() -> None:
    code = (
        "from ag_ui.proto import _accelerator, _fast, _values;"
        "print(_accelerator.speedups, _fast.IMPLEMENTATION, _values.speedups)"
    )
    env = {**os.environ, "AG_UI_PURE_PYTHON": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["None", "python", "None"]
