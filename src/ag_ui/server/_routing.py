"""Where a request landed inside an endpoint that is mounted as a whole ASGI app, and the ASGI
lifespan protocol for such an app. Knows no agent: ``AgentEndpoint`` dispatches on it.

An ``AgentEndpoint`` is reached three ways, and the request's scope differs in each:

* through one of its own routes (``endpoint.routes(path)``, ``app.add_route(path, endpoint)``):
  the path is the route's, e.g. ``/agent``: the run;
* mounted (``app.mount("/agent", endpoint)``, ``Mount("/agent", endpoint)``): the mount
  point is in ``root_path`` (``/agent``) and the rest of the path is the endpoint's own:
  ``/`` (or nothing) for the run, ``/capabilities``, ``/connect``, ``/health`` and
  ``/health/ready``, ``/tap``, ``/threads`` and ``/threads/<id>``;
* as the whole app (``uvicorn.run(endpoint)``): like a mount at the root.

So the endpoint looks at the path relative to ``root_path``, with a trailing slash ignored: one
of the sub-resources' names is that sub-resource, any other path is the run (the route it came
through was the run's). Servers differ in whether ``path`` still holds ``root_path``
(Starlette's ``Mount`` and uvicorn's ``--root-path`` keep it; older frameworks cut it off):
both are understood.

Also here: the JSON 404 of a sub-resource the endpoint does not have, and the ``__signature__``
that stops FastAPI taking the endpoint for a path operation function.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Literal, Optional

from starlette.types import ASGIApp, Receive, Scope, Send

from ag_ui.core.errors import RequestRejectedError
from ag_ui.server._asgi import send_error

__all__ = [
    "SUB_RESOURCES",
    "NotAPathOperation",
    "SubResource",
    "not_found",
    "relative_path",
    "serve_lifespan",
    "sub_resource",
]

SubResource = Literal["capabilities", "connect", "health", "tap", "threads"]
SUB_RESOURCES: tuple[SubResource, ...] = ("capabilities", "connect", "health", "tap", "threads")
# Sub-resources with paths below them (``/threads/<thread id>``, ``/health/ready``).
_TREES: tuple[SubResource, ...] = ("health", "threads")


def relative_path(scope: Scope) -> str:
    """The request's path below the point the app is mounted at (``root_path``)."""
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    if root and (path == root or path.startswith(root + "/")):
        return path[len(root) :]
    return path


def sub_resource(scope: Scope) -> Optional[SubResource]:
    """Which of the endpoint's sub-resources the request is for; ``None``: the run."""
    path = relative_path(scope).rstrip("/")
    for name in SUB_RESOURCES:
        if path == "/" + name:
            return name
    for name in _TREES:
        if path.startswith("/" + name + "/"):
            return name
    return None


async def serve_lifespan(
    receive: Receive,
    send: Send,
    lifespan: Callable[[], AbstractAsyncContextManager[None]],
) -> None:
    """Answer an ASGI ``lifespan`` scope: enter ``lifespan()`` at startup, leave it at shutdown
    (a failing startup is reported to the server, which then stops)."""
    if (await receive())["type"] != "lifespan.startup":
        return
    async with AsyncExitStack() as stack:
        try:
            await stack.enter_async_context(lifespan())
        except Exception as exc:
            failure = f"{type(exc).__name__}: {exc}"
            await send({"type": "lifespan.startup.failed", "message": failure})
            return
        await send({"type": "lifespan.startup.complete"})
        while (await receive())["type"] != "lifespan.shutdown":
            pass
    await send({"type": "lifespan.shutdown.complete"})


def not_found(message: str) -> ASGIApp:
    """An ASGI endpoint answering a JSON 404 with ``message``."""

    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        await send_error(send, RequestRejectedError(404, "not_found", message))

    return endpoint


class NotAPathOperation:
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
