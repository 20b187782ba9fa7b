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

import functools
import inspect
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Optional, Union

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.errors import RequestRejectedError
from ag_ui.core.events import BaseEvent
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui.server._asgi import Writer, read_body, send_error, send_json, watch_disconnect
from ag_ui.server._connect import ConnectEndpoint, Principal, default_principal, store_unavailable
from ag_ui.server._detached import DetachedRuns, run_detached
from ag_ui.server._downgrade import downgrading_sink
from ag_ui.server._outbox import Outbox
from ag_ui.server._replay import (
    RESUME_AFTER_HEADER,
    RESUME_KEY_HEADER,
    live_frames,
    stream_response,
)
from ag_ui.server._request import (
    DEFAULT_MAX_BODY_SIZE,
    check_content_type,
    check_declared_size,
    check_method,
    parse_body,
)
from ag_ui.server._runner import Agent, run_agent
from ag_ui.server._store_writer import LiveFeed, StoreWriter
from ag_ui.server._tap import Tap
from ag_ui.store import RunStore, StoreFullError, StoreUnavailableError

__all__ = ["DEFAULT_KEEPALIVE", "AgentEndpoint", "Authorize", "CapabilitiesSource", "create_app"]

logger = logging.getLogger("ag_ui.server")

Authorize = Callable[[Request], Union[Any, Awaitable[Any]]]
"""A hook run before the body is read. Raise ``RequestRejectedError(401 or 403, ...)`` to refuse,
return ``False`` for a plain 403, or return anything else (available as ``ctx.auth``; with a
store, ``principal`` turns it into the owner of the run, docs/resume.md)."""

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
    * ``store``: a ``RunStore`` (``InMemoryRunStore()``, ``RedisRunStore(url)``) switches on
      detached, resumable runs (docs/resume.md): the run executes apart from the connection,
      its events are stored, ``GET <path>/connect`` reattaches. Needs ``lifespan()`` entered
      (``create_app`` does it). Without a store, a run lives and dies with its request.
    * ``run_ttl``: seconds a detached run may take before it is stopped with ``RUN_ERROR``
      (code ``run_expired``); default: 90% of the store's ``run_ttl``.
    * ``principal``: derives a run's owner from the ``authorize`` hook's return value
      (default ``default_principal``); a reconnect by another principal gets 404.
    * ``tap`` (default off; a development aid): ``True`` or a ``Tap`` lets ``agui inspect``
      watch every run live at ``GET <path>/tap`` (loopback clients only unless the ``Tap`` has
      a token; never headers or tokens; docs/inspector.md). Logs a warning when on.
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
        store: Optional[RunStore] = None,
        run_ttl: Optional[float] = None,
        principal: Principal = default_principal,
        downgrade_older_clients: bool = True,
        tap: Union[bool, Tap, None] = None,
    ) -> None:
        self.agent = agent
        # docs/server.md "Older clients": what a client declaring an older protocol gets.
        self.downgrade_older_clients = downgrade_older_clients
        self.capabilities = capabilities
        self.verify = verify
        self.debug = debug
        self.keepalive = keepalive if keepalive and keepalive > 0 else None
        self.max_body_size = max_body_size
        self.authorize = authorize
        self.store = store
        # By default a little under the store's own limit, so the run's RUN_ERROR is stored
        # before the store lets the run expire.
        store_ttl = float(getattr(store, "run_ttl", 3600))
        self.run_ttl = run_ttl if run_ttl is not None else 0.9 * store_ttl
        self.principal = principal
        self.detached_runs = DetachedRuns()
        self.tap = Tap.from_option(tap)

    def routes(self, path: str = "/agent") -> list[BaseRoute]:
        """Starlette routes: ``POST path`` and, with capabilities, ``GET path/capabilities``.

        Other methods reach the endpoint too, so they get the JSON 405 rather than a plain one.
        """
        routes: list[BaseRoute] = [Route(path, self)]
        if self.capabilities is not None:
            routes.append(Route(path.rstrip("/") + "/capabilities", self.capabilities_endpoint))
        if self.store is not None:
            routes.append(Route(path.rstrip("/") + "/connect", ConnectEndpoint(self, self.store)))
        if self.tap is not None:
            self.tap.announce(path.rstrip("/") + "/tap")
            routes.append(Route(path.rstrip("/") + "/tap", self.tap.endpoint(self._authorize)))
        return routes

    @asynccontextmanager
    async def lifespan(self, app: Any = None) -> AsyncIterator[None]:
        """Serve detached runs while the block runs; leaving it stops the runs still going.

        Pass it as (or call it from) your app's lifespan: ``Starlette(lifespan=endpoint.lifespan)``
        or ``FastAPI(lifespan=endpoint.lifespan)``. Without a store it does nothing. At start it
        checks that the store answers (``ping``) and logs an error if not.
        """
        if self.store is None:
            yield
            return
        ping = getattr(self.store, "ping", None)
        if ping is not None:
            try:
                await ping()
            except StoreUnavailableError as exc:
                logger.error(
                    "run store unreachable at start (new runs get 503 until it answers): %s", exc
                )
        async with self.detached_runs:
            yield

    # -- the run endpoint ------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise RuntimeError(f"AgentEndpoint serves HTTP only, got a {scope['type']!r} scope")
        if self.tap is not None:
            receive, send = self.tap.observe(scope, receive, send)
        request = Request(scope)
        try:
            check_method(request.method, "POST")
            auth = await self._authorize(request)
            check_content_type(request.headers.get("content-type"))
            check_declared_size(request.headers, self.max_body_size)
            body = await read_body(receive, self.max_body_size)
            if body is None:
                return  # the client left while sending
            run_input = parse_body(body)
            encoder = EventEncoder(accept=request.headers.get("accept"))
            if self.store is not None:
                key, feed = await self._create_detached(
                    self.store, request, run_input, auth, protobuf=encoder.is_protobuf
                )
        except RequestRejectedError as rejection:
            await send_error(send, rejection)
            return
        if self.store is not None:
            frames = live_frames(feed, self.store, key, encoder)
            headers = {RESUME_KEY_HEADER: key, RESUME_AFTER_HEADER: "0"}
            await stream_response(
                receive, send, frames, encoder=encoder, keepalive=self.keepalive, headers=headers
            )
            return
        await self._stream(encoder, request, receive, send, run_input, auth)

    async def _create_detached(
        self,
        store: RunStore,
        request: Request,
        run_input: RunAgentInput,
        auth: Any,
        *,
        protobuf: bool,
    ) -> tuple[str, LiveFeed]:
        """Register the run under a fresh unguessable key and start it; returns the key and
        a feed of its events as they are stored (for this request's response; ``protobuf``:
        the feed carries the models, which protobuf frames are made from)."""
        if not self.detached_runs.running:
            logger.error(
                "detached runs are not being served: enter AgentEndpoint.lifespan() in the "
                "app's lifespan (create_app does it)"
            )
            raise RequestRejectedError(
                503, "runs_not_started", "this server is not ready to run agents; retry later"
            )
        # The key, not the client's runId, names the stored run: clients cannot pick or guess it.
        key = secrets.token_urlsafe(18)
        try:
            await store.create(key, run_input.thread_id, owner=self.principal(auth))
        except StoreFullError as exc:
            logger.warning("run store full, run refused: %s", exc)
            raise RequestRejectedError(
                503,
                "store_full",
                "too many runs in progress; retry later",
                headers={"retry-after": "1"},
            ) from None
        except StoreUnavailableError as exc:
            logger.error("run store unreachable, run refused: %s", exc)
            raise store_unavailable() from None
        writer = StoreWriter(store, key)
        feed = writer.attach(events=protobuf)
        self.detached_runs.start(
            functools.partial(
                run_detached,
                store,
                key,
                writer,
                self.agent,
                run_input,
                run_ttl=self.run_ttl,
                verify=self.verify,
                debug=self.debug,
                auth=auth,
                request=request,
                downgrade=self.downgrade_older_clients,
            )
        )
        return key, feed

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
        self,
        encoder: EventEncoder,
        request: Request,
        receive: Receive,
        send: Send,
        run_input: RunAgentInput,
        auth: Any,
    ) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", encoder.get_binary_content_type().encode("latin-1")),
                    (b"cache-control", b"no-cache"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )
        writer = Writer(send)
        outbox = Outbox()
        encode = encoder.encode_binary if encoder.is_protobuf else encoder.encode_sse

        async def encoding_sink(events: list[BaseEvent]) -> None:
            for event in events:
                await outbox.put(encode(event))

        sink = downgrading_sink(encoding_sink, run_input, enabled=self.downgrade_older_clients)

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
            tasks.start_soon(watch_disconnect, receive, writer, tasks.cancel_scope)
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
            await send_error(send, rejection)
            return
        body = capabilities.model_dump_json(by_alias=True).encode()
        await send_json(send, 200, body)


def create_app(
    agent: Agent,
    *,
    path: str = "/agent",
    capabilities: Optional[CapabilitiesSource] = None,
    **options: Any,
) -> Starlette:
    """A standalone Starlette app serving ``agent`` at ``POST path`` (and capabilities).

    ``options`` are ``AgentEndpoint``'s (``verify``, ``debug``, ``keepalive``, ``store``, ...);
    the app's lifespan serves the detached runs (``app.state.endpoint`` is the endpoint).
    Run it with ``uvicorn.run(create_app(agent), host="127.0.0.1", port=8000)``.
    """
    endpoint = AgentEndpoint(agent, capabilities=capabilities, **options)
    app = Starlette(routes=endpoint.routes(path), lifespan=endpoint.lifespan)
    app.state.endpoint = endpoint
    return app
