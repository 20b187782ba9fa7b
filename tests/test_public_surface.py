"""The public surface is pinned: a name that appears in or disappears from a public module's
``__all__`` fails this test until CHANGELOG.md's Unreleased section names it.

The public modules are those whose dotted path has no component with a leading underscore
(``ag_ui.client``, ``ag_ui.core.events``, ``ag_ui.store.redis``...); the ``agui`` command's
modules (``ag_ui.cli.*``) are not a Python API: the command's surface is its commands and flags
(docs/cli.md). Every public module declares a literal ``__all__``; ``tests/public_surface.txt``
holds the surface of the release CHANGELOG.md names last. At a release (docs/releasing.md) the
Unreleased section becomes that release and the file is written again::

    .venv/bin/python -m tests.test_public_surface --write
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
SNAPSHOT = REPO / "tests" / "public_surface.txt"
CHANGELOG = REPO / "CHANGELOG.md"


def public_modules() -> dict[str, Path]:
    modules = {}
    for path in sorted((SRC / "ag_ui").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if any(part.startswith("_") for part in parts):
            continue
        if parts[:2] == ["ag_ui", "cli"] and len(parts) > 2:
            continue
        modules[".".join(parts)] = path
    return modules


def declared_all(path: Path) -> list[str] | None:
    """The module's ``__all__`` as written (a literal list or tuple), ``None`` without one."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = ast.literal_eval(node.value)
            assert isinstance(value, (list, tuple)), f"{path}: __all__ is not a literal list"
            return [str(name) for name in value]
    return None


def current_surface() -> set[str]:
    surface = set()
    for module, path in public_modules().items():
        names = declared_all(path)
        surface.update(f"{module}.{name}" for name in names or ())
    return surface


def pinned() -> tuple[str, set[str]]:
    """(the release the snapshot is of, its names)."""
    lines = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    header = re.match(r"# ag-ui-sdk ([^\s:]+)", lines[0])
    assert header, f"{SNAPSHOT} must start with '# ag-ui-sdk <version>'"
    return header.group(1), {line for line in lines[1:] if line and not line.startswith("#")}


def changelog_sections() -> dict[str, str]:
    """``{"Unreleased": text, "0.1.0": text, ...}`` from the ``## [name]`` headings, in order."""
    text = CHANGELOG.read_text(encoding="utf-8")
    parts = re.split(r"^## \[([^\]]+)\].*$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_public_module_declares_all() -> None:
    missing = [module for module, path in public_modules().items() if declared_all(path) is None]
    assert missing == [], "give each public module a literal __all__ (or an underscore name)"


def test_the_snapshot_is_of_the_last_release_in_the_changelog() -> None:
    version, _ = pinned()
    releases = [name for name in changelog_sections() if name != "Unreleased"]
    assert releases, "CHANGELOG.md has no release section"
    assert version == releases[0], (
        f"{SNAPSHOT.name} is of {version}, CHANGELOG.md's last release is {releases[0]}: "
        "write it again (python -m tests.test_public_surface --write)"
    )


def test_a_public_name_changes_only_with_a_changelog_line() -> None:
    _, before = pinned()
    now = current_surface()
    unreleased = changelog_sections().get("Unreleased", "")
    unnamed = [
        f"{'added' if name in now else 'removed'}: {name}"
        for name in sorted(now ^ before)
        if f"`{name}`" not in unreleased
    ]
    assert unnamed == [], (
        "a public name appeared or disappeared: name it (`module.Name`, in backticks) under "
        "CHANGELOG.md's [Unreleased] Added/Removed/Changed, or put it back"
    )


def write_snapshot(version: str) -> None:
    lines = [f"# ag-ui-sdk {version}: every name of a public module's __all__ (one a line)"]
    SNAPSHOT.write_text("\n".join([*lines, *sorted(current_surface())]) + "\n", encoding="utf-8")


if __name__ == "__main__":  # python -m tests.test_public_surface --write
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.test_public_surface --write")
    releases = [name for name in changelog_sections() if name != "Unreleased"]
    write_snapshot(releases[0])
    print(f"wrote {SNAPSHOT} for {releases[0]}")
