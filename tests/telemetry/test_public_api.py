"""``ag_ui.telemetry``'s surface is pinned; without OpenTelemetry, turning it on is one
ImportError naming the extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ag_ui.telemetry
from ag_ui.telemetry import configure_export

PUBLIC = [
    "TRACE_ID_HEADER",
    "configure_export",
    "inject_current",
    "instrument",
    "is_instrumented",
    "uninstrument",
]

# A process where every opentelemetry module is missing, as without the otel extra.
HIDDEN = """
import importlib.abc, sys

class Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "opentelemetry":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Hidden())
from ag_ui import telemetry
try:
    CALL
except ImportError as exc:
    print(exc)
"""


def test_the_public_surface_is_pinned() -> None:
    assert ag_ui.telemetry.__all__ == PUBLIC
    assert ag_ui.telemetry.TRACE_ID_HEADER == "x-ag-ui-trace-id"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            "telemetry.instrument()",
            "ag_ui.telemetry needs the OpenTelemetry API: pip install 'ag-ui-sdk[otel]'",
        ),
        (
            "telemetry.configure_export('console')",
            "exporting telemetry needs the OpenTelemetry SDK: pip install 'ag-ui-sdk[otel-export]'",
        ),
    ],
)
def test_without_opentelemetry_turning_it_on_names_the_extra(call: str, message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", HIDDEN.replace("CALL", call)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == message


def test_an_unknown_export_target_is_one_line() -> None:
    with pytest.raises(
        ValueError, match=r"^unknown telemetry export 'jaeger': choose otlp or console$"
    ):
        configure_export("jaeger")
