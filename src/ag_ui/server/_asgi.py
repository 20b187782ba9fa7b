"""ASGI plumbing shared by the run and connect endpoints: a response writer that notices a
vanished client, the disconnect watcher, body reading and JSON answers."""

from __future__ import annotations

from typing import Optional, TypeVar

import anyio
from starlette.types import Message, Receive, Send

from ag_ui.core.errors import RequestRejectedError
from ag_ui.server._request import error_body, too_large

__all__ = ["Writer", "read_body", "send_error", "send_json", "watch_disconnect"]

_T = TypeVar("_T")


class Writer:
    """Writes response chunks, remembers when it last wrote, and notices a vanished client."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._lock = anyio.Lock()
        self.last_write = anyio.current_time()
        self.disconnected = False

    async def write(self, body: bytes) -> bool:
        """Send one chunk; ``False`` once the client is gone."""
        if self.disconnected:
            return False
        async with self._lock:
            try:
                await self._send({"type": "http.response.body", "body": body, "more_body": True})
            except OSError:  # uvicorn's ClientDisconnected and plain socket errors
                self.disconnected = True
                return False
            self.last_write = anyio.current_time()
        return True

    async def keep_alive(self, interval: float, comment: bytes) -> None:
        """Send ``comment`` whenever nothing was written for ``interval`` seconds."""
        while True:
            idle = anyio.current_time() - self.last_write
            if idle >= interval:
                if not await self.write(comment):
                    return
                continue
            await anyio.sleep(interval - idle)

    async def finish(self) -> None:
        async with self._lock:
            try:
                await self._send({"type": "http.response.body", "body": b"", "more_body": False})
            except OSError:
                self.disconnected = True


async def watch_disconnect(receive: Receive, writer: Writer, scope: anyio.CancelScope) -> None:
    """Cancel the run (the agent included) as soon as the client disconnects."""
    while True:
        message: Message = await receive()
        if message["type"] == "http.disconnect":
            writer.disconnected = True
            scope.cancel()
            return


async def read_body(receive: Receive, limit: int) -> Optional[bytes]:
    """The whole request body, or ``None`` if the client disconnected; 413 past ``limit``."""
    chunks: list[bytes] = []
    size = 0
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
