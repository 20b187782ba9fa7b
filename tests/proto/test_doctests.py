"""The examples in the ``ag_ui.proto`` docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["ag_ui.proto", "ag_ui.proto._codec", "ag_ui.proto._framing"])
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0
