"""``agui doctor``: is the compiled SSE/JSON writer (``_json_speedups``) used, and if not, why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import ag_ui
from ag_ui.cli import doctor


def _doctor_json(**env: str) -> dict[str, Any]:
    """``agui doctor --output json`` in a fresh interpreter (the switch is read on import)."""
    environment = {k: v for k, v in os.environ.items() if k != "AG_UI_PURE_PYTHON"} | env
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "doctor", "--output", "json"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _built() -> bool:
    return any((Path(ag_ui.__file__).parent / "core").glob("_json_speedups*"))


def test_reports_the_json_speedups_loaded() -> None:
    assert _built(), "this test needs the compiled _json_speedups (AG_UI_REQUIRE_SPEEDUPS=1)"
    speedups = _doctor_json()["json_speedups"]
    assert speedups["status"] == "built"
    assert speedups["detail"].startswith("_json_speedups")
    assert speedups["detail"].endswith("; loaded")


def test_says_the_pure_python_switch_turned_them_off() -> None:
    speedups = _doctor_json(AG_UI_PURE_PYTHON="1")["json_speedups"]
    assert speedups["status"] == "built"
    assert speedups["detail"].endswith("; not used (AG_UI_PURE_PYTHON=1)")


def test_the_text_report_has_a_line_for_them() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "doctor"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("JSON speedups: ")]
    assert lines == [f"JSON speedups: built ({_doctor_json()['json_speedups']['detail']})"]


def test_says_when_the_build_lacked_them(tmp_path: Path) -> None:
    # A package directory whose core/ has no compiled module: what an install without a C
    # compiler leaves.
    (tmp_path / "core").mkdir()
    status, detail = doctor._json_speedups(True, tmp_path)
    assert status == "not built"
    assert "no compiled _json_speedups" in detail


def test_knows_the_version_of_a_source_tree() -> None:
    # This venv's install is editable: no RECORD beside the package, the version is the tree's.
    report = _doctor_json()
    assert report["mode"] == "source"
    assert report["sdk_version"] == ag_ui.__version__


def _pyproject_extras() -> dict[str, set[str]]:
    """Every extra of pyproject.toml (but the aggregates) -> the distributions it installs."""
    import re

    import tomllib
    from packaging.requirements import Requirement

    path = Path(__file__).resolve().parents[2] / "pyproject.toml"
    optional = tomllib.loads(path.read_text(encoding="utf-8"))["project"]["optional-dependencies"]

    def names(extra: str) -> set[str]:
        found: set[str] = set()
        for text in optional[extra]:
            requirement = Requirement(text)
            if requirement.name == "ag-ui-sdk":
                for inner in requirement.extras:
                    found |= names(inner)
            else:
                found.add(re.sub(r"[-_.]+", "-", requirement.name).lower())
        return found

    return {extra: names(extra) for extra in optional if extra not in ("all", "dev")}


def test_checks_every_extra() -> None:
    checked = {name: set(distributions) for name, (_, distributions) in doctor.EXTRAS.items()}
    assert checked == _pyproject_extras()


def test_reports_every_extra_importing_here() -> None:
    # This venv has every extra (scripts/test installs .[dev], which includes .[all]).
    extras = _doctor_json()["extras"]
    assert set(extras) == set(doctor.EXTRAS)
    assert {name: extra["detail"] for name, extra in extras.items() if not extra["imports"]} == {}
    assert extras["openai"]["detail"] == "found"  # the provider's SDK is not imported
    assert extras["client"]["detail"] == "imports"
