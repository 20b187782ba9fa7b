"""The server and the stores keep their layers: no import cycles (``TYPE_CHECKING`` imports
included), and each module imports only from its own layer or the layers below it, as
docs/architecture.md ("Server and store") draws them. A new module goes into ``LAYERS``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "ag_ui"

LAYERS: dict[str, list[set[str]]] = {
    "server": [
        # 1. what a run's events become, without I/O: the guard, the agent's helpers, the codes
        {"_guard", "_downgrade", "_diff", "_streams", "_state", "context", "_failures"},
        # 2. driving an agent through the guard into a sink; a run's conversation kept
        {"_runner", "_time_limit", "_release", "_merge", "_threads"},
        # 3. HTTP plumbing that knows neither agents nor stores
        {
            "_request",
            "_access",
            "_asgi",
            "_response",
            "_routing",
            "_health",
            "_tap",
            "_sliced_parse",
            "_local_guard",
        },
        # 4. a run's task: bound to its request; detached (the store writer, the frames of a
        # stored run, the run tasks)
        {"_bound_run", "_store_writer", "_replay", "_run_end", "_detached"},
        # 5. the endpoints: the run request, capabilities, connect, threads, AgentEndpoint
        {"_run_request", "_capabilities", "_connect", "_thread_endpoints", "endpoint"},
        # 6. the public surface
        {"__init__"},
    ],
    "store": [
        {
            "_renamed",
            "_thread_cursor",
            "_message_json",
            "_redis_keys",
            "_redis_connection",
            "_priority_gate",
            "_postgres_connection",
            "_postgres_schema",
        },
        {"_base", "_thread_base"},
        {"_thread_rows"},
        {"memory", "redis", "thread_memory", "thread_sqlite", "thread_postgres", "thread_url"},
        {"__init__"},
    ],
}

OTHER_PACKAGES = {
    "server": {
        "core",
        "encoder",
        "verify",
        "json_patch",
        "apply",
        "store",
        "telemetry",  # the switch, the run spans (docs/telemetry.md)
        "_require_sdk",
    },
    "store": {"core", "encoder", "_require_sdk"},
}


def _imports(path: Path) -> set[str]:
    """Every ``ag_ui`` module the file imports, anywhere in it (``TYPE_CHECKING`` included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ag_ui."):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("ag_ui.")}
    return found


def _graph(package: str) -> dict[str, set[str]]:
    """module -> the modules of the same package it imports."""
    prefix = f"ag_ui.{package}"
    graph: dict[str, set[str]] = {}
    for path in sorted((SRC / package).glob("*.py")):
        own = set()
        for name in _imports(path):
            if name == prefix:
                own.add("__init__")
            elif name.startswith(prefix + "."):
                own.add(name[len(prefix) + 1 :].split(".")[0])
        graph[path.stem] = own
    return graph


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_every_module_has_a_layer(package: str) -> None:
    placed = set().union(*LAYERS[package])
    modules = {path.stem for path in (SRC / package).glob("*.py")}
    assert modules - placed == set(), f"add the new ag_ui.{package} modules to LAYERS"
    assert placed - modules == set(), f"LAYERS names ag_ui.{package} modules that are gone"


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_no_module_imports_from_a_layer_above_it(package: str) -> None:
    layer_of = {module: n for n, layer in enumerate(LAYERS[package]) for module in layer}
    upward = [
        f"{module} (layer {layer_of[module] + 1}) imports {target} (layer {layer_of[target] + 1})"
        for module, targets in _graph(package).items()
        for target in targets
        if layer_of[target] > layer_of[module]
    ]
    assert upward == []


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_no_import_cycles(package: str) -> None:
    graph = _graph(package)
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        for target in sorted(graph[module]):
            if target in path:
                cycles.append([*path[path.index(target) :], target])
            elif target not in done:
                visit(target, [*path, target])
        done.add(module)

    done: set[str] = set()
    for module in sorted(graph):
        if module not in done:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_other_packages_imported(package: str) -> None:
    allowed = OTHER_PACKAGES[package] | {package}
    outside = {
        f"{path.stem} imports {name}"
        for path in (SRC / package).glob("*.py")
        for name in _imports(path)
        if name.split(".")[1] not in allowed
    }
    assert outside == set()
