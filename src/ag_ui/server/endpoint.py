"""ASGI endpoints that serve an agent over HTTP (Starlette, FastAPI, or any ASGI server).

>>> from ag_ui.server import AgentEndpoint, create_app
>>> async def agent(run_input, ctx):
...     await ctx.say("Hello!")
>>> app = create_app(agent)                     # standalone: POST /agent
>>> endpoint = AgentEndpoint(agent)             # or mount it yourself:
>>> # Starlette(routes=endpoint.routes("/agent"))
>>> # fastapi_app.router.routes.extend(endpoint.routes("/agent"))
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Optional, Union

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute, Route
from starlette.types import Message, Receive, Scope, Send

from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.errors import RequestRejectedError
from ag_ui.core.events import BaseEvent
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui.server._outbox import Outbox
from ag_ui.server._request import (
    DEFAULT_MAX_BODY_SIZE,
    check_content_type,
    check_declared_size,
    check_method,
    error_body,
    parse_body,
    too_large,
)
from ag_ui.server._runner import Agent, run_agent

__all__ = ["DEFAULT_KEEPALIVE", "AgentEndpoint", "Authorize", "CapabilitiesSource", "create_app"]

logger = logging.getLogger("ag_ui.server")

Authorize = Callable[[Request], Union[Any, Awaitable[Any]]]
"""A hook run before the body is read. Raise ``RequestRejectedError(401 or 403, ...)`` to refuse,
return ``False`` for a plain 403, or return anything else (available as ``ctx.auth``)."""

CapabilitiesSource = Union[
    AgentCapabilities, Callable[[], Union[AgentCapabilities, Awaitable[AgentCapabilities]]]
]

DEFAULT_KEEPALIVE = 15.0


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class AgentEndpoint:
    """Serves one agent: ``POST`` runs it and streams the events; see ``routes()``.

    Options:

    * ``capabilities``: an ``AgentCapabilities`` (or a function returning one, possibly async)
      served at ``GET <path>/capabilities``;
    * ``verify`` (default on): stop any event that breaks a sequence rule and end the run with
      ``RUN_ERROR`` naming the rule; ``verify=False`` sends what the agent produces as is (the
      RUN_STARTED/terminal/cleanup guarantees still hold);
    * ``debug``: put the exception type and text in ``RUN_ERROR.message`` (never in production);
    * ``keepalive``: seconds of silence before an SSE comment is sent (``None`` or ``0``: never);
    * ``max_body_size``: bytes (default 10 MiB), larger requests get 413;
    * ``authorize``: a hook (sync or async) given the Starlette ``Request`` before the body is
      read: raise ``RequestRejectedError`` (401/403) or return ``False`` (403) to refuse.
    """

    def __init__(
        self,
        agent: Agent,
        *,
        capabilities: Optional[CapabilitiesSource] = None,
        verify: bool = True,
        debug: bool = False,
        keepalive: Optional[float] = DEFAULT_KEEPALIVE,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        authorize: Optional[Authorize] = None,
    ) -> None:
        self.agent = agent
        self.capabilities = capabilities
        self.verify = verify
        self.debug = debug
        self.keepalive = keepalive if keepalive and keepalive > 0 else None
        self.max_body_size = max_body_size
        self.authorize = authorize

    def routes(self, path: str = "/agent") -> list[BaseRoute]:
        """Starlette routes: ``POST path`` and, with capabilities, ``GET path/capabilities``.

        Other methods reach the endpoint too, so they get the JSON 405 rather than a plain one.
        """
        routes: list[BaseRoute] = [Route(path, self)]
        if self.capabilities is not None:
            routes.append(Route(path.rstrip("/") + "/capabilities", self.capabilities_endpoint))
        return routes

    # -- the run endpoint ------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise RuntimeError(f"AgentEndpoint serves HTTP only, got a {scope['type']!r} scope")
        request = Request(scope)
        try:
            check_method(request.method, "POST")
            auth = await self._authorize(request)
            check_content_type(request.headers.get("content-type"))
            check_declared_size(request.headers, self.max_body_size)
            body = await _read_body(receive, self.max_body_size)
            if body is None:
                return  # the client left while sending
            run_input = parse_body(body)
        except RequestRejectedError as rejection:
            await _send_error(send, rejection)
            return
        await self._stream(request, receive, send, run_input, auth)

    async def _authorize(self, request: Request) -> Any:
        if self.authorize is None:
            return None
        try:
            verdict = await _maybe_await(self.authorize(request))
        except RequestRejectedError:
            raise
        except Exception:
            logger.exception("authorize hook failed")
            raise RequestRejectedError(
                500, "internal_error", "the authorization check failed; see the server log"
            ) from None
        if verdict is False:
            raise RequestRejectedError(403, "forbidden", "not allowed to run this agent")
        return verdict

    async def _stream(
        self, request: Request, receive: Receive, send: Send, run_input: RunAgentInput, auth: Any
    ) -> None:
        encoder = EventEncoder(accept=request.headers.get("accept"))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", encoder.get_content_type().encode("latin-1")),
                    (b"cache-control", b"no-cache"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )
        writer = _Writer(send)
        outbox = Outbox()
        encode = encoder.encode_binary if encoder.is_protobuf else encoder.encode_sse

        async def sink(events: list[BaseEvent]) -> None:
            for event in events:
                await outbox.put(encode(event))

        async def produce() -> None:
            try:
                await run_agent(
                    self.agent,
                    run_input,
                    sink,
                    verify=self.verify,
                    debug=self.debug,
                    auth=auth,
                    request=request,
                )
            finally:
                outbox.close()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_watch_disconnect, receive, writer, tasks.cancel_scope)
            tasks.start_soon(produce)
            keepalive = encoder.encode_keepalive()
            if self.keepalive is not None and keepalive:
                tasks.start_soon(writer.keep_alive, self.keepalive, keepalive)
            while (chunk := await outbox.take()) is not None:
                if not await writer.write(chunk):
                    break
            tasks.cancel_scope.cancel()  # the run is over (or the client left): stop every task
        if not writer.disconnected:
            await writer.finish()

    @property
    def capabilities_endpoint(self) -> _CapabilitiesEndpoint:
        """The ASGI endpoint for ``GET <path>/capabilities`` (``routes()`` mounts it for you)."""
        return _CapabilitiesEndpoint(self)


class _CapabilitiesEndpoint:
    """``GET <path>/capabilities``: the agent's ``AgentCapabilities`` as JSON.

    A class (not a bound method) so Starlette treats it as a raw ASGI app.
    """

    def __init__(self, endpoint: AgentEndpoint) -> None:
        self._endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            if request.method != "HEAD":
                check_method(request.method, "GET")
            await self._endpoint._authorize(request)
            source = self._endpoint.capabilities
            if source is None:
                raise RequestRejectedError(404, "not_found", "this agent declares no capabilities")
            capabilities = (
                source if isinstance(source, AgentCapabilities) else await _maybe_await(source())
            )
        except RequestRejectedError as rejection:
            await _send_error(send, rejection)
            return
        body = capabilities.model_dump_json(by_alias=True).encode()
        await _send_json(send, 200, body)


class _Writer:
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


async def _watch_disconnect(receive: Receive, writer: _Writer, scope: anyio.CancelScope) -> None:
    """Cancel the run (the agent included) as soon as the client disconnects."""
    while True:
        message: Message = await receive()
        if message["type"] == "http.disconnect":
            writer.disconnected = True
            scope.cancel()
            return


async def _read_body(receive: Receive, limit: int) -> Optional[bytes]:
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


async def _send_json(
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


async def _send_error(send: Send, rejection: RequestRejectedError) -> None:
    await _send_json(send, rejection.status, error_body(rejection), rejection.headers)


def create_app(
    agent: Agent,
    *,
    path: str = "/agent",
    capabilities: Optional[CapabilitiesSource] = None,
    **options: Any,
) -> Starlette:
    """A standalone Starlette app serving ``agent`` at ``POST path`` (and capabilities).

    ``options`` are ``AgentEndpoint``'s (``verify``, ``debug``, ``keepalive``, ...). Run it with
    ``uvicorn.run(create_app(agent), host="127.0.0.1", port=8000)``.
    """
    endpoint = AgentEndpoint(agent, capabilities=capabilities, **options)
    return Starlette(routes=endpoint.routes(path))
