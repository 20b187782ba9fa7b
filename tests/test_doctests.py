"""Every docstring example in the package runs and prints what it shows (all subpackages, found
by walking ``ag_ui``, so a new module's examples are covered without listing it)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ag_ui

# ``__main__`` runs the command line on import; the generated protobuf code has no examples.
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(ag_ui.__path__, "ag_ui.")
    if not info.name.endswith("__main__") and "._generated" not in info.name
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_walk_reaches_every_subpackage() -> None:
    # The subpackages whose examples used to run nowhere (client, core, encoder) are walked too.
    packages = {name.split(".")[1] for name in MODULES}
    assert {"apply", "cli", "client", "core", "demo", "encoder", "proto", "server", "verify"} <= (
        packages
    )
    examples = {
        name: sum(
            len(test.examples)
            for test in doctest.DocTestFinder().find(importlib.import_module(name))
        )
        for name in MODULES
    }
    assert examples["ag_ui.client._interrupts"] == 3
    assert examples["ag_ui.core.decoding"] >= 1
    assert examples["ag_ui.encoder.encoder"] >= 1
    assert sum(examples.values()) >= 80
