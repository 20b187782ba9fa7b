"""ASGI endpoints that serve an agent over HTTP (Starlette, FastAPI, or any ASGI server).

>>> from ag_ui.server import AgentEndpoint, create_app
>>> async def agent(run_input, ctx):
...     await ctx.say("Hello!")
>>> app = create_app(agent)                     # standalone: POST /agent
>>> endpoint = AgentEndpoint(agent)             # or put it in your app, any of these ways:
>>> # fastapi_app.mount("/agent", endpoint)      (lifespan=endpoint.lifespan for a store)
>>> # fastapi_app.add_route("/agent", endpoint, methods=["POST"])
>>> # Starlette(routes=endpoint.routes("/agent"))
>>> # fastapi_app.router.routes.extend(endpoint.routes("/agent"))
"""

from __future__ import annotations

import functools
import inspect
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Optional, TypedDict, Union

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.errors import (
    AGUIValidationError,
    RequestRejectedError,
    StoreFullError,
    StoreUnavailableError,
)
from ag_ui.core.events import BaseEvent
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui.server._access import AccessControl, Authorize, Principal, default_principal
from ag_ui.server._asgi import read_body, send_error, send_json
from ag_ui.server._connect import ConnectEndpoint
from ag_ui.server._detached import DetachedRuns, run_detached
from ag_ui.server._downgrade import downgrading_sink
from ag_ui.server._failures import (
    lifespan_not_run,
    runs_not_started,
    store_full,
    store_unavailable,
    thread_store_unavailable,
)
from ag_ui.server._guard import RunGuard
from ag_ui.server._health import DEFAULT_READY_TIMEOUT, HealthEndpoint, Ping
from ag_ui.server._local_guard import LocalGuard
from ag_ui.server._release import release
from ag_ui.server._replay import RESUME_AFTER_HEADER, RESUME_KEY_HEADER, live_frames
from ag_ui.server._request import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_MAX_BODY_SIZE,
    check_content_type,
    check_declared_size,
    check_method,
    rejection_for,
)
from ag_ui.server._response import Producer, Put, pump, stream_response
from ag_ui.server._routing import SubResource, relative_path, serve_lifespan, sub_resource
from ag_ui.server._runner import Agent, run_agent
from ag_ui.server._sliced_parse import parse_run_input
from ag_ui.server._store_writer import LiveFeed, StoreWriter
from ag_ui.server._tap import Tap
from ag_ui.server._thread_endpoints import ThreadsEndpoint
from ag_ui.server._threads import ThreadKeeper, ThreadRecorder
from ag_ui.server._time_limit import run_within
from ag_ui.store import RunStore, ThreadStore
from ag_ui.telemetry import _switch as telemetry_switch
from ag_ui.telemetry._propagation import TRACE_ID_HEADER, key_with_span

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ag_ui.telemetry._run import RunTelemetry

__all__ = ["DEFAULT_KEEPALIVE", "AgentEndpoint", "Authorize", "CapabilitiesSource", "create_app"]

logger = logging.getLogger("ag_ui.server")

CapabilitiesSource = Union[
    AgentCapabilities, Callable[[], Union[AgentCapabilities, Awaitable[AgentCapabilities]]]
]

DEFAULT_KEEPALIVE = 15.0


class EndpointOptions(TypedDict, total=False):
    """``AgentEndpoint``'s options, as ``create_app(agent, **options)`` takes them."""

    verify: bool
    debug: bool
    keepalive: Optional[float]
    max_body_size: int
    body_timeout: Optional[float]
    max_messages: Optional[int]
    authorize: Optional[Authorize]
    store: Optional[RunStore]
    run_ttl: Optional[float]
    run_timeout: Optional[float]
    principal: Principal
    public_thread_history: bool
    downgrade_older_clients: bool
    tap: Union[bool, Tap, None]
    threads: Optional[ThreadStore]
    shutdown_grace: float
    ready_timeout: float
    allowed_hosts: Sequence[str]


async def _capabilities_of(source: CapabilitiesSource) -> AgentCapabilities:
    if isinstance(source, AgentCapabilities):
        return source
    produced = source()
    return await produced if inspect.isawaitable(produced) else produced


class _NotAPathOperation:
    """``AgentEndpoint.__signature__``: nothing for the class (``inspect.signature`` then reads
    ``__init__``), a ``TypeError`` naming the ways that work for an endpoint object."""

    def __get__(self, instance: object, owner: Optional[type] = None) -> None:
        if instance is None:
            return None
        raise TypeError(
            "an AgentEndpoint is an ASGI app, not a FastAPI path operation function: use "
            "app.mount(path, endpoint), app.add_route(path, endpoint, methods=['POST']) or "
            "app.router.routes.extend(endpoint.routes(path)) (docs/server.md, 'Mounting it')"
        )


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
    * ``body_timeout``: seconds (default 30) the client has to send the whole body; after that
      it gets 408 and the connection is closed (``None``: no deadline);
    * ``max_messages``: the most messages a request may carry (default: no limit but the body
      size), more get 413 ``too_many_messages``;
    * ``authorize``: a hook (sync or async) given the Starlette ``Request`` before the body is
      read: raise ``RequestRejectedError`` (401/403) or return ``False`` (403) to refuse.
    * ``store``: a ``RunStore`` (``InMemoryRunStore()``, ``RedisRunStore(url)``) switches on
      detached, resumable runs (docs/resume.md): the run executes apart from the connection,
      its events are stored, ``GET <path>/connect`` reattaches. Needs ``lifespan()`` entered
      (``create_app`` does it; otherwise ``FastAPI(lifespan=endpoint.lifespan)``: the
      lifespan of a mounted app never runs); a run request without it gets a 500 naming
      that fix. Without a store, a run lives and dies with its request.
    * ``run_ttl``: seconds a detached run may take before it is stopped with ``RUN_ERROR``
      (code ``run_expired``); default: 90% of the store's ``run_ttl``.
    * ``run_timeout``: seconds any run may take, bound to its request or detached, before it is
      stopped the same way (default ``None``: a request-bound run has no limit; a detached one
      stops at the smaller of ``run_timeout`` and ``run_ttl``).
    * ``principal``: derives a run's owner from the ``authorize`` hook's return value
      (default ``default_principal``); a reconnect by another principal gets 404.
    * ``public_thread_history`` (default off): serve ``GET <path>/connect?threadId=`` to the
      anonymous principal (no hook, or a hook returning ``None``/``True``); off, such a
      request gets 403 ``thread_history_not_public`` (thread ids are chosen by clients).
    * ``downgrade_older_clients`` (default on): a client declaring a protocol before 1.0 (or
      none) gets output its era understands (docs/server.md, "Older clients").
    * ``threads``: a ``ThreadStore`` (``open_thread_store("sqlite:///threads.db")``) keeps
      each conversation after its run (docs/threads.md): the agent sees the stored history
      even when the client sends only its new message, ``GET <path>/threads`` lists the
      caller's threads (``/threads/<id>`` reads, renames, deletes one) and ``GET
      <path>/connect?threadId=`` restores one into any client. Anonymous callers only with
      ``public_thread_history=True``.
    * ``tap`` (default off; a development aid): ``True`` or a ``Tap`` lets ``agui inspect``
      watch every run live at ``GET <path>/tap`` (loopback clients only unless the ``Tap`` has
      a token; never headers or tokens; docs/inspector.md). Logs a warning when on.
    * ``shutdown_grace`` (default 0): seconds the detached runs still going at shutdown get to
      end on their own before they are stopped with ``RUN_ERROR`` ``server_shutdown``
      (docs/deploy.md, "Shutting down"). Draining starts when the lifespan is left: new
      detached runs get 503 and readiness fails.
    * ``ready_timeout`` (default 0.5): seconds each store has to answer ``GET
      <path>/health/ready`` (``GET <path>/health`` is liveness; docs/deploy.md).
    * ``allowed_hosts`` (default: loopback names only): every endpoint but health refuses, with
      403, a ``Host`` that is not ``localhost``, ``127.0.0.0/8`` or ``[::1]`` (DNS rebinding)
      and a request from another site's page (``Origin``, ``Sec-Fetch-Site``), unless listed
      here: names (``"agent.example.com"``, ``"*.example.com"``), origins
      (``"https://app.example.com"``), or ``"*"`` for no guard; the tap never answers another
      origin (docs/server.md, "Security").
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
        body_timeout: Optional[float] = DEFAULT_BODY_TIMEOUT,
        max_messages: Optional[int] = None,
        authorize: Optional[Authorize] = None,
        store: Optional[RunStore] = None,
        run_ttl: Optional[float] = None,
        run_timeout: Optional[float] = None,
        principal: Principal = default_principal,
        public_thread_history: bool = False,
        downgrade_older_clients: bool = True,
        tap: Union[bool, Tap, None] = None,
        threads: Optional[ThreadStore] = None,
        shutdown_grace: float = 0.0,
        ready_timeout: float = DEFAULT_READY_TIMEOUT,
        allowed_hosts: Sequence[str] = (),
    ) -> None:
        if shutdown_grace < 0:
            raise ValueError(f"shutdown_grace must be 0 or more seconds, got {shutdown_grace!r}")
        if ready_timeout <= 0:
            raise ValueError(f"ready_timeout must be more than 0 seconds, got {ready_timeout!r}")
        self.agent = agent
        # docs/server.md "Older clients": what a client declaring an older protocol gets.
        self.downgrade_older_clients = downgrade_older_clients
        self.capabilities = capabilities
        self.verify = verify
        self.debug = debug
        self.keepalive = keepalive if keepalive and keepalive > 0 else None
        self.max_body_size = max_body_size
        self.body_timeout = body_timeout if body_timeout and body_timeout > 0 else None
        self.max_messages = max_messages
        self.access = AccessControl(authorize, principal)
        """Who may call the endpoints and who owns a run (shared with the connect endpoint)."""
        self.guard = LocalGuard(allowed_hosts)
        """Which ``Host`` names and web origins may reach every endpoint but health."""
        self.store = store
        self.public_thread_history = public_thread_history
        # By default a little under the store's own limit, so the run's RUN_ERROR is stored
        # before the store lets the run expire.
        store_ttl = float(getattr(store, "run_ttl", 3600))
        self.run_ttl = run_ttl if run_ttl is not None else 0.9 * store_ttl
        self.run_timeout = run_timeout if run_timeout and run_timeout > 0 else None
        if self.run_timeout is not None:
            self.run_ttl = min(self.run_ttl, self.run_timeout)
        self.detached_runs = DetachedRuns()
        self.tap = Tap.from_option(tap)
        self._tap_announced = False
        self.threads = threads
        self.agent_name: str = (
            getattr(agent, "name", None) or getattr(agent, "__name__", None) or type(agent).__name__
        )
        """``gen_ai.agent.name`` of the runs' spans (docs/telemetry.md): the agent's ``name``,
        else its function's or class's name."""
        self.thread_keeper = (
            ThreadKeeper(threads, public=public_thread_history) if threads is not None else None
        )
        self.shutdown_grace = shutdown_grace
        self.ready_timeout = ready_timeout
        self.draining = False
        """Set when the lifespan is left: the app is shutting down (readiness fails, new
        detached runs get 503)."""

    @property
    def authorize(self) -> Optional[Authorize]:
        """The ``authorize`` hook (``self.access.hook``)."""
        return self.access.hook

    @authorize.setter
    def authorize(self, hook: Optional[Authorize]) -> None:
        self.access.hook = hook

    @property
    def principal(self) -> Principal:
        """The ``principal`` function (``self.access.principal``)."""
        return self.access.principal

    @principal.setter
    def principal(self, principal: Principal) -> None:
        self.access.principal = principal

    # FastAPI's add_api_route / @app.post read an endpoint's signature to parse the request
    # into its parameters; given this ASGI app they would answer every run with a 422 about
    # query parameters "receive" and "send". Reading it fails instead, where the route is made.
    __signature__ = _NotAPathOperation()

    def routes(self, path: str = "/agent") -> list[BaseRoute]:
        """Starlette routes: ``POST path``, ``GET path/health[/ready]`` and, with capabilities,
        ``GET path/capabilities`` (with a store, ``GET path/connect``; with a thread store,
        ``GET path/connect`` and ``path/threads[/<id>]``; with the tap, ``GET path/tap``).

        Other methods reach the endpoint too, so they get the JSON 405 rather than a plain one.
        The endpoint itself is an ASGI app as well: ``app.mount(path, endpoint)`` serves the
        same (``_routing``).
        """
        base = path.rstrip("/")
        guarded = self.guard.wrap
        routes: list[BaseRoute] = [Route(path, self)]  # guarded in __call__
        routes.append(Route(base + "/health", self.health_endpoint))
        routes.append(Route(base + "/health/ready", self.health_endpoint))
        if self.capabilities is not None:
            routes.append(Route(base + "/capabilities", guarded(self.capabilities_endpoint)))
        if self.store is not None or self.threads is not None:
            routes.append(Route(base + "/connect", guarded(self.connect_endpoint)))
        if self.threads is not None:
            threads = guarded(self.threads_endpoint)
            routes.append(Route(base + "/threads", threads))
            routes.append(Route(base + "/threads/{thread_id:path}", threads))
        if self.tap is not None:
            self._announce_tap(base + "/tap")
            tap = self.tap.endpoint(self.access.authorize)
            routes.append(Route(base + "/tap", guarded(tap, same_origin_only=True)))
        return routes

    @asynccontextmanager
    async def lifespan(self, app: object = None) -> AsyncIterator[None]:
        """Serve detached runs while the block runs; leaving it stops the runs still going.

        Pass it as (or call it from) your app's lifespan: ``Starlette(lifespan=endpoint.lifespan)``
        or ``FastAPI(lifespan=endpoint.lifespan)``. Without a store or thread store it does
        nothing. At start it checks that the stores answer (``ping``) and logs an error if not.
        Leaving it drains:
        ``draining`` is set, the runs still going get ``shutdown_grace`` seconds to end; with a
        thread store, it then waits (up to 10 s) for the runs the server cut to save their
        threads.
        """
        self.draining = False
        try:
            async with self._serving():
                yield
        finally:
            self.draining = True
            if self.thread_keeper is not None:  # runs cut by the shutdown save `cancelled`
                await self.thread_keeper.settle()

    @asynccontextmanager
    async def _serving(self) -> AsyncIterator[None]:
        """The lifespan's work: the start-up pings, then the detached runs' task group (which
        drains, then stops, the runs when left)."""
        if self.threads is not None:
            try:
                await self.threads.ping()
            except StoreUnavailableError as exc:
                logger.error(
                    "thread store unreachable at start (runs get 503 until it answers): %s", exc
                )
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
            try:
                yield
            finally:
                # The app is leaving: refuse new runs, give the running ones their grace.
                self.draining = True
                if self.shutdown_grace > 0 and self.detached_runs.active:
                    logger.info(
                        "shutting down: waiting up to %g s for %d detached run(s) to end",
                        self.shutdown_grace,
                        self.detached_runs.active,
                    )
                    if not await self.detached_runs.drain(self.shutdown_grace):
                        logger.warning(
                            "shutdown grace over: stopping %d detached run(s) still going",
                            self.detached_runs.active,
                        )

    # -- the run endpoint ------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The endpoint as an ASGI app. Reached through its route (``routes()``,
        ``add_route``) it serves the run; mounted (``app.mount(path, endpoint)``) or served
        as the whole app, the paths below it too: ``/`` the run, ``/capabilities``,
        ``/connect``, ``/tap`` (``_routing``). A ``lifespan`` scope (the whole app) enters
        ``lifespan()``."""
        if scope["type"] == "lifespan":
            await serve_lifespan(receive, send, self.lifespan)
            return
        if scope["type"] != "http":
            raise RuntimeError(f"AgentEndpoint serves HTTP only, got a {scope['type']!r} scope")
        name = sub_resource(scope)
        if name != "health":  # the loopback guard (docs/server.md, "Security"); probes pass
            refusal = self.guard.refusal(scope, same_origin_only=name == "tap")
            if refusal is not None:
                await send_error(send, refusal)
                return
        if name is None:
            await self._serve_run(scope, receive, send)
        else:
            await self._sub_resource(name, scope)(scope, receive, send)

    def _sub_resource(self, name: SubResource, scope: Scope) -> ASGIApp:
        """The ASGI endpoint of ``<mount point>/<name>``; a JSON 404 when this endpoint has
        no such thing (no capabilities, no store, no tap)."""
        if name == "health":
            return self.health_endpoint
        if name == "capabilities":
            return self.capabilities_endpoint  # a JSON 404 of its own without capabilities
        if name == "connect":
            if self.store is None and self.threads is None:
                return _not_found("this agent keeps no runs to connect to (it has no store)")
            return self.connect_endpoint
        if name == "threads":
            if self.threads is None:
                return _not_found(
                    "this agent keeps no threads (AgentEndpoint(threads=...) turns it on)"
                )
            return self.threads_endpoint
        if self.tap is None:
            return _not_found("the inspector tap is off (AgentEndpoint(tap=True) turns it on)")
        mount_point = scope.get("root_path", "") + relative_path(scope).rstrip("/")
        self._announce_tap(mount_point)
        return self.tap.endpoint(self.access.authorize)

    def _announce_tap(self, path: str) -> None:
        """The tap's warning, once: when the routes are made, or at the first request to a
        mounted endpoint's tap."""
        if self.tap is not None and not self._tap_announced:
            self._tap_announced = True
            self.tap.announce(path)

    async def _serve_run(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``POST``: check the request, run the agent, stream its events."""
        if self.tap is not None:
            receive, send = self.tap.observe(scope, receive, send)
        request = Request(scope)
        try:
            check_method(request.method, "POST")
            auth = await self.access.authorize(request)
            check_content_type(request.headers.get("content-type"))
            check_declared_size(request.headers, self.max_body_size)
            body = await read_body(receive, self.max_body_size, self.body_timeout)
            if body is None:
                return  # the client left while sending
            try:
                run_input = await parse_run_input(body, max_messages=self.max_messages)
            except AGUIValidationError as exc:
                raise rejection_for(exc) from None
            del body  # a large body is not kept for the length of the run
            encoder = EventEncoder(accept=request.headers.get("accept"))
            recorder: Optional[ThreadRecorder] = None
            if self.thread_keeper is not None:
                run_input, recorder = await self._thread_of(run_input, auth)
            telemetry = telemetry_switch.current
            spans: Optional[RunTelemetry] = None
            if telemetry is not None:
                spans = telemetry.start_run(
                    agent_name=self.agent_name,
                    thread_id=run_input.thread_id,
                    run_id=run_input.run_id,
                    headers=request.headers,
                    detached=self.store is not None,
                )
            if self.store is not None:
                try:
                    key, feed = await self._create_detached(
                        self.store,
                        request,
                        run_input,
                        auth,
                        recorder,
                        spans,
                        protobuf=encoder.is_protobuf,
                    )
                except RequestRejectedError as rejection:
                    if spans is not None:
                        spans.refused(rejection.code, rejection.message)
                    raise
        except RequestRejectedError as rejection:
            await send_error(send, rejection)
            return
        if self.store is not None:
            # Detached: the run goes on without this response, which reads it as it is stored.
            produce = pump(live_frames(feed, self.store, key, encoder))
            headers = {RESUME_KEY_HEADER: key, RESUME_AFTER_HEADER: "0"}
        else:
            # Bound to the request: the client leaving cancels the agent.
            produce = self._bound_run(encoder, request, run_input, auth, recorder, spans)
            headers = {}
        if spans is None:
            await stream_response(
                receive, send, produce, encoder=encoder, keepalive=self.keepalive, headers=headers
            )
        else:
            assert telemetry is not None
            headers[TRACE_ID_HEADER] = spans.trace_id
            telemetry.streams(1)
            try:
                await stream_response(
                    receive,
                    send,
                    produce,
                    encoder=encoder,
                    keepalive=self.keepalive,
                    headers=headers,
                )
            finally:
                telemetry.streams(-1)
                if self.store is None:  # a response that ended before its run began (no-op
                    spans.close()  # once the run closed it); a detached run closes its own
        # This request's hold on the run input ends: a large input is freed in slices by its
        # last holder (``_release``; for a detached run, this request or the run's task).
        held = [run_input.messages]
        del run_input, produce
        await release(held)

    async def _thread_of(
        self, run_input: RunAgentInput, auth: Any
    ) -> tuple[RunAgentInput, Optional[ThreadRecorder]]:
        """The run input completed from the caller's stored thread, and its recorder."""
        assert self.thread_keeper is not None
        try:
            return await self.thread_keeper.prepare(run_input, self.access.owner(auth))
        except StoreUnavailableError as exc:
            logger.error("thread store unreachable, run refused: %s", exc)
            raise thread_store_unavailable() from None

    def _bound_run(
        self,
        encoder: EventEncoder,
        request: Request,
        run_input: RunAgentInput,
        auth: Any,
        recorder: Optional[ThreadRecorder],
        spans: Optional[RunTelemetry],
    ) -> Producer:
        """The run as the producer of its own response: each guarded event is encoded and put
        as it comes (no store, no batching)."""
        encode = encoder.encode_binary if encoder.is_protobuf else encoder.encode_sse

        async def produce(put: Put) -> None:
            async def encoding_sink(events: list[BaseEvent]) -> None:
                for event in events:
                    await put(encode(event))

            sink = downgrading_sink(encoding_sink, run_input, enabled=self.downgrade_older_clients)
            if spans is not None:  # sees what the client is sent, before any downgrade
                if sink is encoding_sink:  # a 1.0 client: observed in the encoding sink itself
                    observe = spans.observe

                    async def observed_encoding_sink(events: list[BaseEvent]) -> None:
                        # One coroutine call per event less than a wrapper around the sink.
                        observe(events)
                        for event in events:
                            await put(encode(event))

                    sink = observed_encoding_sink
                else:
                    sink = spans.wrap(sink)
            if recorder is not None:
                sink = recorder.wrap(sink)
            guard = RunGuard(run_input, verify=self.verify)
            run = functools.partial(
                run_agent,
                self.agent,
                run_input,
                sink,
                verify=self.verify,
                debug=self.debug,
                auth=auth,
                request=request,
                guard=guard,
            )
            left = False
            try:
                if spans is not None:
                    with spans.activate():
                        if self.run_timeout is None:
                            await run()  # (one frame less to resume, as below)
                        else:
                            await run_within(
                                self.run_timeout, run, guard, sink, name=run_input.run_id
                            )
                elif self.run_timeout is None:
                    await run()  # one frame less for the loop to resume each time the agent awaits
                else:
                    await run_within(self.run_timeout, run, guard, sink, name=run_input.run_id)
            except anyio.get_cancelled_exc_class():
                left = True  # the client left (or the server is shutting down)
                raise
            finally:
                if recorder is not None:
                    await recorder.close()
                if spans is not None:
                    spans.close(disconnected=left)

        return produce

    async def _create_detached(
        self,
        store: RunStore,
        request: Request,
        run_input: RunAgentInput,
        auth: Any,
        recorder: Optional[ThreadRecorder],
        spans: Optional[RunTelemetry],
        *,
        protobuf: bool,
    ) -> tuple[str, LiveFeed]:
        """Register the run under a fresh unguessable key and start it; returns the key and
        a feed of its events as they are stored (for this request's response; ``protobuf``:
        the feed carries the models, which protobuf frames are made from)."""
        if self.draining or not self.detached_runs.running:
            if self.detached_runs.served:
                raise runs_not_started()  # the app is shutting down
            rejection = lifespan_not_run()
            logger.error("run refused: %s", rejection.message)
            raise rejection
        # The key, not the client's runId, names the stored run: clients cannot pick or guess it.
        key = secrets.token_urlsafe(18)
        if spans is not None:  # readers on any worker continue the run's trace (_propagation)
            key = key_with_span(key, *spans.span_ids)
        try:
            await store.create(key, run_input.thread_id, owner=self.access.owner(auth))
        except StoreFullError as exc:
            logger.warning("run store full, run refused: %s", exc)
            raise store_full() from None
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
                [run_input],  # taken out by the run, so that this partial does not keep it
                run_ttl=self.run_ttl,
                verify=self.verify,
                debug=self.debug,
                auth=auth,
                request=request,
                downgrade=self.downgrade_older_clients,
                recorder=recorder,
                spans=spans,
            )
        )
        return key, feed

    @property
    def health_endpoint(self) -> HealthEndpoint:
        """The ASGI endpoint for ``GET <path>/health`` and ``<path>/health/ready``
        (``routes()`` mounts it for you)."""
        pings: dict[str, Ping] = {}
        store_ping = getattr(self.store, "ping", None)
        if store_ping is not None:
            pings["runStore"] = store_ping
        if self.threads is not None:
            pings["threadStore"] = self.threads.ping
        return HealthEndpoint(pings, lambda: self.draining, timeout=self.ready_timeout)

    @property
    def capabilities_endpoint(self) -> _CapabilitiesEndpoint:
        """The ASGI endpoint for ``GET <path>/capabilities`` (``routes()`` mounts it for you)."""
        return _CapabilitiesEndpoint(self)

    @property
    def connect_endpoint(self) -> ConnectEndpoint:
        """The ASGI endpoint for ``GET <path>/connect`` (needs a store or a thread store;
        ``routes()`` mounts it for you)."""
        if self.store is None and self.threads is None:
            raise RuntimeError(
                "the connect endpoint needs a store: AgentEndpoint(store=...) or (threads=...)"
            )
        return ConnectEndpoint(
            self.store,
            self.access,
            keepalive=self.keepalive,
            public_thread_history=self.public_thread_history,
            threads=self.threads,
        )

    @property
    def threads_endpoint(self) -> ThreadsEndpoint:
        """The ASGI endpoint for ``<path>/threads`` and ``<path>/threads/<id>`` (needs a
        thread store; ``routes()`` mounts it for you)."""
        if self.threads is None:
            raise RuntimeError("the threads endpoint needs AgentEndpoint(threads=...)")
        return ThreadsEndpoint(self.threads, self.access, public=self.public_thread_history)


def _not_found(message: str) -> ASGIApp:
    """An ASGI endpoint answering a JSON 404 with ``message``."""

    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        await send_error(send, RequestRejectedError(404, "not_found", message))

    return endpoint


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
            await self._endpoint.access.authorize(request)
            source = self._endpoint.capabilities
            if source is None:
                raise RequestRejectedError(404, "not_found", "this agent declares no capabilities")
            capabilities = await _capabilities_of(source)
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
    **options: Unpack[EndpointOptions],
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
