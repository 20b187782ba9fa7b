"""The package installed as users install it: bare (``pip install ag-ui-sdk``) and on the lowest
Python that pyproject.toml claims.

The wheel is built once per session from this checkout. The bare venv holds that wheel and its
declared dependencies only (pydantic and what pydantic needs, linked from this venv, so nothing
is downloaded); every command and import that needs an extra must say which, in one line.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import sysconfig
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
    """A wheel of this checkout for ``python`` (C accelerator included when it compiles)."""
    subprocess.run(
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
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = directory.glob("ag_ui_sdk-*.whl")
    return wheel


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Python of a venv holding only the wheel and its non-optional dependencies."""
    root = tmp_path_factory.mktemp("bare-install")
    wheel = build_wheel(sys.executable, root)
    target = root / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    ours = Path(sysconfig.get_paths()["purelib"])
    for name in _requirement_names("ag-ui-sdk") - {"ag-ui-sdk"}:
        # Each installed distribution's top-level entries: its packages or modules and its
        # .dist-info, linked (not copied) into the bare venv.
        files = importlib.metadata.distribution(name).files or []
        for top in {f.parts[0] for f in files if f.parts and f.parts[0] != ".."}:
            link = site / top
            if not link.exists():
                link.symlink_to(ours / top)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--disable-pip-version-check",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=120,
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
        (["demo", "--once"], "server"),
        (["demo"], "server"),
        (["convert", "{recording}", "--to", "proto", "-o", "{out}"], "proto"),
        (["verify", "{proto_recording}"], "proto"),
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
    ],
)
def test_imports_name_the_extra_they_need(bare_python: Path, module: str, extra: str) -> None:
    done = run(bare_python, "-c", f"import {module}")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ")
    assert f"pip install 'ag-ui-sdk[{extra}]'" in last
