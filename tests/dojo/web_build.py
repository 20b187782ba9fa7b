"""The dojo pages (``tests/dojo/web``), installed and built once, reused while nothing changed.

``npm ci`` runs when ``node_modules`` is missing or older than ``package-lock.json``; ``vite
build`` runs when the hash of the sources (the lock file, ``index.html``, ``vite.config.js``,
``server.mjs`` and ``src/``) differs from the stamp ``dist/.built-from`` left by the last build.
``python -m tests.dojo.web_build`` does both (what ``scripts/test`` runs); the browser tests call
``ensure_built()`` too, so a single test file run from a fresh clone still works.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

WEB = Path(__file__).resolve().parent / "web"
DIST = WEB / "dist"
STAMP = DIST / ".built-from"
_SOURCES = ("package-lock.json", "index.html", "vite.config.js", "server.mjs")


def source_hash() -> str:
    digest = hashlib.sha256()
    files = [WEB / name for name in _SOURCES] + sorted((WEB / "src").rglob("*"))
    for path in files:
        if path.is_file():
            digest.update(str(path.relative_to(WEB)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _run(*command: str) -> None:
    # No telemetry or install analytics from any package while installing or building.
    env = {**os.environ, "DO_NOT_TRACK": "1", "SCARF_ANALYTICS": "false"}
    env["COPILOTKIT_TELEMETRY_DISABLED"] = "true"
    done = subprocess.run(command, cwd=WEB, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed in {WEB}:\n{done.stdout}{done.stderr}")


def ensure_built() -> Path:
    """``dist/`` up to date with the sources; returns the web directory."""
    if shutil.which("npm") is None:
        raise RuntimeError("npm is missing: the dojo browser tests need Node.js 20.19+ and npm")
    # pytest-xdist workers may all get here at once: one installs and builds, the others wait.
    with open(WEB / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_and_build()
    return WEB


def _install_and_build() -> None:
    installed = WEB / "node_modules" / ".package-lock.json"
    if (
        not installed.exists()
        or installed.stat().st_mtime < (WEB / "package-lock.json").stat().st_mtime
    ):
        _run("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
    wanted = source_hash()
    if not (STAMP.exists() and STAMP.read_text() == wanted):
        _run("npm", "run", "--silent", "build")
        STAMP.write_text(wanted)


if __name__ == "__main__":
    ensure_built()
