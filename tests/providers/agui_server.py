"""Real uvicorn servers on 127.0.0.1 in a background thread: ``UvicornThread`` for any ASGI app
(the fake provider uses it), ``AgentServer`` for an AG-UI endpoint (``create_app(agent)``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from typing import Any

from ag_ui.server import create_app
from tests.support.servers import listening_socket, serve


class UvicornThread:
    """``app`` served on a port the OS picks (the socket is bound before uvicorn starts, by
    ``tests.support.servers``); ``port`` is known before ``start()``."""

    def __init__(self, app: Any, **config: Any) -> None:
        self._sock = listening_socket()
        self.port = int(self._sock.getsockname()[1])
        self._app = app
        self._config = {"log_level": "critical", **config}
        self._running = ExitStack()

    def start(self) -> None:
        self._running.enter_context(serve(self._app, sock=self._sock, **self._config))

    def stop(self) -> None:
        self._running.close()


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
