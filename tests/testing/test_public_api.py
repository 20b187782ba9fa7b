"""The public surface of ``ag_ui.testing`` is pinned, every name resolves, and importing the
package costs nothing until a name is used."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ag_ui.testing
import ag_ui.testing.validation

EXPECTED = [
    "ASGIStreamTransport",
    "AgentClient",
    "Conversation",
    "Finding",
    "LiveServer",
    "RULES",
    "Report",
    "Rule",
    "RunResult",
    "ScenarioResult",
    "ScriptedAgent",
    "StreamGrader",
    "Verification",
    "assert_conversation",
    "assert_golden",
    "assert_legal_stream",
    "build_input",
    "describe_event",
    "grade_events",
    "normalize_events",
    "serve",
    "validate",
]


def test_the_public_names_are_pinned_and_resolve() -> None:
    assert ag_ui.testing.__all__ == EXPECTED == sorted(EXPECTED)
    for name in EXPECTED:
        assert getattr(ag_ui.testing, name) is not None
    assert set(EXPECTED) <= set(dir(ag_ui.testing))


def test_the_validation_surface() -> None:
    assert ag_ui.testing.validation.__all__ == [
        "DEFAULT_MAX_BYTES",
        "DEFAULT_MAX_EVENTS",
        "DEFAULT_MAX_SECONDS",
        "DEFAULT_MESSAGE",
        "SCENARIOS",
        "Report",
        "RunSummary",
        "ScenarioResult",
        "validate",
    ]
    assert list(ag_ui.testing.validation.SCENARIOS) == [
        "text",
        "multi-turn",
        "state",
        "tools",
        "interrupt",
        "cancel",
        "proto",
        "reconnect",
        "concurrent",
        "malformed",
        "capabilities",
    ]


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="nothing_here"):
        ag_ui.testing.nothing_here  # noqa: B018


def test_importing_the_package_loads_nothing_heavy() -> None:
    code = (
        "import sys, ag_ui.testing\n"
        "print([m for m in ('httpx', 'starlette', 'ag_ui.core', 'ag_ui.testing.client') "
        "if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_missing_extra_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['httpx'] = None\n"
        "import ag_ui.testing\n"
        "try:\n"
        "    ag_ui.testing.AgentClient\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'ag-ui-sdk[testing]'" in done.stdout
