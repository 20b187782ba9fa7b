"""The examples in the docstrings of ``ag_ui.tools`` run as shown."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ag_ui.tools",
    "ag_ui.tools._docstrings",
    "ag_ui.tools._function",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0
