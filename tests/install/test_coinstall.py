"""Installing this SDK beside ``ag-ui-protocol``: every order, with pip and with uv, in real venvs.

Each scenario builds a fresh venv, runs the installs a user would, then a probe in that venv:
does ``import ag_ui.verify`` (an SDK-only module) work, is ``ag_ui.core`` this SDK's, what
version of ``ag-ui-protocol`` does the metadata report, and does pydantic-ai's AG-UI adapter
(a real framework, scripted model) still run. The environment is either working, or the first
SDK-only import fails with ``SharedFilesError`` naming the repair command; running that exact
command (what ``agui doctor --fix`` runs) then gives a working one. Never a silent mix.

The SDK wheel is built once per source state (``tests.frameworks.venvs.sdk_wheel``); installers
find it through ``PIP_FIND_LINKS``/``UV_FIND_LINKS``, so the repair commands run as printed.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.frameworks.venvs import base_python, sdk_wheel, uv

PYDANTIC_AI = "pydantic-ai-slim[ag-ui]==2.68.0"
AGENT_FRAMEWORK = "agent-framework-ag-ui==1.7.0"
OLD_OFFICIAL = "ag-ui-protocol==0.1.22"

PROBE = r"""
import asyncio, importlib.metadata, json
out = {}
try:
    import ag_ui.verify
    out["sdk"] = "ok"
except ImportError as exc:
    out["sdk"] = f"{type(exc).__name__}: {exc}"
try:
    import ag_ui.core
    out["core_is_sdk"] = hasattr(ag_ui.core, "parse_event")
except ImportError as exc:
    out["core_is_sdk"] = f"{type(exc).__name__}: {exc}"
try:
    out["protocol_version"] = importlib.metadata.version("ag-ui-protocol")
except importlib.metadata.PackageNotFoundError:
    out["protocol_version"] = None

async def framework():
    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.ui.ag_ui import AGUIAdapter
    from ag_ui.core import RunAgentInput, UserMessage

    async def model(messages, info):
        yield "hi"

    run_input = RunAgentInput(
        thread_id="t", run_id="r", messages=[UserMessage(id="u", content="x")],
        state={}, tools=[], context=[], forwarded_props={},
    )
    adapter = AGUIAdapter(agent=Agent(FunctionModel(stream_function=model)), run_input=run_input)
    frames = [f async for f in adapter.encode_stream(adapter.run_stream())]
    return [json.loads(f[6:])["type"] for f in frames if f.startswith("data: ")]

import sys
try:
    out["framework"] = asyncio.run(framework()) if "--framework" in sys.argv else None
except ModuleNotFoundError as exc:
    out["framework"] = None if exc.name and exc.name.startswith("pydantic_ai") else str(exc)
except Exception as exc:
    out["framework"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""

FRAMEWORK_OK = [
    "RUN_STARTED",
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "RUN_FINISHED",
]


class Venv:
    """A fresh venv driven by pip (``uv venv --seed``: a current pip) or by uv."""

    def __init__(self, path: Path, installer: str) -> None:
        self.path, self.installer = path, installer
        self.python = path / "bin" / "python"
        wheel_dir = str(sdk_wheel().parent)
        self.env = {
            **os.environ,
            "PIP_FIND_LINKS": wheel_dir,
            "UV_FIND_LINKS": wheel_dir,
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "AG_UI_SKIP_INSTALL_CHECK": "",
        }
        self.env["PATH"] = f"{Path(uv()).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        seed = ["--seed"] if installer == "pip" else []
        self.run([uv(), "venv", "--quiet", *seed, "--python", base_python(), str(path)])

    def run(self, argv: list[str]) -> str:
        done = subprocess.run(
            argv, capture_output=True, text=True, env=self.env, timeout=300, check=False
        )
        assert done.returncode == 0, f"{shlex.join(argv)}:\n{done.stdout}{done.stderr}"
        return done.stdout + done.stderr

    def install(self, *requirements: str, extra: tuple[str, ...] = ()) -> None:
        if self.installer == "pip":
            self.run([str(self.python), "-m", "pip", "install", "--quiet", *extra, *requirements])
        else:
            self.run(
                [
                    uv(),
                    "pip",
                    "install",
                    "--quiet",
                    "--python",
                    str(self.python),
                    *extra,
                    *requirements,
                ]
            )

    def uninstall(self, distribution: str) -> None:
        if self.installer == "pip":
            self.run([str(self.python), "-m", "pip", "uninstall", "--yes", "--quiet", distribution])
        else:
            self.run(
                [uv(), "pip", "uninstall", "--quiet", "--python", str(self.python), distribution]
            )

    def probe(self, *, framework: bool = False) -> dict[str, Any]:
        """What the venv gives; ``framework=True`` also runs pydantic-ai (~2 s of imports)."""
        argv = [str(self.python), "-c", PROBE, *(["--framework"] if framework else [])]
        result: dict[str, Any] = json.loads(self.run(argv))
        return result

    def doctor(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.python), "-m", "ag_ui", "doctor", *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=300,
            check=False,
        )


@pytest.fixture
def venv_factory(tmp_path: Path) -> Any:
    def make(installer: str) -> Venv:
        return Venv(tmp_path / f"venv-{installer}", installer)

    return make


def sdk() -> str:
    return str(sdk_wheel())


def assert_working(
    probe: dict[str, Any], *, protocol: str | None = "1.0.0", framework: bool = True
) -> None:
    assert probe["sdk"] == "ok", probe
    assert probe["core_is_sdk"] is True, probe
    assert probe["protocol_version"] == protocol, probe
    if framework:
        assert probe["framework"] == FRAMEWORK_OK, probe


def repair_by_the_message(venv: Venv, probe: dict[str, Any]) -> None:
    """The error is loud and names its fix; running that exact command repairs the venv."""
    message = probe["sdk"]
    assert message.startswith("SharedFilesError: ag-ui-sdk: "), probe
    command = message.split("Repair with: ", 1)[1].split(" (`agui doctor`", 1)[0]
    for step in command.split(" && "):
        venv.run(shlex.split(step))


def settle(venv: Venv) -> None:
    """After an install that writes both wheels: pip is ordered (working); uv writes wheels in
    parallel, so either this SDK's files or the official ones land last: working, or loud and
    repaired by the command the error names."""
    probe = venv.probe()
    if venv.installer == "uv" and probe["sdk"] != "ok":
        repair_by_the_message(venv, probe)
        probe = venv.probe()
    assert probe["sdk"] == "ok", probe


INSTALLERS = ["pip", "uv"]


@pytest.mark.parametrize("installer", INSTALLERS)
def test_a_sdk_then_a_framework(venv_factory: Any, installer: str) -> None:
    venv = venv_factory(installer)
    venv.install(sdk())  # pulls ag-ui-protocol as a dependency
    settle(venv)
    venv.install(PYDANTIC_AI)  # ag-ui-protocol already satisfied: nothing shared is touched
    assert_working(venv.probe(framework=True))


@pytest.mark.parametrize("installer", INSTALLERS)
def test_b_a_framework_then_the_sdk(venv_factory: Any, installer: str) -> None:
    venv = venv_factory(installer)
    venv.install(PYDANTIC_AI)
    venv.install(sdk())
    assert_working(venv.probe(framework=True))


def test_c_both_in_one_pip_install(venv_factory: Any) -> None:
    # pip installs a dependency before its dependents: ag-ui-protocol, then this SDK.
    venv = venv_factory("pip")
    venv.install(sdk(), PYDANTIC_AI)
    assert_working(venv.probe(framework=True))


def test_f_both_in_one_uv_install_is_working_or_loud(venv_factory: Any) -> None:
    # uv writes wheels in parallel, in no fixed order: either outcome must be clean.
    venv = venv_factory("uv")
    venv.install(sdk(), PYDANTIC_AI)
    settle(venv)
    assert_working(venv.probe(framework=True))


@pytest.mark.parametrize("installer", INSTALLERS)
def test_d_a_later_downgrade_of_ag_ui_protocol_is_loud_and_repairable(
    venv_factory: Any, installer: str
) -> None:
    venv = venv_factory(installer)
    venv.install(sdk(), PYDANTIC_AI)
    settle(venv)
    venv.install(OLD_OFFICIAL)  # replaces 1.0.0: deletes the shared files, writes 0.1.22's
    probe = venv.probe()
    assert probe["core_is_sdk"] is False  # the framework now runs on the official 0.1.22
    repair_by_the_message(venv, probe)
    assert_working(venv.probe(framework=True), protocol="0.1.22")


def test_d_a_framework_pinning_an_old_ag_ui_protocol_is_loud_and_repairable(
    venv_factory: Any,
) -> None:
    # agent-framework-ag-ui 1.7.0 pins ag-ui-protocol<0.2: pip downgrades 1.0.0 to 0.1.22.
    venv = venv_factory("uv")
    venv.install(sdk())
    settle(venv)
    venv.install(AGENT_FRAMEWORK)
    probe = venv.probe()
    repair_by_the_message(venv, probe)
    assert_working(venv.probe(), protocol="0.1.22", framework=False)
    venv.run([str(venv.python), "-c", "import agent_framework_ag_ui"])  # its import still works


@pytest.mark.parametrize("installer", INSTALLERS)
def test_e_uninstalling_ag_ui_protocol_is_loud_and_repairable(
    venv_factory: Any, installer: str
) -> None:
    venv = venv_factory(installer)
    venv.install(sdk(), PYDANTIC_AI)
    settle(venv)
    venv.uninstall("ag-ui-protocol")  # deletes the shared files, ours included
    probe = venv.probe()
    assert "missing" in probe["sdk"], probe
    repair_by_the_message(venv, probe)  # reinstalls ag-ui-protocol, then this SDK's files
    assert_working(venv.probe(framework=True))


def test_e_uninstalling_the_sdk_leaves_a_loud_gap_that_reinstalling_the_official_fills(
    venv_factory: Any,
) -> None:
    # Uninstalling ag-ui-sdk deletes the shared files too; nothing of this SDK is left to
    # explain it, so the framework's import fails plainly. README documents the fix.
    venv = venv_factory("pip")
    venv.install(sdk(), PYDANTIC_AI)
    venv.uninstall("ag-ui-sdk")
    probe = venv.probe(framework=True)
    assert probe["core_is_sdk"] is not True, probe
    assert probe["framework"] != FRAMEWORK_OK, probe
    venv.install("ag-ui-protocol", extra=("--force-reinstall", "--no-deps"))
    probe = venv.probe(framework=True)
    assert probe["framework"] == FRAMEWORK_OK, probe
    assert probe["sdk"].startswith("ModuleNotFoundError"), probe  # ours is gone, cleanly


def test_doctor_reports_the_owner_of_each_file_and_fix_repairs(venv_factory: Any) -> None:
    venv = venv_factory("pip")
    venv.install(sdk())
    venv.install("ag-ui-protocol==1.0.0", extra=("--force-reinstall", "--no-deps"))
    broken = venv.doctor("--output", "json")
    assert broken.returncode == 1, broken.stderr
    report = json.loads(broken.stdout)
    assert set(report["shared_files"].values()) <= {"official", "both"}
    assert report["shared_files"]["ag_ui/core/events.py"] == "official"
    assert report["file_owners"]["ag-ui-protocol only"] > 0  # ag_ui/_generated/...
    assert "Traceback" not in broken.stdout + broken.stderr
    text = venv.doctor()
    assert "ag_ui/core/events.py" in text.stdout, text.stdout
    assert "FIX: " in text.stdout, text.stdout
    fixed = venv.doctor("--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "no problem found" in fixed.stdout
    assert venv.doctor().returncode == 0
    assert_working(venv.probe(), framework=False)


def test_g_an_editable_install_beside_ag_ui_protocol_uses_the_source(
    venv_factory: Any, tmp_path: Path
) -> None:
    # The source tree copied (the editable build writes into it), with its built extension.
    repo = Path(__file__).resolve().parents[2]
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in"):
        (checkout / name).write_bytes((repo / name).read_bytes())
    subprocess.run(["cp", "-a", str(repo / "src"), str(checkout / "src")], check=True)
    venv = venv_factory("pip")
    venv.install(PYDANTIC_AI)  # ag-ui-protocol 1.0.0 in site-packages first
    venv.install("-e", str(checkout))
    assert_working(venv.probe(framework=True))
    where = venv.run([str(venv.python), "-c", "import ag_ui.core; print(ag_ui.core.__file__)"])
    assert where.strip() == str(checkout / "src" / "ag_ui" / "core" / "__init__.py")
