"""The examples in the docstrings of ``ag_ui.verify``, ``ag_ui.apply`` and ``ag_ui.json_patch``
run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ag_ui.json_patch",
    "ag_ui.apply._pipeline",
    "ag_ui.apply._reducer",
    "ag_ui.verify._chunks",
    "ag_ui.verify._compact",
    "ag_ui.verify._compat",
    "ag_ui.verify._verifier",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0
