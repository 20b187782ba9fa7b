"""The examples in the docstrings of ``ag_ui.server`` and ``ag_ui.demo`` run as shown."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ag_ui.server",
    "ag_ui.server._diff",
    "ag_ui.server._guard",
    "ag_ui.server.endpoint",
    "ag_ui.demo",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0
