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

The endpoint holds the options and dispatches; a run request is ``_run_request``'s, the
capabilities ``_capabilities``', connect ``_connect``'s, threads ``_thread_endpoints``'.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Optional, TypedDict, Union

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ag_ui.core.errors import StoreUnavailableError
from ag_ui.server._access import AccessControl, Authorize, Principal, default_principal
from ag_ui.server._asgi import send_error
from ag_ui.server._capabilities import CapabilitiesEndpoint, CapabilitiesSource
from ag_ui.server._connect import ConnectEndpoint
from ag_ui.server._detached import DetachedRuns
from ag_ui.server._health import DEFAULT_READY_TIMEOUT, HealthEndpoint, Ping
from ag_ui.server._local_guard import LocalGuard
from ag_ui.server._request import DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY_SIZE
from ag_ui.server._routing import (
    NotAPathOperation,
    SubResource,
    not_found,
    relative_path,
    serve_lifespan,
    sub_resource,
)
from ag_ui.server._run_request import serve_run
from ag_ui.server._runner import Agent
from ag_ui.server._tap import Tap
from ag_ui.server._thread_endpoints import ThreadsEndpoint
from ag_ui.server._threads import ThreadKeeper
from ag_ui.store import RunStore, ThreadStore

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["DEFAULT_KEEPALIVE", "AgentEndpoint", "Authorize", "CapabilitiesSource", "create_app"]

logger = logging.getLogger("ag_ui.server")

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
    __signature__ = NotAPathOperation()

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
            await serve_run(self, scope, receive, send)
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
                return not_found("this agent keeps no runs to connect to (it has no store)")
            return self.connect_endpoint
        if name == "threads":
            if self.threads is None:
                return not_found(
                    "this agent keeps no threads (AgentEndpoint(threads=...) turns it on)"
                )
            return self.threads_endpoint
        if self.tap is None:
            return not_found("the inspector tap is off (AgentEndpoint(tap=True) turns it on)")
        mount_point = scope.get("root_path", "") + relative_path(scope).rstrip("/")
        self._announce_tap(mount_point)
        return self.tap.endpoint(self.access.authorize)

    def _announce_tap(self, path: str) -> None:
        """The tap's warning, once: when the routes are made, or at the first request to a
        mounted endpoint's tap."""
        if self.tap is not None and not self._tap_announced:
            self._tap_announced = True
            self.tap.announce(path)

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
    def capabilities_endpoint(self) -> CapabilitiesEndpoint:
        """The ASGI endpoint for ``GET <path>/capabilities`` (``routes()`` mounts it for you)."""
        return CapabilitiesEndpoint(self.access, lambda: self.capabilities)

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
