"""The one ``AG_UI_PURE_PYTHON`` switch (``core/_compiled.py``) turns off both C extensions."""

from __future__ import annotations

import os
import subprocess
import sys

from ag_ui.core._compiled import load_compiled

_BOTH = (
    "from ag_ui.core import _json_plans; from ag_ui.proto import _accelerator;"
    "print(_json_plans.IMPLEMENTATION, _accelerator.IMPLEMENTATION)"
)


def _implementations(pure: bool) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "AG_UI_PURE_PYTHON"}
    if pure:
        env["AG_UI_PURE_PYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _BOTH], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_both_extensions_load_without_the_switch() -> None:
    # scripts/test installs with AG_UI_REQUIRE_SPEEDUPS=1, so both are built.
    assert _implementations(pure=False) == ["c", "c"]


def test_the_switch_turns_both_off() -> None:
    assert _implementations(pure=True) == ["python", "python"]


def test_a_module_that_was_not_built_is_none() -> None:
    assert load_compiled("ag_ui.core._no_such_extension") is None
