"""Framework venvs and this SDK's wheel, built once and reused while nothing they depend on changed.

* ``sdk_wheel()`` builds ``ag-ui-sdk``'s wheel from the checkout into
  ``.cache/sdk-wheel/<source hash>/`` (the hash covers ``src``, ``pyproject.toml`` and
  ``setup.py``), so every test session and every venv installs the same file.
* ``framework_venv(name, sdk)`` is ``.venv-fw-<name>`` (``sdk="official"``: the pinned
  requirements in ``requirements/<name>.txt`` exactly, with ``ag-ui-protocol`` as the
  framework resolved it) or ``.venv-fw-<name>-ours`` (the same, then this SDK's wheel installed
  on top, so its ``ag_ui.core`` and ``ag_ui.encoder`` replace the official ones). A stamp file
  records what a venv was built from; it is rebuilt only when that changes.

uv does the work (``uv`` comes with the ``dev`` extra): creating and filling a venv from its
cache takes about a second. ``python -m tests.frameworks.venvs`` builds them all (what the
framework block of ``scripts/test`` runs).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Literal

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "requirements"
FRAMEWORKS = ("pydantic-ai", "langgraph", "agent-framework", "official-0x")
SERVED = ("pydantic-ai", "langgraph")  # the apps; the other two are older client-side peers
Sdk = Literal["ours", "official"]


def uv() -> str:
    """The uv binary of the project venv (the ``dev`` extra), else one on PATH."""
    local = Path(sys.executable).parent / "uv"
    found = str(local) if local.exists() else shutil.which("uv")
    if not found:
        raise RuntimeError("uv is missing: run scripts/test (it installs the 'dev' extra)")
    return found


def base_python() -> str:
    """The interpreter venvs are made from (the one the suite runs on)."""
    return getattr(sys, "_base_executable", sys.executable)


def source_hash() -> str:
    digest = hashlib.sha256()
    files = [REPO / "pyproject.toml", REPO / "setup.py", REPO / "README.md"]
    files += sorted(p for p in (REPO / "src").rglob("*") if p.is_file() and _is_source(p))
    for path in files:
        digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _is_source(path: Path) -> bool:
    return "__pycache__" not in path.parts and path.suffix not in (".so", ".pyd", ".pyc")


def sdk_wheel() -> Path:
    """This checkout's wheel, built once per source state."""
    target = REPO / ".cache" / "sdk-wheel" / source_hash()
    built = sorted(target.glob("ag_ui_sdk-*.whl"))
    if built:
        return built[0]
    if target.parent.exists():
        shutil.rmtree(target.parent)  # one wheel kept: the current source's
    target.mkdir(parents=True)
    env = {**os.environ, "AG_UI_REQUIRE_SPEEDUPS": "1"}
    run([uv(), "build", "--wheel", "--quiet", "--out-dir", str(target), str(REPO)], env=env)
    return sorted(target.glob("ag_ui_sdk-*.whl"))[0]


def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return done  # type: ignore[no-any-return]


def venv_dir(name: str, sdk: Sdk) -> Path:
    return REPO / (f".venv-fw-{name}" + ("-ours" if sdk == "ours" else ""))


def framework_venv(name: str, sdk: Sdk = "ours") -> Path:
    """The Python of the framework's venv, (re)built if its inputs changed."""
    if name not in FRAMEWORKS:
        raise ValueError(f"unknown framework {name!r}; known: {', '.join(FRAMEWORKS)}")
    requirements = REQUIREMENTS / f"{name}.txt"
    venv = venv_dir(name, sdk)
    python = venv / "bin" / "python"
    wheel = sdk_wheel() if sdk == "ours" else None
    stamp_text = requirements.read_text() + (
        f"\nsdk: {wheel.name} {wheel.parent.name}" if wheel else ""
    )
    stamp = venv / ".built-from"
    if python.exists() and stamp.exists() and stamp.read_text() == stamp_text:
        return python
    if venv.exists():
        shutil.rmtree(venv)
    run([uv(), "venv", "--quiet", "--python", base_python(), str(venv)])
    run([uv(), "pip", "install", "--quiet", "--python", str(python), "-r", str(requirements)])
    if wheel is not None:
        # Installed last and without touching the framework's pins: our shared files win.
        run(
            [
                uv(),
                "pip",
                "install",
                "--quiet",
                "--python",
                str(python),
                "--no-deps",
                "--reinstall-package",
                "ag-ui-sdk",
                str(wheel),
            ]
        )
        run([str(python), "-c", "import ag_ui.verify"])  # the integrity check passes
    stamp.write_text(stamp_text)
    return python


def main() -> int:
    for name in FRAMEWORKS:
        for sdk in ("official", "ours") if name in SERVED else ("official",):
            python = framework_venv(name, sdk)  # type: ignore[arg-type]
            print(f"{python.parent.parent.name}: ready")
    return 0


if __name__ == "__main__":
    sys.exit(main())
