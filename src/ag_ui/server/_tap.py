"""The inspector tap: lets ``agui inspect`` watch, live, the runs other clients make.

Off unless ``AgentEndpoint(tap=True)`` (or ``tap=Tap(token=...)``). When on, every run request
to the endpoint is observed at the ASGI boundary: the request body (the ``RunAgentInput``) and
the events of the response, exactly as the client receives them, are copied to the inspectors
connected to ``GET <path>/tap`` (an SSE stream of JSON messages: an SSE response's events as
their ``data`` text, a protobuf response's frames as hex). Nothing else leaves: request
and response headers are never read, SSE ``id:`` lines (which carry a detached run's resume
key) are dropped, and values under secret-looking keys of ``forwardedProps`` are replaced with
``"[redacted]"``.

Access rule: with no token, only clients on the loopback interface may watch (a server bound
to 127.0.0.1 is the intended use); with ``Tap(token=...)``, any client presenting
``Authorization: Bearer <token>`` may, and no other. The endpoint's ``authorize`` hook, when
set, must also accept the watcher's request. Turning the tap on logs a warning when the routes
are made, and each watcher that connects or leaves is logged at WARNING too.

Watchers see runs that start after they connect. A watcher that cannot keep up loses
messages rather than slowing the agent: it is told how many with an ``overflow`` message.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Optional, Union

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from ag_ui.core.errors import RequestRejectedError
from ag_ui.encoder import AGUI_MEDIA_TYPE, SSEDecoder
from ag_ui.server._asgi import send_error

__all__ = ["TAP_SECRET_KEYS", "Tap"]

logger = logging.getLogger("ag_ui.server")

TAP_SECRET_KEYS = re.compile(
    r"token|secret|password|passwd|authori[sz]ation|api[-_]?key|cookie|credential", re.I
)
"""Keys of ``forwardedProps`` (at any depth) whose values the tap never sends."""

_KEEPALIVE = 15.0


def redact(value: Any) -> Any:
    """``value`` with every entry under a secret-looking key replaced by ``"[redacted]"``."""
    if isinstance(value, dict):
        return {
            key: "[redacted]" if TAP_SECRET_KEYS.search(str(key)) else redact(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redact(item) for item in value]
    return value


def _is_loopback(scope: Scope) -> bool:
    client = scope.get("client")
    if not client:
        return False
    try:
        return ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False


class _Observed:
    """One run request seen by the tap: decodes the response body into event messages."""

    def __init__(self, tap: Tap, number: int) -> None:
        self._tap = tap
        self.number = number
        self._body = bytearray()
        self._sse: Optional[SSEDecoder] = None
        self._proto: Optional[bytearray] = None
        self._ended = False

    def request_body(self, message: Message) -> None:
        self._body += message.get("body", b"")
        if message.get("more_body", False):
            return
        try:
            body = json.loads(self._body)
        except ValueError:
            return  # the endpoint answers 400; the response start below says so
        self._body = bytearray()
        if isinstance(body, dict):
            if "forwardedProps" in body:
                body["forwardedProps"] = redact(body["forwardedProps"])
            self._tap.publish({"kind": "run", "tap": self.number, "input": body})

    def response(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            content_type = ""
            for name, value in message.get("headers", []):
                if name.lower() == b"content-type":
                    content_type = value.decode("latin-1").split(";")[0].strip().lower()
            status = int(message["status"])
            if status != 200:
                self._tap.publish({"kind": "rejected", "tap": self.number, "status": status})
            elif content_type == AGUI_MEDIA_TYPE:
                self._proto = bytearray()
            else:
                self._sse = SSEDecoder(max_event_size=64 * 1024 * 1024)
        elif message["type"] == "http.response.body":
            self._feed(message.get("body", b""))
            if not message.get("more_body", False):
                self.end()

    def _feed(self, chunk: bytes) -> None:
        if self._sse is not None:
            for sse in self._sse.feed(chunk):
                self._event(sse.data)  # the id (a resume key) stays behind
        elif self._proto is not None:
            # Whole frames go to the watchers as received (hex); they decode them.
            self._proto += chunk
            while len(self._proto) >= 4:
                size = int.from_bytes(self._proto[:4], "big")
                if len(self._proto) < 4 + size:
                    break
                frame = bytes(self._proto[: 4 + size])
                del self._proto[: 4 + size]
                self._tap.publish({"kind": "event", "tap": self.number, "frame": frame.hex()})

    def _event(self, data: str) -> None:
        self._tap.publish({"kind": "event", "tap": self.number, "data": data})

    def end(self) -> None:
        if not self._ended:
            self._ended = True
            self._tap.publish({"kind": "end", "tap": self.number})


class Tap:
    """The inspector tap of an ``AgentEndpoint`` (see the module docstring).

    ``token``: watchers must send ``Authorization: Bearer <token>``; without one, only loopback
    clients may watch. ``max_watchers`` inspectors at once; each may lag ``buffer`` messages.
    """

    def __init__(
        self, *, token: Optional[str] = None, max_watchers: int = 8, buffer: int = 10_000
    ) -> None:
        if token is not None and len(token) < 16:
            raise ValueError("a tap token must be at least 16 characters (secrets.token_urlsafe())")
        self.token = token
        self.max_watchers = max_watchers
        self.buffer = buffer
        self._watchers: dict[int, tuple[MemoryObjectSendStream[dict[str, Any]], list[int]]] = {}
        self._numbers = 0

    @classmethod
    def from_option(cls, option: Union[bool, Tap, None]) -> Optional[Tap]:
        if option is None or option is False:
            return None
        if option is True:
            return cls()
        if isinstance(option, Tap):
            return option
        raise TypeError(f"tap must be True, False or a Tap, got {type(option).__name__}")

    def announce(self, path: str) -> None:
        """The start-up warning: the tap is on, at ``path``, and who may watch."""
        who = "clients holding its token" if self.token else "any client on this machine (loopback)"
        logger.warning(
            "AG-UI inspector tap is ON at GET %s: %s can watch every run's input and events "
            "(never headers or tokens). Turn it off in production (tap=False).",
            path,
            who,
        )

    @staticmethod
    def redact(value: Any) -> Any:
        """``value`` with what sits under secret-looking keys replaced (``TAP_SECRET_KEYS``)."""
        return redact(value)

    @property
    def watching(self) -> int:
        """How many inspectors are connected."""
        return len(self._watchers)

    # -- observing runs -------------------------------------------------------------------------

    def observe(self, scope: Scope, receive: Receive, send: Send) -> tuple[Receive, Send]:
        """Wrap one run request's ``receive``/``send``; unchanged when nobody watches."""
        if not self._watchers or scope.get("method") != "POST":
            return receive, send
        self._numbers += 1
        observed = _Observed(self, self._numbers)

        async def tapped_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                _safely(observed.request_body, message)
            elif message["type"] == "http.disconnect":
                _safely(lambda _: observed.end(), message)
            return message

        async def tapped_send(message: Message) -> None:
            await send(message)
            _safely(observed.response, message)

        return tapped_receive, tapped_send

    def publish(self, message: dict[str, Any]) -> None:
        message["t"] = time.time()
        for stream, dropped in list(self._watchers.values()):
            try:
                if dropped[0]:
                    stream.send_nowait(
                        {"kind": "overflow", "dropped": dropped[0], "t": message["t"]}
                    )
                    dropped[0] = 0
                stream.send_nowait(message)
            except anyio.WouldBlock:
                dropped[0] += 1
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass

    # -- the watchers' endpoint -----------------------------------------------------------------

    def endpoint(self, authorize: Callable[[Request], Awaitable[Any]]) -> _TapEndpoint:
        """The ASGI endpoint for ``GET <path>/tap``; ``authorize`` is the endpoint's hook."""
        return _TapEndpoint(self, authorize)

    async def serve_watcher(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        authorize: Callable[[Request], Awaitable[Any]],
    ) -> None:
        request = Request(scope)
        try:
            if request.method != "GET":
                raise RequestRejectedError(
                    405, "method_not_allowed", "use GET", headers={"allow": "GET"}
                )
            self._check_access(request, scope)
            await authorize(request)
            if len(self._watchers) >= self.max_watchers:
                raise RequestRejectedError(
                    503, "too_many_watchers", "too many inspectors are watching; retry later"
                )
        except RequestRejectedError as rejection:
            await send_error(send, rejection)
            return
        await self._stream(scope, receive, send)

    def _check_access(self, request: Request, scope: Scope) -> None:
        if self.token is not None:
            given = request.headers.get("authorization", "")
            expected = f"Bearer {self.token}"
            if not secrets.compare_digest(given.encode(), expected.encode()):
                raise RequestRejectedError(
                    401, "unauthorized", "the tap needs 'Authorization: Bearer <token>'"
                )
        elif not _is_loopback(scope):
            raise RequestRejectedError(
                403,
                "forbidden",
                "the tap answers loopback clients only; give the Tap a token to watch from "
                "elsewhere",
            )

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        sender, receiver = anyio.create_memory_object_stream[dict[str, Any]](self.buffer)
        key = id(sender)
        self._watchers[key] = (sender, [0])
        client = scope.get("client") or ("?", 0)
        logger.warning(
            "AG-UI inspector tap: %s:%s is watching (%d watching)",
            client[0],
            client[1],
            self.watching,
        )
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream"),
                    (b"cache-control", b"no-cache"),
                ],
            }
        )
        try:
            async with anyio.create_task_group() as tasks:

                async def watch_disconnect() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    tasks.cancel_scope.cancel()

                tasks.start_soon(watch_disconnect)
                await _send_chunk(send, b": tap\n\n")
                while True:
                    with anyio.move_on_after(_KEEPALIVE) as timer:
                        message = await receiver.receive()
                    if timer.cancelled_caught:
                        await _send_chunk(send, b": keepalive\n\n")
                        continue
                    data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
                    await _send_chunk(send, f"data: {data}\n\n".encode())
        except OSError:
            pass  # the watcher went away mid-write
        finally:
            del self._watchers[key]
            sender.close()
            receiver.close()
            logger.warning("AG-UI inspector tap: %s:%s stopped watching", client[0], client[1])


class _TapEndpoint:
    """A class, not a function, so Starlette mounts it as a raw ASGI app."""

    def __init__(self, tap: Tap, authorize: Callable[[Request], Awaitable[Any]]) -> None:
        self._tap = tap
        self._authorize = authorize

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._tap.serve_watcher(scope, receive, send, self._authorize)


async def _send_chunk(send: Send, body: bytes) -> None:
    await send({"type": "http.response.body", "body": body, "more_body": True})


def _safely(handle: Callable[[Message], None], message: Message) -> None:
    # The tap must never break a client's run: a decoding problem only costs the watchers.
    try:
        handle(message)
    except Exception:
        logger.debug("AG-UI inspector tap: could not decode a message", exc_info=True)
