"""Helpers for the client tests: tiny Starlette agents, in-process or on a real uvicorn."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import ExitStack
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ag_ui.client import HttpAgent
from tests.support.servers import serve


def frames(*events: dict[str, Any]) -> bytes:
    """SSE bytes for wire-JSON events."""
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def run_frames(*inner: dict[str, Any], thread: str = "t1", run: str = "r1") -> bytes:
    """A whole run: RUN_STARTED, the given events, RUN_FINISHED."""
    return frames(
        {"type": "RUN_STARTED", "threadId": thread, "runId": run},
        *inner,
        {"type": "RUN_FINISHED", "threadId": thread, "runId": run},
    )


class Recorder:
    """Remembers each request an app received (body as JSON, headers)."""

    def __init__(self) -> None:
        self.bodies: list[Any] = []
        self.headers: list[dict[str, str]] = []

    async def record(self, request: Request) -> None:
        self.bodies.append(json.loads(await request.body()))
        self.headers.append(dict(request.headers))


def static_app(
    body: bytes,
    *,
    status: int = 200,
    media_type: str = "text/event-stream",
    recorder: Recorder | None = None,
) -> Starlette:
    """An app answering every POST with ``body``."""

    async def endpoint(request: Request) -> Response:
        if recorder is not None:
            await recorder.record(request)
        return Response(body, status_code=status, media_type=media_type)

    return Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])


def sequence_app(*bodies: bytes, recorder: Recorder | None = None) -> Starlette:
    """An app answering successive POSTs with successive bodies (one per run)."""
    remaining = list(bodies)

    async def endpoint(request: Request) -> Response:
        if recorder is not None:
            await recorder.record(request)
        return Response(remaining.pop(0), media_type="text/event-stream")

    return Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])


def asgi_agent(app: Starlette, **options: Any) -> HttpAgent:
    """An HttpAgent talking to ``app`` in process through httpx's ASGI transport."""
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost")
    return HttpAgent("http://localhost/agent", http_client=client, **options)


class LiveServer:
    """A real uvicorn on 127.0.0.1 in a background thread (``tests.support.servers.serve``);
    routes can be added per test. ``start()`` before use, ``stop()`` after."""

    def __init__(self) -> None:
        self.routes: dict[str, Callable[[Request], AsyncIterator[bytes]]] = {}
        self.closed: dict[str, threading.Event] = {}
        self.media_types: dict[str, str] = {}
        self.disconnects: list[str] = []
        self.url = ""
        self._app = Starlette(routes=[Route("/{name}", self._endpoint, methods=["POST"])])
        self._running = ExitStack()

    async def _endpoint(self, request: Request) -> Response:
        name = request.path_params["name"]
        await request.body()  # cached now; a streaming body cannot read it later
        source = self.routes[name](request)

        async def body() -> AsyncIterator[bytes]:
            completed = False
            try:
                async for chunk in source:
                    yield chunk
                completed = True
            finally:
                if not completed:
                    self.disconnects.append(name)
                self.closed[name].set()

        return StreamingResponse(body(), media_type=self.media_types[name])

    def add(
        self,
        name: str,
        source: Callable[[Request], AsyncIterator[bytes]],
        media_type: str = "text/event-stream",
    ) -> str:
        """Serve ``source(request)`` (an async generator of body chunks) at ``/name``."""
        self.routes[name] = source
        self.media_types[name] = media_type
        self.closed[name] = threading.Event()
        return f"{self.url}/{name}"

    def start(self) -> None:
        self.url = self._running.enter_context(serve(self._app))

    def stop(self) -> None:
        self._running.close()
