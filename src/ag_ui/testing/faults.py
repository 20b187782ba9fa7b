"""Fault injection for event streams, on either side of the wire.

* ``FaultyApp(app, *faults)`` wraps any ASGI app (this SDK's server, a FastAPI app with any
  framework's adapter): every client, a browser or the TypeScript client included, receives the
  damaged stream. A cut makes the server drop the connection mid-body (the app is told the
  client left, as after a real disconnect).
* ``FaultyTransport(transport, *faults)`` wraps an httpx transport (the network's, or the
  in-process ``ASGIStreamTransport``): the client under test receives the damaged stream from
  any server. A cut raises ``httpx.RemoteProtocolError`` in the middle of the body, as a dropped
  connection does.

The faults (indexes count the event frames the app sent, from 0; keepalive comments are not
counted): ``Cut(after_events=N)`` / ``Cut(after_bytes=N)``, ``Stall(seconds, before_event=N)``,
``Malformed(before_event=N)``, ``Duplicate(event=N)``, ``Reorder(event=N)`` (swaps N and N+1),
``Drop(event=N)``, ``DropTerminal()``, ``Throttle(bytes_per_second)``. Only event-stream
responses (SSE or protobuf) are touched; ``responses=K`` limits the faults to the first K of
them (a cut once, then a reconnect that works); ``per_response=[[faults of the first], [faults
of the second], ...]`` gives each response its own (the responses after the list: none).

>>> from ag_ui.testing.faults import Cut, FaultyApp
>>> from ag_ui.demo import create_demo_app
>>> app = FaultyApp(create_demo_app(), Cut(after_events=3))
"""

from __future__ import annotations

from collections.abc import AsyncIterator, MutableMapping, Sequence
from typing import Any, Optional

import anyio
import httpx

from ag_ui.testing._asgi import ASGIApp, ClientDisconnected
from ag_ui.testing._decoding import is_event_stream
from ag_ui.testing._fault_plan import (
    Action,
    Cut,
    CutNow,
    Drop,
    DropTerminal,
    Duplicate,
    Fault,
    FaultPlan,
    Malformed,
    Reorder,
    Sleep,
    Stall,
    Throttle,
    Write,
    paced,
)

__all__ = [
    "Cut",
    "Drop",
    "DropTerminal",
    "Duplicate",
    "Fault",
    "FaultPlan",
    "FaultyApp",
    "FaultyTransport",
    "Malformed",
    "Reorder",
    "Stall",
    "Throttle",
]

_CUT_MESSAGE = "connection cut by fault injection"


class _Schedule:
    """Which faults the next event-stream response gets: the same ones for every response (or
    the first ``responses``), or one list per response in order (``per_response``)."""

    def __init__(
        self,
        faults: Sequence[Fault],
        responses: Optional[int],
        per_response: Optional[Sequence[Sequence[Fault]]] = None,
    ) -> None:
        if responses is not None and responses < 0:
            raise ValueError("responses must be >= 0")
        for listed in [faults, *(per_response or [])]:
            FaultPlan(listed, None)  # check the faults now, not at the first request
        self.faults = tuple(faults)
        self.left = responses
        self.per_response = [tuple(f) for f in per_response] if per_response is not None else None
        self.faulted = 0

    def take(self) -> Optional[tuple[Fault, ...]]:
        """The faults for the next event-stream response, or ``None`` (left alone)."""
        if self.per_response is not None:
            faults = self.per_response.pop(0) if self.per_response else ()
        else:
            if self.left is not None:
                if self.left <= 0:
                    return None
                self.left -= 1
            faults = self.faults
        if not faults:
            return None
        self.faulted += 1
        return faults


class FaultyApp:
    """An ASGI app that serves ``app`` with ``faults`` applied to its event-stream responses.

    ``faulted`` counts the responses damaged so far.
    """

    def __init__(
        self,
        app: ASGIApp,
        *faults: Fault,
        responses: Optional[int] = None,
        per_response: Optional[Sequence[Sequence[Fault]]] = None,
    ) -> None:
        self.app = app
        self.faults = faults
        self._schedule = _Schedule(faults, responses, per_response)

    @property
    def faulted(self) -> int:
        return self._schedule.faulted

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        await _FaultyExchange(self, receive, send).run(scope)


class _FaultyExchange:
    def __init__(self, owner: FaultyApp, receive: Any, send: Any) -> None:
        self.owner = owner
        self._receive = receive
        self._send = send
        self.plan: Optional[FaultPlan] = None
        self.cut = anyio.Event()

    async def run(self, scope: Any) -> None:
        try:
            await self.owner.app(scope, self.receive, self.send)
        except Exception:
            if not self.cut.is_set():
                raise
            # The app noticed the "disconnect" in its own way; the connection is already cut.

    async def receive(self) -> MutableMapping[str, Any]:
        if self.cut.is_set():
            return {"type": "http.disconnect"}
        result: list[MutableMapping[str, Any]] = []
        async with anyio.create_task_group() as tasks:

            async def inner() -> None:
                result.append(await self._receive())
                tasks.cancel_scope.cancel()

            async def cut() -> None:
                await self.cut.wait()
                result.append({"type": "http.disconnect"})
                tasks.cancel_scope.cancel()

            tasks.start_soon(inner)
            tasks.start_soon(cut)
        return result[0]

    async def send(self, message: MutableMapping[str, Any]) -> None:
        if self.cut.is_set():
            raise ClientDisconnected(_CUT_MESSAGE)
        kind = message.get("type")
        if kind == "http.response.start":
            headers = {bytes(k).lower(): bytes(v) for k, v in message.get("headers", [])}
            content_type = headers.get(b"content-type", b"").decode("latin-1")
            faults = self.owner._schedule.take() if is_event_stream(content_type) else None
            if faults is not None:
                self.plan = FaultPlan(faults, content_type)
            await self._send(message)
            return
        if kind != "http.response.body" or self.plan is None:
            await self._send(message)
            return
        more = bool(message.get("more_body", False))
        actions = self.plan.feed(bytes(message.get("body", b"")))
        if not more:
            actions += self.plan.close()
        await self._perform(actions)
        if self.cut.is_set():
            raise ClientDisconnected(_CUT_MESSAGE)
        if not more:
            await self._send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _perform(self, actions: list[Action]) -> None:
        assert self.plan is not None
        for action in actions:
            if isinstance(action, Sleep):
                await anyio.sleep(action.seconds)
            elif isinstance(action, CutNow):
                self.cut.set()
                return
            elif isinstance(action, Write):
                for piece, wait in _pieces(action.data, self.plan.throttle):
                    if wait:
                        await anyio.sleep(wait)
                    await self._send(
                        {"type": "http.response.body", "body": piece, "more_body": True}
                    )


def _pieces(data: bytes, throttle: Optional[float]) -> list[tuple[bytes, float]]:
    if throttle is None:
        return [(data, 0.0)]
    return paced(data, throttle)


class FaultyTransport(httpx.AsyncBaseTransport):
    """An httpx transport that applies ``faults`` to the event-stream responses of ``inner``.

    ``requests`` lists every request sent through it; ``faulted`` counts damaged responses.

    >>> import httpx
    >>> transport = FaultyTransport(httpx.AsyncHTTPTransport(), Cut(after_events=2))
    >>> client = httpx.AsyncClient(transport=transport)
    """

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *faults: Fault,
        responses: Optional[int] = None,
        per_response: Optional[Sequence[Sequence[Fault]]] = None,
    ) -> None:
        self.inner = inner
        self.faults = faults
        self.requests: list[httpx.Request] = []
        self._schedule = _Schedule(faults, responses, per_response)

    @property
    def faulted(self) -> int:
        return self._schedule.faulted

    async def __aenter__(self) -> FaultyTransport:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.inner.__aexit__(*exc_info)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = await self.inner.handle_async_request(request)
        content_type = response.headers.get("content-type")
        faults = self._schedule.take() if is_event_stream(content_type) else None
        if faults is None:
            return response
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_FaultyStream(response.stream, FaultPlan(faults, content_type)),
            request=request,
            extensions=response.extensions,
        )


class _FaultyStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, plan: FaultPlan) -> None:
        self._inner = inner
        self._plan = plan

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            async for piece in self._perform(self._plan.feed(chunk)):
                yield piece
        async for piece in self._perform(self._plan.close()):
            yield piece

    async def _perform(self, actions: list[Action]) -> AsyncIterator[bytes]:
        for action in actions:
            if isinstance(action, Sleep):
                await anyio.sleep(action.seconds)
            elif isinstance(action, CutNow):
                await self._inner.aclose()  # the server sees the client go, as after a real cut
                raise httpx.RemoteProtocolError(_CUT_MESSAGE)
            elif isinstance(action, Write):
                for piece, wait in _pieces(action.data, self._plan.throttle):
                    if wait:
                        await anyio.sleep(wait)
                    yield piece

    async def aclose(self) -> None:
        await self._inner.aclose()
