"""The one streaming response every endpoint sends: a 200 event stream fed by a producer.

``stream_response(receive, send, produce, ...)`` sends the headers, then runs ``produce(put)``
(whatever makes the frames: the agent of a request-bound run, a reader of a stored run) in a
task of its own, beside two helper tasks:

* the disconnect watch: the client leaving cancels the producer;
* keepalive comments after ``keepalive`` seconds of silence (when the format has them).

``put`` hands a chunk straight to ``send`` from the producer's task: one hop per event, no
queue, no switch to a writer task, which matters for an agent relaying a model's tokens (it
awaits between them, so nothing can be batched). Chunks put later in the same turn of the
event loop (an agent yielding without awaiting) are queued and leave together (``Writer``);
while a send waits for the socket (a slow client), the producer waits with it (backpressure).

It returns when the producer is done and everything it put was written, or as soon as the
client is gone. What the producer does on cancellation is its own business (a bound run's agent
is cancelled with it; a stored run's reader just stops reading, the run goes on).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Optional

import anyio
from starlette.types import Message, Receive, Send

from ag_ui.core._aiter import closing
from ag_ui.encoder import EventEncoder

__all__ = ["Producer", "Put", "Writer", "pump", "stream_response", "watch_disconnect"]

Put = Callable[[bytes], Awaitable[None]]
"""Write one encoded chunk of the response (waits only while the socket is behind)."""

Producer = Callable[[Put], Awaitable[None]]
"""Makes a response's frames: called once with ``put``; the response ends when it returns."""

HIGH_WATER = 64 * 1024
"""Bytes queued behind a send that waits for the socket before ``put`` makes its caller wait."""


class Writer:
    """Writes a response's chunks to ``send`` and remembers when it last wrote.

    The first chunk put in a turn of the event loop goes straight to ``send`` from the
    producer's task. Chunks put in the same turn after it (an agent yielding without awaiting)
    are queued and leave together: in one send when ``HIGH_WATER`` bytes have piled up, else
    from the sender task (``run_sender``) as soon as the producer lets the loop turn. While a
    send waits for the socket (a slow client), chunks are queued too, the send under way takes
    them along, and past ``HIGH_WATER`` queued bytes the producer waits (backpressure).

    Plain asyncio, no lock and no event per chunk: a send under way is a flag, a waiting task a
    future (ASGI servers run on asyncio: uvicorn, hypercorn, granian). A send failing with
    ``OSError`` (the client is gone) cancels ``scope``, the producer's.
    """

    def __init__(self, send: Send, scope: Optional[anyio.CancelScope] = None) -> None:
        self._send = send
        self._scope = scope
        self._loop = asyncio.get_running_loop()
        self._queued: list[bytes] = []
        self._queued_size = 0
        self._busy = False  # a send is under way
        self._same_turn = False  # something was put in this turn of the loop
        self._room: Optional[asyncio.Future[None]] = None  # the producer waits for room
        self._idle: Optional[asyncio.Future[None]] = None  # ``flush`` waits for the send
        self._wakeup: Optional[asyncio.Future[None]] = None  # the sender task waits for work
        self.last_write = self._loop.time()
        self.disconnected = False

    async def put(self, body: bytes) -> None:
        """Write ``body`` (the producer's ``put``); once the client is gone, a checkpoint where
        the producer's cancellation arrives."""
        if not (self._busy or self._same_turn or self.disconnected or self._queued):
            # The common case, a turn's first event with nothing queued: sent right here (what
            # ``_write`` does, without its frame; nobody else can send while this one runs
            # unless ``send`` waits for the socket, hence the flag).
            self._same_turn = True
            self._loop.call_soon(self._turn_ended)
            self._busy = True
            try:
                await self._send({"type": "http.response.body", "body": body, "more_body": True})
            except OSError:  # uvicorn's ClientDisconnected and plain socket errors
                self.gone()
                return
            finally:
                self._busy = False
                if self._idle is not None:
                    _wake(self._idle)
                    self._idle = None
            self.last_write = self._loop.time()
            return
        if not (self._busy or self._same_turn or self.disconnected):
            self._same_turn = True
            self._loop.call_soon(self._turn_ended)
            self._queued.append(body)  # left from an earlier turn: it goes first, with this
            await self._write(self._take())
            return
        if self.disconnected:
            await anyio.lowlevel.checkpoint()
            return
        self._queued.append(body)
        self._queued_size += len(body)
        while self._queued_size >= HIGH_WATER and not self.disconnected:
            if not self._busy:  # a batch is full: it leaves now
                await self._write(self._take())
            else:  # the send under way takes it along when the socket lets it
                self._room = room = self._loop.create_future()
                await room

    def _turn_ended(self) -> None:
        """The loop turned since the first put: what was queued after it goes now."""
        self._same_turn = False
        if self._queued and not self._busy and self._wakeup is not None:
            _wake(self._wakeup)
            self._wakeup = None

    def _take(self) -> bytes:
        body = b"".join(self._queued)
        self._queued.clear()
        self._queued_size = 0
        if self._room is not None:
            _wake(self._room)
            self._room = None
        return body

    async def _write(self, body: bytes) -> None:
        """Send ``body``, then whatever was queued meanwhile, until nothing is left."""
        self._busy = True
        try:
            while True:
                try:
                    message = {"type": "http.response.body", "body": body, "more_body": True}
                    await self._send(message)
                except OSError:  # uvicorn's ClientDisconnected and plain socket errors
                    self.gone()
                    return
                self.last_write = self._loop.time()
                if not self._queued or self._same_turn:
                    return  # (what the producer queues in this turn leaves with the next)
                body = self._take()
        finally:
            self._busy = False
            if self._idle is not None:
                _wake(self._idle)
                self._idle = None

    def gone(self) -> None:
        """The client left: no more writes; the producer is cancelled."""
        self.disconnected = True
        if self._room is not None:
            _wake(self._room)
            self._room = None
        if self._scope is not None:
            self._scope.cancel()

    async def flush(self) -> None:
        """Wait until every chunk put so far was sent (or the client is gone)."""
        while (self._busy or self._queued) and not self.disconnected:
            if self._busy:
                self._idle = idle = self._loop.create_future()
                await idle
            else:
                await self._write(self._take())

    async def run_sender(self, keepalive: Optional[float], comment: bytes) -> None:
        """The sender task: sends what the producer queued once the loop turned, and
        ``comment`` whenever nothing was written for ``keepalive`` seconds (``None``: never)."""
        loop = self._loop
        while not self.disconnected:
            if self._queued and not (self._busy or self._same_turn):
                await self._write(self._take())  # queued while this task's own send waited
                continue
            self._wakeup = wakeup = loop.create_future()
            timer = None
            if keepalive is not None:
                due = self.last_write + keepalive
                if due <= loop.time():  # silent but a send is under way: not idle yet
                    due = loop.time() + keepalive
                timer = loop.call_at(due, _wake, wakeup)
            try:
                await wakeup
            finally:
                self._wakeup = None
                if timer is not None:
                    timer.cancel()
            if self._busy or self.disconnected or self._queued:
                continue  # the send under way takes the queue along, or the loop's top does
            if keepalive is not None and loop.time() - self.last_write >= keepalive:
                await self._write(comment)

    async def finish(self) -> None:
        try:
            await self._send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            self.disconnected = True


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


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
    # Plain asyncio tasks, not an anyio task group: anyio runs each of its tasks inside a
    # wrapper coroutine, one more frame for the loop to resume every time the agent awaits.
    # The producer's cancel scope keeps anyio's cancellation semantics for the agent (its
    # ``finally`` blocks, ``run_is_cancelled``, shielded cleanup).
    scope = anyio.CancelScope()
    writer = Writer(send, scope)

    async def run_producer() -> None:
        with scope:
            await produce(writer.put)
            await writer.flush()

    loop = asyncio.get_running_loop()
    # The producer gets a task of its own, whose puts reach ``send`` without a task switch.
    # Not this task: each time the agent awaits, a task's whole await chain is resumed, frame
    # by frame, and this one's runs through the ASGI server, every middleware, the router and
    # the endpoint.
    producer = loop.create_task(run_producer())
    comment = encoder.encode_keepalive()
    helpers = [
        loop.create_task(watch_disconnect(receive, writer, scope)),
        loop.create_task(writer.run_sender(keepalive if comment else None, comment)),
    ]
    try:
        await asyncio.wait([producer])
    finally:
        # The producer is done, the client left, or this request is being cancelled: the
        # producer is stopped (and waited for, its cleanup is bounded), the helpers with it.
        if not producer.done():
            scope.cancel()
        for helper in helpers:
            helper.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.wait([producer, *helpers])
    producer.result()  # the producer's own failure, if any, is this response's
    if not writer.disconnected:
        await writer.finish()
