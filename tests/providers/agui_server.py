"""Real uvicorn servers on 127.0.0.1 in a background thread: ``UvicornThread`` for any ASGI app
(the fake provider uses it), ``AgentServer`` for an AG-UI endpoint (``create_app(agent)``)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn

from ag_ui.server import create_app


class UvicornThread:
    """``app`` served on a port the OS picks (the socket is bound before uvicorn starts)."""

    def __init__(self, app: Any, **config: Any) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port = int(self._sock.getsockname()[1])
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="critical", **config))
        self._thread = threading.Thread(target=self._server.run, args=([self._sock],), daemon=True)

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


class AgentServer:
    """``with AgentServer(agent) as server:``; ``server.url`` is the ``POST /agent`` URL."""

    def __init__(self, agent: Any, **options: Any) -> None:
        app = create_app(agent, **options)
        endpoint_lifespan = app.router.lifespan_context

        @asynccontextmanager
        async def lifespan(app: Any) -> AsyncIterator[None]:
            # The provider's HTTP client lives on this server's event loop: close it here.
            async with endpoint_lifespan(app):
                try:
                    yield
                finally:
                    if hasattr(agent, "aclose"):
                        await agent.aclose()

        app.router.lifespan_context = lifespan
        self._uvicorn = UvicornThread(app)
        self.url = f"http://127.0.0.1:{self._uvicorn.port}/agent"

    def __enter__(self) -> AgentServer:
        self._uvicorn.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._uvicorn.stop()
