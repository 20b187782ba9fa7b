"""The examples in the docstrings of ``ag_ui.providers`` run as shown."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ag_ui.providers._chat_stream",
    "ag_ui.providers._responses_stream",
    "ag_ui.providers._anthropic_stream",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0
