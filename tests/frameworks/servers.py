"""Starting a framework app in its venv: uvicorn on 127.0.0.1 in a subprocess.

``FrameworkServer(name, sdk)`` starts the app through ``tests.support.servers.serve_process``
(the listening socket is bound here and handed to the child: no probe-then-bind race), waits
until it answers and exposes ``url`` (the AG-UI endpoint, ``.../agent``). ``stop()``
terminates the child and waits for it.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from pathlib import Path

from tests.frameworks.venvs import Sdk, framework_venv
from tests.support.servers import FD, serve_process

APPS = Path(__file__).resolve().parent / "apps"
APP_MODULES = {
    "pydantic-ai": "pydantic_ai_app.py",
    "langgraph": "langgraph_app.py",
    "starlette": "starlette_app.py",  # a plain endpoint, as framework integrations write them
}
# Apps without a framework of their own run in a framework's venv (which has Starlette).
APP_VENVS = {"starlette": "pydantic-ai"}
START_TIMEOUT = 60.0


class FrameworkServer:
    def __init__(self, name: str, sdk: Sdk = "ours", *, module: str = "") -> None:
        if name not in APP_MODULES:
            raise ValueError(f"no app for {name!r}; apps: {', '.join(APP_MODULES)}")
        module = module or APP_MODULES[name]  # another app of the same framework venv
        python = framework_venv(APP_VENVS.get(name, name), sdk)
        self.name, self.sdk = name, sdk
        # A file, not a pipe: a chatty app never blocks on a full pipe nobody reads.
        self._log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - closed in stop()
        self._running = ExitStack()
        command = [str(python), str(APPS / module), "--fd", FD]
        try:
            self.base = self._running.enter_context(
                serve_process(command, cwd=APPS, stderr=self._log, start_timeout=START_TIMEOUT)
            )
        except RuntimeError as exc:
            log = self.log()
            self.stop()
            raise RuntimeError(f"{self.name} app ({self.sdk}): {exc}\n{log}") from None
        self.url = f"{self.base}/agent"

    def stop(self) -> None:
        self._running.close()
        self._log.close()

    def log(self) -> str:
        """What the app wrote to stderr so far."""
        self._log.seek(0)
        return self._log.read()
