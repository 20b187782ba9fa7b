"""Starting a framework app in its venv: uvicorn on 127.0.0.1 in a subprocess.

``FrameworkServer(name, sdk)`` binds a free port itself, hands the listening socket to the
child (no probe-then-bind race), waits for ``GET /health`` and exposes ``url`` (the AG-UI
endpoint, ``.../agent``). ``stop()`` terminates the child and waits for it.
"""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.frameworks.venvs import Sdk, framework_venv

APPS = Path(__file__).resolve().parent / "apps"
APP_MODULES = {
    "pydantic-ai": "pydantic_ai_app.py",
    "langgraph": "langgraph_app.py",
}
START_TIMEOUT = 60.0


class FrameworkServer:
    def __init__(self, name: str, sdk: Sdk = "ours") -> None:
        if name not in APP_MODULES:
            raise ValueError(f"no app for {name!r}; apps: {', '.join(APP_MODULES)}")
        python = framework_venv(name, sdk)
        self.name, self.sdk = name, sdk
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(128)
        port = self._socket.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.url = f"{self.base}/agent"
        fd = self._socket.fileno()
        # A file, not a pipe: a chatty app never blocks on a full pipe nobody reads.
        self._log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - closed in stop()
        self._process = subprocess.Popen(
            [str(python), str(APPS / APP_MODULES[name]), "--fd", str(fd)],
            pass_fds=(fd,),
            cwd=APPS,
            stderr=self._log,
        )
        self._wait_healthy()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"{self.name} app ({self.sdk}) exited:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.base}/health", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.name} app ({self.sdk}) not healthy after {START_TIMEOUT}s")

    def stop(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)
        self._log.close()
        self._socket.close()

    def log(self) -> str:
        """What the app wrote to stderr so far."""
        self._log.seek(0)
        return self._log.read()
