"""An httpx transport that calls an ASGI app in process and *streams* its response.

httpx's own ``ASGITransport`` collects the whole body before returning the response, so a test
cannot see events as they are produced, cancel a run in its middle, or notice a stall. This one
runs the app in a task, hands the response back as soon as it starts, and passes each body chunk
on as the app sends it. Closing the response tells the app the client left
(``http.disconnect``), as a real server does. The app's lifespan (startup/shutdown) runs while
the transport is open, so apps that need it (``create_app(..., store=...)``) work.

The transport owns tasks, so it must be entered: ``async with httpx.AsyncClient(transport=t)``
does that (``AgentClient`` does it for you).
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, MutableMapping
from typing import Any, Callable, Literal, Optional, Union

import anyio
import httpx
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from ag_ui.core._wire import IN_PROCESS_EXTENSION

__all__ = ["ASGIApp", "ASGIStreamTransport", "Lifespan"]

ASGIApp = Callable[..., Any]
"""Any ASGI 3 application: ``async def app(scope, receive, send)``."""

Lifespan = Union[bool, Literal["auto"]]

_BODY_BUFFER = 64  # chunks the app may send ahead of the reader (backpressure, like a socket)
_GRACE = 5.0  # seconds apps get to end after the transport closes, before they are cancelled

logger = logging.getLogger("ag_ui.testing")


class ClientDisconnected(OSError):
    """Raised into the app when it sends after the client left (uvicorn raises an OSError too,
    which servers, this SDK's included, take as the disconnect signal)."""


class ASGIStreamTransport(httpx.AsyncBaseTransport):
    """Serve httpx requests from ``app`` in process, streaming responses.

    ``lifespan``: ``"auto"`` (default) runs the app's lifespan if it has one, ``True`` requires
    it, ``False`` skips it. ``client`` is the peer address the app sees.

    >>> import httpx
    >>> from ag_ui.server import create_app
    >>> async def agent(run_input, ctx):
    ...     await ctx.say("hi")
    >>> transport = ASGIStreamTransport(create_app(agent))
    >>> # async with httpx.AsyncClient(transport=transport, base_url="http://agent") as http:
    >>> #     async with http.stream("POST", "/agent", json={...}) as response: ...
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        lifespan: Lifespan = "auto",
        client: tuple[str, int] = ("127.0.0.1", 50000),
        root_path: str = "",
    ) -> None:
        self.app = app
        self.lifespan = lifespan
        self.client = client
        self.root_path = root_path
        self._group: Optional[TaskGroup] = None
        self._tasks: Optional[TaskGroup] = None
        self._lifespan: Optional[_Lifespan] = None
        self._state: dict[str, Any] = {}
        self._open: set[_Exchange] = set()

    async def __aenter__(self) -> ASGIStreamTransport:
        if self._tasks is not None:
            raise RuntimeError("this ASGIStreamTransport is already open")
        group = anyio.create_task_group()
        tasks = await group.__aenter__()
        failure: Optional[BaseException] = None
        try:
            if self.lifespan:
                lifespan = _Lifespan(self.app, self._state, required=self.lifespan is True)
                self._lifespan = lifespan if await lifespan.start(tasks) else None
        except Exception as exc:
            failure = exc
        if failure is not None:
            # Leave the task group cleanly first, so the caller gets the error itself rather
            # than an exception group.
            tasks.cancel_scope.cancel()
            await group.__aexit__(None, None, None)
            raise failure
        self._group, self._tasks = group, tasks
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        group, tasks = self._group, self._tasks
        if group is None or tasks is None:
            return
        self._group = self._tasks = None
        try:
            # Every open response is told the client left; apps get a moment to end, then the
            # lifespan shuts down and whatever is still running is cancelled.
            self._disconnect_all()
            with anyio.move_on_after(_GRACE):
                while self._open:
                    await anyio.sleep(0.005)
            lifespan, self._lifespan = self._lifespan, None
            if lifespan is not None:
                with anyio.move_on_after(_GRACE):
                    await lifespan.shutdown()
        finally:
            tasks.cancel_scope.cancel()
            await group.__aexit__(*exc_info)

    async def aclose(self) -> None:
        await self.__aexit__(None, None, None)

    def _disconnect_all(self) -> None:
        for exchange in list(self._open):
            exchange.disconnect()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._tasks is None:
            raise RuntimeError(
                "ASGIStreamTransport is not open: use it inside `async with "
                "httpx.AsyncClient(transport=...)` (or `async with AgentClient(app)`)"
            )
        exchange = _Exchange(self, request)
        self._open.add(exchange)
        self._tasks.start_soon(exchange.run_app)
        await exchange.started.wait()
        if exchange.status is None:
            self._open.discard(exchange)
            assert exchange.error is not None
            raise exchange.error
        return httpx.Response(
            exchange.status,
            headers=exchange.headers,
            stream=_ResponseStream(exchange),
            request=request,
        )


class _Exchange:
    """One request/response between the client and the app."""

    def __init__(self, transport: ASGIStreamTransport, request: httpx.Request) -> None:
        self.transport = transport
        self.request = request
        self.status: Optional[int] = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.error: Optional[BaseException] = None
        self.complete = False
        self.started = anyio.Event()
        self.disconnected = anyio.Event()
        body_in: tuple[MemoryObjectSendStream[bytes], MemoryObjectReceiveStream[bytes]]
        body_in = anyio.create_memory_object_stream(_BODY_BUFFER)
        self.body_sender, self.body_receiver = body_in
        self._request_chunks: Optional[AsyncIterator[bytes]] = None
        self._request_done = False

    def scope(self) -> dict[str, Any]:
        url = self.request.url
        return {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": self.request.method,
            "headers": [(k.lower(), v) for k, v in self.request.headers.raw],
            "scheme": url.scheme,
            "path": url.path,
            "raw_path": url.raw_path.split(b"?")[0],
            "query_string": url.query,
            "server": (url.host, url.port or (443 if url.scheme == "https" else 80)),
            "client": self.transport.client,
            "root_path": self.transport.root_path,
            "state": dict(self.transport._state),
            # In process: no browser sends this request (the server's Host check skips it).
            "extensions": {IN_PROCESS_EXTENSION: {}},
        }

    def disconnect(self) -> None:
        self.disconnected.set()
        self.body_receiver.close()

    async def receive(self) -> dict[str, Any]:
        if not self._request_done:
            if self._request_chunks is None:
                stream = self.request.stream
                assert isinstance(stream, httpx.AsyncByteStream)
                self._request_chunks = stream.__aiter__()
            try:
                chunk = await self._request_chunks.__anext__()
            except StopAsyncIteration:
                self._request_done = True
                return {"type": "http.request", "body": b"", "more_body": False}
            return {"type": "http.request", "body": bytes(chunk), "more_body": True}
        await self.disconnected.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        if self.disconnected.is_set():
            raise ClientDisconnected("the client closed the response")
        kind = message["type"]
        if kind == "http.response.start":
            if self.status is not None:
                raise RuntimeError("the app sent http.response.start twice")
            self.status = int(message["status"])
            self.headers = [(bytes(k), bytes(v)) for k, v in message.get("headers", [])]
            self.started.set()
        elif kind == "http.response.body":
            if self.status is None:
                raise RuntimeError("the app sent a body before http.response.start")
            if self.complete:
                raise RuntimeError("the app sent a body after the response was complete")
            body = bytes(message.get("body", b""))
            try:
                if body:
                    await self.body_sender.send(body)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                raise ClientDisconnected("the client closed the response") from None
            if not message.get("more_body", False):
                self.complete = True
                self.body_sender.close()

    async def run_app(self) -> None:
        try:
            await self.transport.app(self.scope(), self.receive, self.send)
        except Exception as exc:
            self.error = exc
            if not (isinstance(exc, OSError) and self.disconnected.is_set()):
                # What uvicorn does: the client sees a 500 or a cut body, the log the reason
                # (an app that fails to send after the client left is not worth a traceback).
                logger.error("exception in ASGI application", exc_info=exc)
        finally:
            self.body_sender.close()
            self.transport._open.discard(self)
            if self.status is None and self.error is None:
                self.error = httpx.RemoteProtocolError(
                    "the ASGI app returned without starting a response"
                )
            self.started.set()


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, exchange: _Exchange) -> None:
        self._exchange = exchange

    async def __aiter__(self) -> AsyncIterator[bytes]:
        exchange = self._exchange
        try:
            async for chunk in exchange.body_receiver:
                yield chunk
        except anyio.ClosedResourceError:
            return  # closed by this side
        if not exchange.complete:
            # What a client sees when a server dies or cuts the connection mid-body.
            cause = (
                f" ({type(exchange.error).__name__}: {exchange.error})" if exchange.error else ""
            )
            raise httpx.RemoteProtocolError(
                "peer closed connection without sending complete message body" + cause
            )

    async def aclose(self) -> None:
        self._exchange.disconnect()


class _Lifespan:
    """Drives the ASGI lifespan protocol: startup before the first request, shutdown at exit."""

    def __init__(self, app: ASGIApp, state: dict[str, Any], *, required: bool) -> None:
        self.app = app
        self.state = state
        self.required = required
        to_app = anyio.create_memory_object_stream[dict[str, Any]](math.inf)
        self._to_app_send, self._to_app_receive = to_app
        from_app = anyio.create_memory_object_stream[dict[str, Any]](math.inf)
        self._from_app_send, self._from_app_receive = from_app
        self._failure: Optional[BaseException] = None

    async def _run(self) -> None:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": self.state}
        try:
            await self.app(scope, self._to_app_receive.receive, self._from_app_send.send)
        except Exception as exc:
            self._failure = exc
        finally:
            self._from_app_send.close()

    async def _expect(self, phase: str) -> bool:
        """Wait for ``lifespan.<phase>.complete``; False when the app does no lifespan."""
        try:
            message = await self._from_app_receive.receive()
        except anyio.EndOfStream:
            if self.required:
                raise RuntimeError(
                    f"the app does not support the ASGI lifespan ({phase}): {self._failure}"
                ) from self._failure
            return False
        if message["type"] == f"lifespan.{phase}.failed":
            raise RuntimeError(f"the app's lifespan {phase} failed: {message.get('message', '')}")
        return True

    async def start(self, tasks: TaskGroup) -> bool:
        """Run the startup; False when the app has no lifespan (and it is not required)."""
        tasks.start_soon(self._run)
        await self._to_app_send.send({"type": "lifespan.startup"})
        return await self._expect("startup")

    async def shutdown(self) -> None:
        await self._to_app_send.send({"type": "lifespan.shutdown"})
        await self._expect("shutdown")
