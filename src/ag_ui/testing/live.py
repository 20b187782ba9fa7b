"""``serve(app)``: an ASGI app on a real uvicorn at 127.0.0.1, on a free port, for a block.

For tests that need a socket: a browser, the TypeScript client, ``agui`` in a subprocess, a
proxy. The server runs in a thread (its own event loop), so it works from sync and async tests.

>>> from ag_ui.demo import create_demo_app
>>> with serve(create_demo_app()) as server:  # doctest: +SKIP
...     print(server.url + "/agent")
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

__all__ = ["LiveServer", "serve"]

_START_TIMEOUT = 10.0


class LiveServer:
    """uvicorn serving ``app`` from a background thread; ``url`` is ``http://127.0.0.1:<port>``."""

    def __init__(
        self,
        app: Any,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        lifespan: Literal["auto", "on", "off"] = "auto",
        log_level: str = "warning",
    ) -> None:
        try:
            import uvicorn
        except ImportError as exc:
            raise ImportError(
                "serve() needs uvicorn: install the server extra (pip install 'ag-ui-sdk[server]')"
            ) from exc
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
        except OSError as exc:
            self._socket.close()
            raise OSError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
        self._socket.listen(128)
        self.host = host
        self.port: int = self._socket.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}"
        config = uvicorn.Config(
            app, log_level=log_level, lifespan=lifespan, timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        # uvicorn installs signal handlers only on the main thread; this one runs elsewhere.
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def agent_url(self, path: str = "/agent") -> str:
        return self.url + "/" + path.lstrip("/")

    def start(self) -> LiveServer:
        self._thread.start()
        deadline = time.monotonic() + _START_TIMEOUT
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"uvicorn did not start on {self.url} within {_START_TIMEOUT} s")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()


@contextmanager
def serve(app: Any, **options: Any) -> Iterator[LiveServer]:
    """Serve ``app`` for the block (``LiveServer`` options: host, port, lifespan, log_level)."""
    with LiveServer(app, **options) as server:
        yield server
