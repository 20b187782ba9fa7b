"""The house keeps its shape (docs/architecture.md): no import cycle between modules, no layer
importing a package it may not, and each piece of plumbing written once.

Imports are read from the source (``ast``), everywhere in a module: at the top, inside
functions (lazy imports), under ``if TYPE_CHECKING:``, and ``importlib.import_module("ag_ui...")``.
A new package of ``ag_ui`` needs a row in ``LAYERS`` and in docs/architecture.md.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "ag_ui"

EVERYTHING = frozenset({"*"})

# Layer (a subpackage, or a top-level module) -> the other layers it may import. Mirrors the
# table of docs/architecture.md (DESIGN.md §2 as amended there).
# Below every layer: the check that the files shared with ag-ui-protocol are this SDK's, which
# each package runs first (``import ag_ui._require_sdk``).
INTEGRITY = frozenset({"ag_ui._require_sdk"})
LAYERS: dict[str, frozenset[str]] = {
    "ag_ui._integrity": frozenset(),
    "ag_ui._require_sdk": frozenset({"ag_ui._integrity"}),
    "ag_ui": frozenset(),
    "ag_ui.core": frozenset(),
    "ag_ui.json_patch": frozenset({"ag_ui.core"}),
    "ag_ui.proto": frozenset({"ag_ui.core"}),
    "ag_ui.encoder": frozenset({"ag_ui.core", "ag_ui.proto"}),
    "ag_ui.verify": frozenset({"ag_ui.core", "ag_ui.json_patch"}),
    "ag_ui.apply": frozenset({"ag_ui.core", "ag_ui.json_patch", "ag_ui.verify"}),
    "ag_ui.a2ui": frozenset({"ag_ui.core"}),
    "ag_ui.recording": frozenset({"ag_ui.core", "ag_ui.encoder", "ag_ui.proto"}),
    "ag_ui.store": frozenset({"ag_ui.core", "ag_ui.encoder"}),
    "ag_ui.telemetry": frozenset({"ag_ui.core"}),
    "ag_ui.client": frozenset(
        {
            "ag_ui.core",
            "ag_ui.encoder",
            "ag_ui.proto",
            "ag_ui.verify",
            "ag_ui.apply",
            "ag_ui.tools",
            "ag_ui.telemetry",  # traceparent on requests
        }
    ),
    "ag_ui.server": frozenset(
        {
            "ag_ui.core",
            "ag_ui.encoder",
            "ag_ui.json_patch",
            "ag_ui.verify",
            "ag_ui.apply",  # the reducer: a run's conversation as a thread store keeps it
            "ag_ui.store",
            "ag_ui.telemetry",  # run spans and metrics
        }
    ),
    "ag_ui.tools": frozenset({"ag_ui.core"}),
    "ag_ui.providers": frozenset({"ag_ui.core", "ag_ui.server", "ag_ui.tools", "ag_ui.telemetry"}),
    # providers: the dojo's model mode (ag_ui.demo.dojo_model, imported only with --model)
    "ag_ui.demo": frozenset({"ag_ui.core", "ag_ui.server", "ag_ui.providers"}),
    "ag_ui.testing": frozenset(
        {
            "ag_ui.core",
            "ag_ui.encoder",
            "ag_ui.proto",
            "ag_ui.recording",
            "ag_ui.client",
            "ag_ui.server",
            "ag_ui.verify",
            "ag_ui.apply",
        }
    ),
    "ag_ui.inspect": frozenset(
        {
            "ag_ui.core",
            "ag_ui.encoder",
            "ag_ui.proto",
            "ag_ui.apply",
            "ag_ui.recording",
            "ag_ui.client",
            "ag_ui.server",
            "ag_ui.telemetry",  # the trace id header
        }
    ),
    # adapters: a framework's stream -> AG-UI, served by the server; store: the thread store
    # whose conversations come from the framework's own persistence (a LangGraph checkpointer)
    "ag_ui.adapters": frozenset(
        {"ag_ui.core", "ag_ui.server", "ag_ui.providers", "ag_ui.store", "ag_ui.tools"}
    ),
    "ag_ui.cli": EVERYTHING,
    "ag_ui.__main__": frozenset({"ag_ui.cli"}),
}

# Optional layers that a module may reach only from inside a function, so that the importing
# layer works without that extra installed (protobuf).
LAZY_ONLY = {
    ("ag_ui.encoder", "ag_ui.proto"),
    ("ag_ui.client", "ag_ui.proto"),
    ("ag_ui.recording", "ag_ui.proto"),
    ("ag_ui.testing", "ag_ui.proto"),
    ("ag_ui.inspect", "ag_ui.proto"),
}

# Import cycles known to be removed on another branch; each entry names where. (None left: the
# server's access-control split, server/_access.py, removed the _connect/endpoint one.)
KNOWN_CYCLES: set[frozenset[str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
# Compiled modules (``proto._speedups``) are modules too, known by their stubs.
SUBMODULES = set(MODULES) | {_module_name(path) for path in PACKAGE.rglob("*.pyi")}


def _resolve(importer: str, path: Path, node: ast.ImportFrom) -> list[str]:
    if node.level:
        package = importer if path.name == "__init__.py" else importer.rsplit(".", 1)[0]
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        module = ".".join([*base, node.module] if node.module else base)
    else:
        module = node.module or ""
    # ``from ag_ui.client import _run`` imports the module ag_ui.client._run.
    found = []
    for alias in node.names:
        candidate = f"{module}.{alias.name}"
        found.append(candidate if candidate in SUBMODULES else module)
    return found


def _imports(module: str) -> list[tuple[str, bool]]:
    """(imported ag_ui module, lazily?) for every import in ``module``."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            # Inside a function, or only for the type checker: nothing loaded at import time.
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.If) and ast.unparse(child.test).endswith("TYPE_CHECKING"):
                for statement in child.body:
                    visit(ast.Module(body=[statement], type_ignores=[]), True)
                for statement in child.orelse:
                    visit(ast.Module(body=[statement], type_ignores=[]), lazy)
                continue
            if isinstance(child, ast.Import):
                found.extend((alias.name, lazy) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                found.extend((name, lazy) for name in _resolve(module, path, child))
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr == "import_module"
                and child.args
                and isinstance(child.args[0], ast.Constant)
                and isinstance(child.args[0].value, str)
            ):
                found.append((child.args[0].value, lazy))
            visit(child, inner)

    visit(tree, False)
    return [(name, lazy) for name, lazy in found if name == "ag_ui" or name.startswith("ag_ui.")]


def _layer(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def test_every_layer_is_in_the_table() -> None:
    layers = {_layer(module) for module in MODULES}
    assert layers - set(LAYERS) == set(), "add the new layer to LAYERS and docs/architecture.md"


def test_no_layer_imports_a_layer_it_may_not() -> None:
    breaches = []
    for module in sorted(MODULES):
        layer = _layer(module)
        allowed = LAYERS[layer]
        for target, lazy in _imports(module):
            other = _layer(target)
            if other == layer or allowed is EVERYTHING:
                continue
            if other not in allowed and other not in INTEGRITY:
                breaches.append(f"{module} imports {target}")
            elif (layer, other) in LAZY_ONLY and not lazy:
                breaches.append(f"{module} imports {target} at import time (only lazily)")
    assert breaches == []


def test_no_import_cycles_between_modules() -> None:
    graph = {
        module: {target for target, _ in _imports(module) if target in MODULES}
        for module in MODULES
    }
    cycles: list[list[str]] = []
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        for target in sorted(graph[module]):
            if target in path:
                cycle = path[path.index(target) :]
                if frozenset(cycle) not in KNOWN_CYCLES:
                    cycles.append([*cycle, target])
            elif target not in done:
                visit(target, [*path, target])
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module, [module])
    # A package's __init__ importing its own modules is not a cycle unless they import it back.
    assert cycles == []


def _sources() -> dict[str, str]:
    return {
        module: path.read_text()
        for module, path in MODULES.items()
        if "_generated" not in module and module != "ag_ui.core._wire"
    }


@pytest.mark.parametrize(
    ("what", "pattern", "home"),
    [
        ("the JavaScript integer bound", r"2\s*\*\*\s*53", "ag_ui.core._wire"),
        ("the protobuf media type", r"application/vnd\.ag-ui\.event\+proto\"", "ag_ui.core._wire"),
        ("the type-name idiom", r"getattr\([\w.]*\.type, \"value\"", "ag_ui.core._wire"),
        ("closing()", r"def closing\(", "ag_ui.core._aiter"),
        ("a varint reader", r"& 0x7F\) << shift", "ag_ui.proto._varint"),
    ],
)
def test_each_piece_of_plumbing_is_written_once(what: str, pattern: str, home: str) -> None:
    copies = [
        module for module, text in _sources().items() if module != home and re.search(pattern, text)
    ]
    assert copies == [], f"{what} is written again outside {home}"


def test_no_module_writes_another_objects_private_state() -> None:
    """``x._name = ...`` only on ``self``/``cls``, or on ``twin``, a copy of the same class."""
    writes = []
    for module, path in MODULES.items():
        if "_generated" in module:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if (
                        isinstance(part, ast.Attribute)
                        and part.attr.startswith("_")
                        and not part.attr.startswith("__")
                        and not (
                            isinstance(part.value, ast.Name)
                            and part.value.id in {"self", "cls", "twin"}
                        )
                    ):
                        writes.append(f"{module}:{node.lineno} {ast.unparse(target)}")
    assert writes == []


# One concept per module: none over this many lines, but the catalogs (each a list of classes
# that belong together: the protocol's events and types, the one error tree, generated code).
MAX_MODULE_LINES = 450
CATALOGS = {"ag_ui.core.events", "ag_ui.core.types", "ag_ui.core.errors"}


def test_no_module_is_over_the_size_limit() -> None:
    sizes = {
        module: len(path.read_text(encoding="utf-8").splitlines())
        for module, path in MODULES.items()
        if "_generated" not in module and module not in CATALOGS
    }
    over = {module: lines for module, lines in sizes.items() if lines > MAX_MODULE_LINES}
    assert over == {}, f"split by concept (<= {MAX_MODULE_LINES}): {over}"
