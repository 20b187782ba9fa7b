"""The inspector's page server: the page, its assets, and a small JSON + SSE API.

Only the local page talks to it: the agent endpoint's ``LocalGuard`` (``server/_local_guard``)
refuses a ``Host`` that is not a loopback name (DNS rebinding) and requests from other sites'
pages (``Origin``, ``Sec-Fetch-Site``), and every POST must carry ``X-AGUI-Inspector: 1`` (a
header a cross-site form cannot send). The page follows one session at a time over
``GET /api/stream?session=ID``, an SSE stream of JSON messages: ``sessions`` (the list),
``reset`` then ``rows`` batches (the timeline), ``conversation``, ``timing``, ``findings`` and
``summary``; bursts are coalesced, so 50,000 events arrive as a few large batches.
"""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Callable

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ag_ui.core.errors import AGUIError
from ag_ui.inspect._export import EXPORT_FORMATS, export_session
from ag_ui.inspect._inspector import Inspector, InspectorError
from ag_ui.inspect._live import TurnOptions
from ag_ui.inspect._player import SPEEDS
from ag_ui.inspect._rows import CATEGORIES
from ag_ui.inspect._session import Session
from ag_ui.server._local_guard import LocalGuard

__all__ = ["STATIC", "create_inspector_app"]

ROW_BATCH = 5000
STATIC = Path(__file__).resolve().parent / "static"
"""The page's files (package data: HTML, CSS, JavaScript modules; no build step)."""
_COALESCE = 0.05  # seconds to let a burst of changes gather before the next message
_KEEPALIVE = 15.0
_MAX_FINDINGS = 1000


def _message(kind: str, payload: Any) -> bytes:
    data = json.dumps({"kind": kind, **payload}, ensure_ascii=False, separators=(",", ":"))
    return f"data: {data}\n\n".encode()


async def _first_of(*waits: Callable[[], Awaitable[None]]) -> None:
    async with anyio.create_task_group() as tasks:

        async def wait(job: Callable[[], Awaitable[None]]) -> None:
            await job()
            tasks.cancel_scope.cancel()

        for job in waits:
            tasks.start_soon(wait, job)


async def _stream(inspector: Inspector, session: Session | None) -> AsyncIterator[bytes]:
    inspector_seen = session_seen = -1
    generation = -1
    sent_rows = 0
    last: dict[str, str] = {}
    yield b": inspector\n\n"
    while True:
        if inspector.version != inspector_seen:
            inspector_seen = inspector.version
            yield _message("sessions", inspector.info())
        if session is not None and session.version != session_seen:
            session_seen = session.version
            if session.generation != generation:
                generation, sent_rows = session.generation, 0
                yield _message("reset", {"session": session.id, "generation": generation})
            visible = session.visible
            while sent_rows < visible:
                batch = session.rows[sent_rows : min(visible, sent_rows + ROW_BATCH)]
                yield _message(
                    "rows", {"from": sent_rows, "rows": [row.to_json() for row in batch]}
                )
                sent_rows += len(batch)
            findings = session.findings()
            views = {
                "conversation": session.conversation(),
                "timing": session.timing.to_json(),
                "findings": {
                    "findings": [f.to_json() for f in findings[:_MAX_FINDINGS]],
                    "total": len(findings),
                },
                "summary": {"session": session.summary()},
            }
            for kind, payload in views.items():
                text = json.dumps(payload, sort_keys=True, default=str)
                if last.get(kind) != text:
                    last[kind] = text
                    yield _message(kind, payload)
        with anyio.move_on_after(_KEEPALIVE) as timer:
            waits = [functools.partial(inspector.changed, inspector_seen)]
            if session is not None:
                waits.append(functools.partial(session.changed, session_seen))
            await _first_of(*waits)
        if timer.cancelled_caught:
            yield b": keepalive\n\n"
        await anyio.sleep(_COALESCE)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        raise InspectorError("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise InspectorError("the request body must be a JSON object")
    return body


class _PageOnly:
    """Refuses POSTs without the page's header (a cross-site form cannot send one); the
    ``LocalGuard`` in front of it refuses foreign ``Host`` names and other sites' pages."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"x-agui-inspector") != b"1":
                await _error(403, "missing X-AGUI-Inspector header")(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_inspector_app(inspector: Inspector) -> ASGIApp:
    """The page server for ``inspector`` (its lifespan runs ``inspector.run()``)."""

    def handler(
        work: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            try:
                return await work(request)
            except InspectorError as error:
                return _error(404 if "no session" in str(error) else 409, str(error))
            except (AGUIError, ValueError, ImportError) as error:
                return _error(400, str(error))

        return handle

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    async def info(request: Request) -> Response:
        return JSONResponse(
            {
                **inspector.info(),
                "categories": CATEGORIES,
                "speeds": SPEEDS,
                "formats": list(EXPORT_FORMATS),
            }
        )

    async def stream(request: Request) -> Response:
        session_id = request.query_params.get("session")
        session = inspector.session(session_id) if session_id else None
        return StreamingResponse(
            _stream(inspector, session),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache"},
        )

    async def event_detail(request: Request) -> Response:
        session = inspector.session(request.path_params["session"])
        index = int(request.path_params["index"])
        if not 0 <= index < len(session.rows):
            return _error(404, f"no event {index} in this session")
        return JSONResponse(session.detail(index))

    async def new_thread(request: Request) -> Response:
        return JSONResponse(inspector.new_thread().summary())

    async def stored_threads(request: Request) -> Response:
        return JSONResponse(await inspector.stored_threads())

    async def open_stored(request: Request) -> Response:
        body = await _json_body(request)
        thread_id, title = body.get("threadId"), body.get("title")
        if not isinstance(thread_id, str) or (title is not None and not isinstance(title, str)):
            raise InspectorError('send {"threadId": "<id>", "title": "<optional>"}')
        return JSONResponse(inspector.open_stored_thread(thread_id, title).summary())

    async def turn(request: Request) -> Response:
        body = await _json_body(request)
        inspector.turn(request.path_params["session"], TurnOptions.from_json(body))
        return JSONResponse({"ok": True}, status_code=202)

    async def tools(request: Request) -> Response:
        thread = inspector.thread(request.path_params["session"])
        results = (await _json_body(request)).get("results")
        if not isinstance(results, dict) or not results:
            raise InspectorError('send {"results": {"<tool call id>": <result>}}')
        inspector.start(lambda: thread.answer_tools(results))
        return JSONResponse({"ok": True}, status_code=202)

    async def resume(request: Request) -> Response:
        thread = inspector.thread(request.path_params["session"])
        responses = (await _json_body(request)).get("responses")
        if not isinstance(responses, dict) or not responses:
            raise InspectorError('send {"responses": {"<interrupt id>": {"status": ...}}}')
        inspector.start(lambda: thread.resume(responses))
        return JSONResponse({"ok": True}, status_code=202)

    async def stop(request: Request) -> Response:
        inspector.thread(request.path_params["session"]).abort()
        return JSONResponse({"ok": True})

    async def playback(request: Request) -> Response:
        player = inspector.player(request.path_params["session"])
        body = await _json_body(request)
        player.command(str(body.get("action")), body.get("value"))
        return JSONResponse({"ok": True})

    async def export(request: Request) -> Response:
        session = inspector.session(request.path_params["session"])
        fmt = request.query_params.get("format", "jsonl")
        data = export_session(session, fmt)
        media_type, suffix = EXPORT_FORMATS[fmt]
        name = "".join(c if c.isalnum() or c in "-_." else "-" for c in session.title) or "session"
        disposition = f'attachment; filename="{name.removesuffix(".jsonl")}{suffix}"'
        return Response(data, media_type=media_type, headers={"content-disposition": disposition})

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(inspector.run)
            yield
            tasks.cancel_scope.cancel()

    session_path = "/api/sessions/{session}"
    routes = [
        Route("/", handler(index)),
        Route("/api/info", handler(info)),
        Route("/api/stream", handler(stream)),
        Route(session_path + "/events/{index:int}", handler(event_detail)),
        Route("/api/threads", handler(new_thread), methods=["POST"]),
        Route("/api/stored-threads", handler(stored_threads)),
        Route("/api/stored-threads", handler(open_stored), methods=["POST"]),
        Route(session_path + "/turn", handler(turn), methods=["POST"]),
        Route(session_path + "/tools", handler(tools), methods=["POST"]),
        Route(session_path + "/resume", handler(resume), methods=["POST"]),
        Route(session_path + "/stop", handler(stop), methods=["POST"]),
        Route(session_path + "/playback", handler(playback), methods=["POST"]),
        Route(session_path + "/export", handler(export)),
        Mount("/assets", StaticFiles(directory=STATIC)),
    ]
    return LocalGuard(settable=False).wrap(_PageOnly(Starlette(routes=routes, lifespan=lifespan)))
