"""The release (docs/releasing.md): what can be checked of it on this machine.

- ``scripts/release_check.py`` end to end: the sdist and a manylinux wheel built from it,
  installed in fresh venvs, smoke-tested with ``agui doctor``, the accelerators in the wheel,
  and a second build without a C compiler that says so and ships nothing stale (one compile,
  pip's cache for the rest; about two minutes);
- the workflow file against GitHub's workflow schema (``check-jsonschema``; ``actionlint`` does
  not install here: its PyPI package downloads a binary when it is built), and the cibuildwheel
  configuration against cibuildwheel's own schema and build selection;
- the ``all`` extra installs every package the documentation imports; one version, written once.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement

import ag_ui
from tests.docs.blocks import collect_blocks

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
BIN = Path(sys.executable).parent
WORKFLOW = REPO / ".github" / "workflows" / "release.yml"


def _run(*command: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        check=False,
    )


@pytest.mark.timeout(900)
def test_the_release_check_passes() -> None:
    done = _run(sys.executable, REPO / "scripts" / "release_check.py", timeout=840)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for expected in (
        "   ok: no other compiled file",
        "ok: both C accelerators built and loaded (accelerator, json_speedups)",
        "   ok: nothing of the first build in it (build/ was emptied)",
        "ok: no C accelerator built (pure Python)",
    ):
        assert expected in lines, done.stdout
    assert sum(line == "   ok: agui doctor: no problem found" for line in lines) == 2
    wheel = r"   ok: ag_ui_sdk-.*manylinux_\d+_\d+_\w+\.whl: manylinux"
    assert any(re.match(wheel, line) for line in lines), done.stdout


def test_the_workflow_fits_githubs_schema() -> None:
    done = _run(BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_workflow_builds_from_the_sdist_and_publishes_only_tags() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "package-dir: dist/${{ needs.sdist.outputs.name }}" in text
    publish = text[text.index("  publish:") :]
    assert "if: startsWith(github.ref, 'refs/tags/v')" in publish
    assert "id-token: write" in publish
    assert "pypa/gh-action-pypi-publish@" in publish
    # Only the publishing job may mint an OIDC token.
    assert text.count("id-token: write") == 1


def test_the_wheel_matrix_is_every_platform_users_run() -> None:
    config = PYPROJECT["tool"]["cibuildwheel"]
    identifiers = {}
    for platform in ("linux", "macos", "windows"):
        done = _run(BIN / "cibuildwheel", "--print-build-identifiers", "--platform", platform, ".")
        assert done.returncode == 0, done.stderr
        identifiers[platform] = set(done.stdout.split())
    pythons = [f"cp3{minor}" for minor in range(10, 15)]
    expected = {
        "linux": {
            f"{py}-{libc}_{arch}"
            for py in pythons
            for libc in ("manylinux", "musllinux")
            for arch in ("x86_64", "aarch64")
        },
        "macos": {f"{py}-macosx_{arch}" for py in pythons for arch in ("x86_64", "arm64")},
        "windows": {f"{py}-win_amd64" for py in pythons},
    }
    assert identifiers == expected
    assert config["environment"] == {"AG_UI_REQUIRE_SPEEDUPS": "1"}
    assert "--require-accelerators" in config["test-command"]
    # The publish job counts them.
    count = sum(len(found) for found in expected.values())
    assert f"-eq {count}" in WORKFLOW.read_text(encoding="utf-8")


def test_the_cibuildwheel_configuration_fits_its_schema(tmp_path: Path) -> None:
    import cibuildwheel

    schema = Path(cibuildwheel.__file__).parent / "resources" / "cibuildwheel.schema.json"
    section = tmp_path / "cibuildwheel.json"
    section.write_text(json.dumps(PYPROJECT["tool"]["cibuildwheel"]))
    done = _run(BIN / "check-jsonschema", "--schemafile", schema, section)
    assert done.returncode == 0, done.stdout + done.stderr


def _installed_by(requirements: list[str], extras: set[str]) -> set[str]:
    """Distributions ``requirements`` install (with ``extras`` of this package), transitively."""
    names: set[str] = set()
    pending = [(Requirement(text), frozenset(extras)) for text in requirements]
    while pending:
        requirement, active = pending.pop()
        marker = requirement.marker
        if marker and not any(marker.evaluate({"extra": e}) for e in (active or {""})):
            continue
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        if name == "ag-ui-sdk":
            wanted = set(requirement.extras)
            for extra in wanted:
                pending += [(Requirement(t), frozenset()) for t in _optional(extra)]
            continue
        if name in names:
            continue
        names.add(name)
        try:
            found = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        pending += [(Requirement(t), frozenset(requirement.extras)) for t in found]
    return names


def _optional(extra: str) -> list[str]:
    return list(PYPROJECT["project"]["optional-dependencies"][extra])


def test_the_all_extra_installs_everything_the_docs_import() -> None:
    requirements = [*PYPROJECT["project"]["dependencies"], *_optional("all")]
    installed = _installed_by(requirements, set())
    providers = importlib.metadata.packages_distributions()
    missing = {}
    for block in collect_blocks(REPO):
        if block.kind == "doctest":
            continue
        for node in ast.walk(ast.parse(block.source)):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots = [node.module.split(".")[0]]
            else:
                continue
            for root in roots:
                if root in sys.stdlib_module_names or root == "ag_ui":
                    continue
                dists = {re.sub(r"[-_.]+", "-", d).lower() for d in providers.get(root, [])}
                if not dists & installed:
                    missing.setdefault(root, block.id)
    assert missing == {}, "add the package to an extra that `all` includes"


def test_all_is_every_extra_but_dev() -> None:
    extras = set(PYPROJECT["project"]["optional-dependencies"]) - {"all", "dev"}
    (listed,) = _optional("all")
    assert set(Requirement(listed).extras) == extras


def test_the_version_is_written_once() -> None:
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert "version" not in PYPROJECT["project"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "ag_ui.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?", ag_ui.__version__)
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[(\d[^\]]*)\]", changelog, flags=re.MULTILINE)
    # Releasing moves [Unreleased] to a new section and raises __version__ in one commit.
    assert released, "CHANGELOG.md has no release section"
    assert ag_ui.__version__ == released[0], "__version__ is CHANGELOG.md's newest release"


def test_an_in_place_build_without_a_compiler_leaves_no_stale_accelerator(tmp_path: Path) -> None:
    """An editable install builds in place: a compile that fails there removes the earlier
    build's module from src/, which the package would otherwise go on loading."""
    listed = _run("git", "ls-files", "-z").stdout.split("\0")
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_bytes((REPO / name).read_bytes())
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    stale = [
        tmp_path / "src" / "ag_ui" / "proto" / f"_speedups{suffix}",
        tmp_path / "src" / "ag_ui" / "core" / f"_json_speedups{suffix}",
    ]
    for path in stale:
        path.write_bytes(b"an earlier build")
    done = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "CC": "false"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    warnings = [
        line
        for line in done.stderr.splitlines()
        if line.startswith("WARNING ag-ui-sdk: built WITHOUT its C accelerators")
    ]
    assert len(warnings) == 1, done.stderr
    assert [path.name for path in stale if path.exists()] == []
