"""The one streaming response every endpoint sends: a 200 event stream fed by a producer.

``stream_response(receive, send, produce, ...)`` sends the headers, then runs, in one task group:

* ``produce(put)``: whatever makes the frames (the agent of a request-bound run, a reader of a
  stored run), handing each encoded chunk to ``put``;
* the writer loop: takes everything queued in the ``Outbox`` and writes it in one send;
* keepalive comments after ``keepalive`` seconds of silence (when the format has them);
* the disconnect watch: the client leaving cancels the group, the producer included.

It returns when the producer is done and everything it queued was written, or as soon as the
client is gone. What the producer does on cancellation is its own business (a bound run's agent
is cancelled with it; a stored run's reader just stops reading, the run goes on).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Optional

import anyio
from starlette.types import Message, Receive, Send

from ag_ui.core._aiter import closing
from ag_ui.encoder import EventEncoder
from ag_ui.server._outbox import Outbox

__all__ = ["Producer", "Put", "Writer", "pump", "stream_response", "watch_disconnect"]

Put = Callable[[bytes], Awaitable[None]]
"""Queue one encoded chunk for the response (waits only while the outbox is full)."""

Producer = Callable[[Put], Awaitable[None]]
"""Makes a response's frames: called once with ``put``; the response ends when it returns."""


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
    """Cancel ``scope`` (the producer included) as soon as the client disconnects."""
    while True:
        message: Message = await receive()
        if message["type"] == "http.disconnect":
            writer.disconnected = True
            scope.cancel()
            return


def pump(frames: AsyncIterator[bytes]) -> Producer:
    """A producer that puts every chunk of ``frames`` (closed at the end, also on cancel)."""

    async def produce(put: Put) -> None:
        async with closing(frames) as source:
            async for chunk in source:
                await put(chunk)

    return produce


async def stream_response(
    receive: Receive,
    send: Send,
    produce: Producer,
    *,
    encoder: EventEncoder,
    keepalive: Optional[float],
    headers: Optional[dict[str, str]] = None,
) -> None:
    """Send a 200 event-stream response (``encoder``'s content type, plus ``headers``) made of
    what ``produce`` puts, with keepalives, until it returns or the client leaves."""
    raw_headers = [
        (b"content-type", encoder.get_binary_content_type().encode("latin-1")),
        (b"cache-control", b"no-cache"),
        (b"x-accel-buffering", b"no"),
    ]
    raw_headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": 200, "headers": raw_headers})
    writer = Writer(send)
    outbox = Outbox()

    async def run_producer() -> None:
        try:
            await produce(outbox.put)
        finally:
            outbox.close()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watch_disconnect, receive, writer, tasks.cancel_scope)
        tasks.start_soon(run_producer)
        comment = encoder.encode_keepalive()
        if keepalive is not None and comment:
            tasks.start_soon(writer.keep_alive, keepalive, comment)
        while (chunk := await outbox.take()) is not None:
            if not await writer.write(chunk):
                break
        tasks.cancel_scope.cancel()  # the producer is done (or the client left): stop every task
    if not writer.disconnected:
        await writer.finish()
