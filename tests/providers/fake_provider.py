"""A local stand-in for the model providers' HTTP APIs, for the real ``openai`` and
``anthropic`` SDKs to talk to.

It serves ``POST /v1/chat/completions``, ``/v1/responses`` and ``/v1/messages`` on a real
uvicorn (127.0.0.1, a port the OS picks) and answers each request with the next scripted
``Reply`` for that path: an SSE body replayed frame by frame (the fixtures in ``fixtures/`` are
written in each provider's documented wire format), an HTTP error, a stream broken after some
frames, a stream that goes silent, a request never answered; any other path is a 404 (a base
URL without ``/v1``). It records every request body, and whether a stream ended because the
client went away.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import anyio

from tests.providers.agui_server import UvicornThread

FIXTURES = Path(__file__).resolve().parent / "fixtures"

CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"
MESSAGES = "/v1/messages"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def frames_of(body: bytes) -> list[bytes]:
    """The SSE events of ``body``, each with its blank-line terminator."""
    return [part + b"\n\n" for part in body.split(b"\n\n") if part.strip()]


@dataclass
class Reply:
    """One scripted answer."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"
    cut_after: Optional[int] = None
    """Send this many frames, then break the connection (no end of the chunked body)."""
    stall_after: Optional[int] = None
    """Send this many frames, then go silent until the client leaves."""
    end_after: Optional[int] = None
    """Send this many frames, then end the body cleanly (a stream that stops short)."""
    delay: float = 0.0
    """Seconds between frames."""
    silent: bool = False
    """Take the request and never answer it (no status, no headers) until the client leaves."""

    @classmethod
    def sse(cls, name: str, **options: Any) -> Reply:
        return cls(fixture(name), **options)

    @classmethod
    def error(cls, status: int, payload: Any, **options: Any) -> Reply:
        return cls(
            json.dumps(payload).encode(), status=status, content_type="application/json", **options
        )


@dataclass
class Recorded:
    path: str
    body: Any
    headers: dict[str, str]


class _Broken(Exception):
    """Raised inside the response to make uvicorn drop the connection mid-body."""


class FakeProvider:
    """Start with ``with FakeProvider() as fake:``; ``fake.url`` is the base URL."""

    def __init__(self) -> None:
        self._replies: dict[str, deque[Reply]] = defaultdict(deque)
        self.requests: list[Recorded] = []
        self.client_left = threading.Event()
        self.frames_sent: list[int] = []
        self._uvicorn = UvicornThread(self._app, lifespan="off", interface="asgi3")
        self.url = f"http://127.0.0.1:{self._uvicorn.port}"

    # -- scripting -----------------------------------------------------------------------------

    def queue(self, path: str, *replies: Reply) -> None:
        self._replies[path].extend(replies)

    def bodies(self, path: Optional[str] = None) -> list[Any]:
        return [r.body for r in self.requests if path is None or r.path == path]

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    # -- lifecycle -----------------------------------------------------------------------------

    def __enter__(self) -> FakeProvider:
        self._uvicorn.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._uvicorn.stop()

    # -- the ASGI app --------------------------------------------------------------------------

    async def _app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = scope["path"]
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        self.requests.append(Recorded(path, json.loads(body) if body else None, headers))
        if path not in (CHAT, RESPONSES, MESSAGES):  # as Ollama answers a path it does not serve
            await send(
                {
                    "type": "http.response.start",
                    "status": 404,
                    "headers": [(b"content-type", b"text/plain")],
                }
            )
            await send({"type": "http.response.body", "body": b"404 page not found"})
            return
        if not self._replies[path]:
            await self._send_whole(
                send, 500, {"error": {"message": f"no reply scripted for {path}"}}
            )
            return
        reply = self._replies[path].popleft()
        if reply.silent:
            while (await receive())["type"] != "http.disconnect":
                pass
            self.client_left.set()
            return
        response_headers = [(b"content-type", reply.content_type.encode())]
        response_headers += [(k.encode(), v.encode()) for k, v in reply.headers.items()]
        if reply.status != 200 or reply.content_type != "text/event-stream":
            await send(
                {"type": "http.response.start", "status": reply.status, "headers": response_headers}
            )
            await send({"type": "http.response.body", "body": reply.body})
            return
        await send({"type": "http.response.start", "status": 200, "headers": response_headers})
        await self._stream(reply, receive, send)

    async def _stream(self, reply: Reply, receive: Any, send: Any) -> None:
        sent = 0
        left = anyio.Event()
        broken = False

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            left.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch)
            try:
                for frame in frames_of(reply.body):
                    if reply.cut_after is not None and sent >= reply.cut_after:
                        broken = True
                        break
                    if reply.stall_after is not None and sent >= reply.stall_after:
                        await left.wait()
                        break
                    if reply.end_after is not None and sent >= reply.end_after:
                        await send({"type": "http.response.body", "body": b""})
                        break
                    if reply.delay:
                        with anyio.move_on_after(reply.delay):
                            await left.wait()
                    if left.is_set():
                        break
                    await send({"type": "http.response.body", "body": frame, "more_body": True})
                    sent += 1
                else:
                    await send({"type": "http.response.body", "body": b""})
            except OSError:  # the client went away while we were sending
                left.set()
            finally:
                self.frames_sent.append(sent)
                if left.is_set():
                    self.client_left.set()
                tasks.cancel_scope.cancel()
        if broken:
            raise _Broken("scripted cut")

    async def _send_whole(self, send: Any, status: int, payload: Any) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": json.dumps(payload).encode()})
