"""The listening socket of a command that serves (`agui demo`, `agui serve`, `agui replay`,
`agui inspect`).

Bound before the server starts, so the address printed is one that already accepts connections
and a port that is taken is one line on stderr, not a traceback from inside uvicorn.
"""

from __future__ import annotations

import socket

__all__ = ["agent_url", "listen"]


def listen(host: str, port: int) -> socket.socket:
    """A non-blocking listening socket on ``host:port`` (``port`` 0: a free one); a
    ``ValueError`` naming the address and the reason when it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def agent_url(host: str, sock: socket.socket, path: str = "agent") -> str:
    """``http://host:port/path`` of the agent served on ``sock`` (IPv6 hosts in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{sock.getsockname()[1]}/{path.strip('/')}"
