"""``GET <path>/health``: is this worker serving (liveness), and can it take runs (readiness)?

* ``GET <path>/health``: 200 ``{"status": "ok", "draining": false}`` for as long as the worker
  answers HTTP at all; what a liveness probe or a load balancer's passive check wants. It
  never touches a store: a Redis outage must not get every worker restarted.
* ``GET <path>/health/ready`` (or ``<path>/health?ready``): 200 ``{"status": "ready", ...}``
  when the app is not draining and every store the endpoint has answers ``ping()`` within
  ``timeout`` seconds (pinged at the same time, so the answer takes at most that long);
  otherwise 503 ``{"status": "not_ready", "failed": [...], ...}`` naming each check that
  failed (``draining``, ``runStore``, ``threadStore``) with the reason under its name.

No authorization: probes carry no credentials, and the answer says nothing about any run.
``HEAD`` is answered like ``GET``. The draining state is the endpoint's (set when its lifespan
is left, ``AgentEndpoint.lifespan``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Optional, Union

import anyio
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from ag_ui.core.errors import RequestRejectedError
from ag_ui.server._asgi import send_error, send_json
from ag_ui.server._request import check_method
from ag_ui.server._routing import relative_path

__all__ = ["DEFAULT_READY_TIMEOUT", "HealthEndpoint", "Ping"]

DEFAULT_READY_TIMEOUT = 0.5
"""Seconds a store has to answer a readiness check: under Kubernetes' default probe timeout
(1 s), so that a slow store gives a 503 rather than a probe that times out without a reason."""

Ping = Callable[[], Awaitable[None]]

Check = Union[str, bool]


class HealthEndpoint:
    """The ASGI endpoint of ``<path>/health`` and ``<path>/health/ready``.

    ``pings`` maps a check's name (``runStore``, ``threadStore``) to the store's ``ping``;
    ``draining`` says whether the app is shutting down.
    """

    def __init__(
        self,
        pings: dict[str, Ping],
        draining: Callable[[], bool],
        *,
        timeout: float = DEFAULT_READY_TIMEOUT,
    ) -> None:
        self._pings = pings
        self._draining = draining
        self._timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            if request.method != "HEAD":
                check_method(request.method, "GET")
            ready = self._wants_readiness(scope, request)
        except RequestRejectedError as rejection:
            await send_error(send, rejection)
            return
        if not ready:
            body: dict[str, object] = {"status": "ok", "draining": self._draining()}
            await _answer(send, 200, body)
            return
        checks = await self._checks()
        failed = [name for name, result in checks.items() if result not in (False, "ok")]
        body = {"status": "not_ready" if failed else "ready", **checks}
        if failed:
            body["failed"] = failed
        await _answer(send, 503 if failed else 200, body)

    def _wants_readiness(self, scope: Scope, request: Request) -> bool:
        """Readiness for ``/health/ready`` and ``/health?ready``; 404 for any other path below."""
        below = relative_path(scope).rstrip("/")
        tail = below.rsplit("/health", 1)[1] if "/health" in below else ""
        if tail == "/ready":
            return True
        if tail:
            raise RequestRejectedError(
                404, "not_found", f"no such health check {tail!r}: use /health or /health/ready"
            )
        return "ready" in request.query_params

    async def _checks(self) -> dict[str, Check]:
        """Each check's result: ``draining`` (``False`` passes), each store's ``"ok"`` or the
        reason it failed."""
        draining = self._draining()
        results: dict[str, Check] = {"draining": draining}
        if draining:
            # The app is leaving: what its stores would say does not change that answer.
            return results

        async def check(name: str, ping: Ping) -> None:
            results[name] = await _ping_within(ping, self._timeout)

        async with anyio.create_task_group() as tasks:
            for name, ping in self._pings.items():
                tasks.start_soon(check, name, ping)
        return {"draining": False, **{name: results[name] for name in self._pings}}


async def _ping_within(ping: Ping, timeout: float) -> str:
    """``"ok"``, or why the store did not answer within ``timeout`` seconds."""
    reason: Optional[str] = None
    with anyio.move_on_after(timeout) as scope:
        try:
            await ping()
        except Exception as exc:  # any failure is "not ready", named; never a 500
            reason = f"unavailable: {exc}" if str(exc) else f"unavailable: {type(exc).__name__}"
    if scope.cancelled_caught:
        return f"no answer within {timeout:g} s"
    return reason or "ok"


async def _answer(send: Send, status: int, body: dict[str, object]) -> None:
    encoded = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    await send_json(send, status, encoded)
