"""Serve the inspector page on 127.0.0.1 (a free port unless one is given) until stopped."""

from __future__ import annotations

import os
import socket
import sys
import webbrowser
from typing import Optional, TextIO

from ag_ui.core._listen import listen
from ag_ui.inspect._app import create_inspector_app
from ag_ui.inspect._inspector import Inspector, InspectorError

__all__ = ["bind_loopback", "browser_available", "serve"]


def bind_loopback(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0: a free one)."""
    try:
        return listen("127.0.0.1", port)
    except ValueError as error:
        raise InspectorError(str(error)) from None


def browser_available() -> bool:
    """True when opening a page would show it to someone (not on a headless server)."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def serve(
    inspector: Inspector,
    *,
    port: int = 0,
    open_browser: bool = True,
    out: Optional[TextIO] = None,
) -> int:
    """Serve until Ctrl-C; prints the address first (and opens it when a browser is there)."""
    import uvicorn

    out = out or sys.stdout
    sock = bind_loopback(port)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    what = inspector.url or ", ".join(s.title for s in inspector.sessions.values())
    print(f"AG-UI inspector for {what} on {url} (Ctrl-C stops it)", file=out, flush=True)
    if open_browser and browser_available():
        webbrowser.open_new_tab(url)
    config = uvicorn.Config(
        create_inspector_app(inspector),
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=1,
    )
    uvicorn.Server(config).run(sockets=[sock])
    return 0
