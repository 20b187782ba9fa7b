"""``scripts/demo``: says what it does while it sets up, reinstalls only when the checkout changed,
and shows pip's error when the install fails.

The script runs for real on a copy of what it reads (itself, pyproject.toml, setup.py, the C
sources); the seam is the interpreter it is given (``PYTHON``): a stand-in that creates a venv
whose ``python -m pip`` records its call (and fails on request) and whose ``agui`` echoes its
arguments. Anything else goes to the real interpreter. (The real install is what
``scripts/test`` and CI do on every clean clone.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

FAKE_PYTHON = """#!/usr/bin/env bash
# Stand-in for python3 / .venv/bin/python (see tests/test_demo_script.py).
here=$(cd "$(dirname "$0")" && pwd)
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0
fi
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
  echo "${*:2}" >> "$DEMO_TEST_LOG"
  echo "Collecting pydantic<3,>=2.12"
  echo "Building wheels for collected packages: ag-ui-sdk"
  if [ -n "${DEMO_TEST_PIP_FAILS:-}" ]; then
    echo "ERROR: No matching distribution found for no-such-package>=99"
    exit 1
  fi
  printf '#!/usr/bin/env bash\\necho "agui $*"\\n' > "$here/agui" && chmod +x "$here/agui"
  exit 0
fi
exec "$DEMO_TEST_REAL_PYTHON" "$@"
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    for name in ("scripts/demo", "pyproject.toml", "setup.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, tmp_path / name)
    shutil.copytree(REPO / "src/ag_ui/proto/_c", tmp_path / "src/ag_ui/proto/_c")
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    return tmp_path


def demo(
    checkout: Path, *args: str, pip_fails: bool = False, python: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(
        PYTHON=python or str(checkout / "fake-python"),
        DEMO_TEST_LOG=str(checkout / "pip-calls.log"),
        DEMO_TEST_REAL_PYTHON=sys.executable,
    )
    env.pop("AG_UI_DEMO_REINSTALL", None)
    if pip_fails:
        env["DEMO_TEST_PIP_FAILS"] = "1"
    return subprocess.run(
        ["bash", str(checkout / "scripts" / "demo"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def pip_calls(checkout: Path) -> list[str]:
    log = checkout / "pip-calls.log"
    return log.read_text().splitlines() if log.exists() else []


def test_the_first_run_says_what_it_does_then_runs_the_demo(checkout: Path) -> None:
    done = demo(checkout)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == (
        "scripts/demo: creating .venv (first run; setting up takes about a minute)..."
    )
    assert lines[1].startswith("scripts/demo: installing ag-ui-sdk with all extras into .venv")
    assert "  Collecting pydantic<3,>=2.12" in lines  # pip's steps, as they happen
    assert lines[-1].startswith("scripts/demo: installed in ")
    assert pip_calls(checkout) == [
        "pip install --disable-pip-version-check --progress-bar off -e .[all]"
    ]
    assert done.stdout == "agui demo --once -m What is the weather in Paris?\n"


def test_later_runs_reinstall_only_when_the_checkout_changed(checkout: Path) -> None:
    assert demo(checkout).returncode == 0
    again = demo(checkout, "book a table for two")
    assert (again.returncode, again.stderr) == (0, "")
    assert again.stdout == "agui demo --once -m book a table for two\n"
    assert len(pip_calls(checkout)) == 1
    (checkout / "src/ag_ui/proto/_c/values.c").write_text("/* changed */\n", encoding="utf-8")
    changed = demo(checkout)
    assert "scripts/demo: installing ag-ui-sdk" in changed.stderr
    assert len(pip_calls(checkout)) == 2
    assert demo(checkout).stderr == ""
    with open(checkout / "pyproject.toml", "a", encoding="utf-8") as pyproject:
        pyproject.write("\n# a new dependency, say\n")
    assert "installing" in demo(checkout).stderr
    assert len(pip_calls(checkout)) == 3


def test_a_failed_install_shows_pips_error_and_exits_1(checkout: Path) -> None:
    done = demo(checkout, pip_fails=True)
    assert done.returncode == 1
    assert "ERROR: No matching distribution found for no-such-package>=99" in done.stderr
    assert done.stderr.rstrip().endswith(
        "scripts/demo: pip could not install the package (its error is above; all of its "
        "output is in .venv/demo-install.log)"
    )
    assert done.stdout == ""  # the demo did not start
    assert not (checkout / ".venv" / ".demo-stamp").exists()
    assert demo(checkout).returncode == 0  # the next run tries again


def test_a_python_too_old_is_named(checkout: Path) -> None:
    old = checkout / "old-python"
    old.write_text('#!/usr/bin/env bash\n[ "$1" = --version ] && echo "Python 3.9.18"\nexit 1\n')
    old.chmod(0o755)
    done = demo(checkout, python=str(old))
    assert done.returncode == 1
    assert done.stderr == (
        "scripts/demo: Python 3.9.18 is too old: the SDK needs Python 3.10 or newer "
        "(set PYTHON=...)\n"
    )
