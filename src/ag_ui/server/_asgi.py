"""ASGI plumbing shared by the endpoints: reading the request body and JSON answers (errors
included). The streaming response is in ``_response``."""

from __future__ import annotations

from typing import Optional

import anyio
from starlette.types import Receive, Send

from ag_ui.core.errors import RequestRejectedError
from ag_ui.server._request import body_timed_out, error_body, too_large

__all__ = ["read_body", "send_error", "send_json"]


async def read_body(
    receive: Receive, limit: int, timeout: Optional[float] = None
) -> Optional[bytes]:
    """The whole request body, or ``None`` if the client disconnected; 413 past ``limit``
    bytes, 408 when it has not all arrived after ``timeout`` seconds (``None``: no deadline)."""
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(timeout):
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise too_large(limit)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)
    # Only the deadline gets here: every other way out of the loop returns or raises.
    raise body_timed_out(timeout or 0.0)


async def send_json(
    send: Send, status: int, body: bytes, headers: Optional[dict[str, str]] = None
) -> None:
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-cache"),
    ]
    raw_headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def send_error(send: Send, rejection: RequestRejectedError) -> None:
    await send_json(send, rejection.status, error_body(rejection), rejection.headers)
