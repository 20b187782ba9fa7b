"""The package installed as users install it: bare (``pip install ag-ui-sdk``) and on the lowest
Python that pyproject.toml claims.

The wheel is built once per session from this checkout. The bare venv holds that wheel and its
declared dependencies only (pip resolves them, from its cache when it can); every command and
import that needs an extra must say which, in one line.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import pytest

from tests.conftest import REPO

TRACEBACK = "Traceback (most recent call last)"


def _requirement_names(distribution: str) -> set[str]:
    """The distributions ``distribution`` needs without extras (recursively), itself included."""
    names = {distribution.lower()}
    pending = [distribution]
    while pending:
        for requirement in importlib.metadata.requires(pending.pop()) or []:
            if "extra ==" in requirement:
                continue
            match = re.match(r"[A-Za-z0-9._-]+", requirement)
            assert match is not None
            name = match.group(0).lower()
            if name not in names:
                names.add(name)
                pending.append(name)
    return names


def build_wheel(python: str, directory: Path) -> Path:
    """A wheel of this checkout for ``python`` (C accelerator included when it compiles).

    One build at a time per checkout: setuptools builds in the checkout's ``build/``, and two
    pytest-xdist workers building at once collide there ("File exists")."""
    lock_path = Path(tempfile.gettempdir()) / f"ag-ui-wheel-{hashlib.sha1(bytes(REPO)).hexdigest()}"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(
            [
                python,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "-q",
                "-w",
                str(directory),
                str(REPO),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, f"building the wheel failed:\n{done.stdout}{done.stderr}"
    (wheel,) = directory.glob("ag_ui_sdk-*.whl")
    return wheel


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Python of a venv where ``pip install ag-ui-sdk`` (this checkout's wheel) ran alone: the
    package and its non-optional dependencies, installed by pip in its own order."""
    root = tmp_path_factory.mktemp("bare-install")
    wheel = build_wheel(sys.executable, root)
    target = root / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    return python


def run(python: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [str(python), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_bare_venv_has_only_the_package_and_pydantic(bare_python: Path) -> None:
    listed = run(
        bare_python,
        "-c",
        "import importlib.metadata as m; print('\\n'.join(d.name for d in m.distributions()))",
    )
    names = {_normalized(name) for name in listed.stdout.split()}
    assert names == {_normalized(name) for name in _requirement_names("ag-ui-sdk")}
    assert "pydantic" in names
    for missing in ("httpx", "anyio", "starlette", "uvicorn", "google.protobuf", "redis"):
        probe = run(bare_python, "-c", f"import {missing}")
        assert probe.returncode == 1, f"{missing} is installed in the bare venv"


def test_the_core_works_without_extras(bare_python: Path, tmp_path: Path) -> None:
    imports = "import ag_ui.core, ag_ui.encoder, ag_ui.verify, ag_ui.apply, ag_ui.recording"
    assert run(bare_python, "-c", imports).returncode == 0
    recording = tmp_path / "run.jsonl"
    recording.write_text(
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n'
        '{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"hi"}\n'
        '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n'
    )
    agui = str(bare_python.parent / "agui")
    for args in (["verify", str(recording)], ["convert", str(recording), "--to", "sse"]):
        done = subprocess.run([agui, *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        (["run", "http://127.0.0.1:9/agent", "-m", "hi"], "client"),
        (["chat", "http://127.0.0.1:9/agent"], "client"),
        (["demo", "--once"], "server"),
        (["demo"], "server"),
        (["convert", "{recording}", "--to", "proto", "-o", "{out}"], "proto"),
        (["verify", "{proto_recording}"], "proto"),
        (["serve", "--model", "openai:gpt-4o-mini"], "openai"),
        (["serve", "--model", "anthropic:claude-sonnet-4-5"], "anthropic"),
        (["validate", "http://127.0.0.1:9/agent"], "testing"),
        (["record", "http://127.0.0.1:9/agent", "-m", "hi", "-o", "{out}"], "testing"),
        (["replay", "{recording}", "--port", "0"], "testing"),
        (["inspect", "{recording}"], "client,server"),
    ],
)
def test_commands_name_the_extra_they_need(
    bare_python: Path, tmp_path: Path, command: list[str], extra: str
) -> None:
    recording = tmp_path / "run.jsonl"
    recording.write_text('{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n')
    proto_recording = tmp_path / "run.bin"
    proto_recording.write_bytes(b"\x00\x00\x00\x02\x0a\x00")
    values = {
        "recording": recording,
        "out": tmp_path / "out.bin",
        "proto_recording": proto_recording,
    }
    args = [arg.format(**values) for arg in command]
    done = subprocess.run(
        [str(bare_python.parent / "agui"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert TRACEBACK not in done.stderr
    assert done.returncode == 1, done.stderr
    assert f"pip install 'ag-ui-sdk[{extra}]'" in (done.stderr + done.stdout)
    assert len(done.stderr.splitlines()) <= 1, done.stderr


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("ag_ui.client", "client"),
        ("ag_ui.server", "server"),
        ("ag_ui.proto", "proto"),
        ("ag_ui.store", "server"),
        ("ag_ui.demo", "server"),
        ("ag_ui.providers", "openai"),
        ("ag_ui.inspect", "client,server"),
        ("ag_ui.adapters.langgraph", "langgraph"),
        ("ag_ui.adapters.openai_agents", "openai-agents"),
        # The names users import from them, as the docs write it: the same one ImportError.
        ("from ag_ui.server import create_app", "server"),
        ("from ag_ui.client import HttpAgent", "client"),
        ("from ag_ui.proto import encode_event", "proto"),
        ("from ag_ui.store import RedisRunStore", "server"),
        ("from ag_ui.store import PostgresThreadStore", "server"),
    ],
)
def test_imports_name_the_extra_they_need(bare_python: Path, module: str, extra: str) -> None:
    statement = module if module.startswith("from ") else f"import {module}"
    done = run(bare_python, "-c", statement)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ")
    assert f"pip install 'ag-ui-sdk[{extra}]'" in last


# -- the lowest Python pyproject.toml claims ---------------------------------------------------


def lowest_claimed_python() -> str:
    """``"3.10"`` from ``requires-python = ">=3.10"``."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^requires-python\s*=\s*">=\s*(\d+\.\d+)"', text, re.MULTILINE)
    assert match is not None, 'pyproject.toml must say requires-python = ">=X.Y"'
    return match.group(1)


def find_python(version: str) -> str | None:
    """An interpreter of ``version`` on this machine: on PATH, or one pyenv installed."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [shutil.which(f"python{version}"), f"/usr/bin/python{version}"]
    candidates += sorted(str(p) for p in root.glob(f"versions/{version}.*/bin/python{version}"))
    for candidate in candidates:
        if not candidate or not Path(candidate).exists():
            continue
        probe = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    return None


SMOKE = """
import doctest, importlib, pkgutil, sys
import ag_ui
assert sys.version_info[:2] == tuple(map(int, sys.argv[1].split("."))), sys.version
from ag_ui.proto import _accelerator
names = [m.name for m in pkgutil.walk_packages(ag_ui.__path__, "ag_ui.")
         if not m.name.endswith("__main__") and "._generated" not in m.name]
attempted = failed = 0
for name in names:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    attempted, failed = attempted + result.attempted, failed + result.failed
print(len(names), "modules", attempted, "examples", failed, "failed")
"""


@pytest.fixture(scope="session")
def lowest_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv of the lowest claimed Python with this checkout's wheel and every extra. The venv
    (``.venv-pyX.Y``) is kept between runs; the wheel is rebuilt and reinstalled each run.
    """
    version = lowest_claimed_python()
    interpreter = find_python(version)
    if interpreter is None:
        pytest.fail(
            f"pyproject.toml claims Python {version}, which must be tested, but no python{version} "
            f"is on this machine: install it (e.g. pyenv install {version}) or raise "
            "requires-python"
        )
    target = REPO / f".venv-py{version}"
    python = target / "bin" / "python"
    if not python.exists():
        subprocess.run([interpreter, "-m", "venv", str(target)], check=True, timeout=120)
        subprocess.run(
            [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "setuptools>=77"],
            check=True,
            capture_output=True,
            timeout=300,
        )
    wheel = build_wheel(str(python), tmp_path_factory.mktemp(f"wheel-py{version}"))
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    # The dependencies (ag-ui-protocol among them) first, this checkout's files last; pytest too,
    # which the test kit's pytest plugin (ag_ui.testing.plugin, walked like every module) needs.
    subprocess.run([*pip, f"{wheel}[all]", "pytest"], check=True, capture_output=True, timeout=600)
    subprocess.run([*pip, "--force-reinstall", "--no-deps", str(wheel)], check=True, timeout=300)
    return python


# The first run builds the venv and downloads the extras' packages for that Python.
@pytest.mark.timeout(600)
def test_the_lowest_claimed_python_runs_the_package(lowest_python: Path, tmp_path: Path) -> None:
    version = lowest_claimed_python()
    # Every module imports (the C accelerator is built for this Python) and every docstring
    # example gives what it shows.
    done = run(lowest_python, "-c", SMOKE, version, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    modules, _, examples, _, failed, _ = done.stdout.split()
    assert (int(modules) > 90, int(examples) >= 70, failed) == (True, True, "0"), done.stdout
    # A real server and our client over HTTP, and the example.
    agui = str(lowest_python.parent / "agui")
    demo = subprocess.run(
        [agui, "demo", "--once", "-m", "What's the weather in Paris?"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert demo.returncode == 0, demo.stderr
    assert "It is 23°C and windy in Paris." in demo.stdout
    example = run(lowest_python, str(REPO / "examples" / "roundtrip.py"))
    assert example.returncode == 0, example.stderr
    assert "assistant said: 'Hello from AG-UI ✓'" in example.stdout


def test_the_readme_claims_the_same_python_as_pyproject() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    claimed = set(re.findall(r"Python (\d+\.\d+)\+", readme))
    assert claimed == {lowest_claimed_python()}
