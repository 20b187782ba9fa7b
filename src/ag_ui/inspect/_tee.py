"""An httpx transport that shows the inspector every request body and response frame.

``HttpAgent`` does the talking (requests, decoding, reconnects, verification, interrupts); this
tee sits at the transport seam under it and copies, without changing a byte, what goes out and
what comes back: the ``RunAgentInput`` of each run and each frame as received (SSE ``data``
text, or a protobuf frame's hex) with its arrival time, and the run's trace id when the server
sends one (``x-ag-ui-trace-id``, docs/telemetry.md). Request headers are never looked at.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import AsyncIterator
from typing import Any, Callable, Optional, Protocol

import httpx

from ag_ui.core.decoding import AnyEvent, parse_any_event, parse_run_agent_input
from ag_ui.core.errors import AGUIError, UnknownEventTypeError
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import AGUI_MEDIA_TYPE, SSEDecoder
from ag_ui.telemetry._propagation import TRACE_ID_HEADER

__all__ = ["FrameSink", "TeeTransport"]


class FrameSink(Protocol):
    """Where the tee reports (the live conversation)."""

    def request_sent(self, run_input: Optional[RunAgentInput], reconnect: bool) -> None: ...

    def trace_received(self, trace_id: str) -> None:
        """The response named its run's trace id (``x-ag-ui-trace-id``)."""

    def frame_received(self, event: Optional[AnyEvent], raw: str, problem: Optional[str]) -> None:
        """``event`` is None when the frame is not a known event (``problem`` says why)."""


class _Splitter:
    """Cuts a response body into frames: SSE messages or length-prefixed protobuf frames."""

    def __init__(
        self, content_type: str, report: Callable[[Optional[AnyEvent], str, Optional[str]], None]
    ) -> None:
        self._proto = content_type.split(";")[0].strip().lower() == AGUI_MEDIA_TYPE
        self._sse = SSEDecoder(max_event_size=64 * 1024 * 1024)
        self._buffer = bytearray()
        self._report = report

    def feed(self, chunk: bytes) -> None:
        if self._proto:
            self._buffer += chunk
            while len(self._buffer) >= 4:
                size = int.from_bytes(self._buffer[:4], "big")
                if len(self._buffer) < 4 + size:
                    break
                frame = bytes(self._buffer[: 4 + size])
                del self._buffer[: 4 + size]
                self._proto_frame(frame)
            return
        for message in self._sse.feed(chunk):
            raw = message.data if message.id is None else f"id: {message.id}\ndata: {message.data}"
            self._event(functools.partial(parse_any_event, message.data), raw)

    def _proto_frame(self, frame: bytes) -> None:
        from ag_ui.proto import decode_event

        self._event(functools.partial(decode_event, frame[4:]), frame.hex(" ", -4))

    def _event(self, parse: Callable[[], AnyEvent], raw: str) -> None:
        try:
            event = parse()
        except UnknownEventTypeError as exc:
            self._report(None, raw, f"skipped, as a client does: {exc}")
            return
        except (AGUIError, ImportError) as exc:
            self._report(None, raw, f"not a valid event: {exc}")
            return
        self._report(event, raw, None)


class _TeeStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, splitter: _Splitter) -> None:
        self._inner = inner
        self._splitter = splitter

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            with contextlib.suppress(Exception):  # the inspector must never break the stream
                self._splitter.feed(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class TeeTransport(httpx.AsyncBaseTransport):
    """Wraps a transport (default: httpx's own) and reports to ``sink``."""

    def __init__(self, sink: FrameSink, inner: Optional[httpx.AsyncBaseTransport] = None) -> None:
        self.sink = sink
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.sink.request_sent(_run_input(request.content), reconnect=False)
        elif request.url.path.endswith("/connect"):
            # ``?threadId=`` alone restores a stored thread: a run of its own, not a reconnect.
            resumes = "last-event-id" in request.headers or any(
                name in request.url.params for name in ("lastEventId", "runKey")
            )
            self.sink.request_sent(None, reconnect=resumes)
        response = await self._inner.handle_async_request(request)
        if request.method != "POST" and not request.url.path.endswith("/connect"):
            return response
        trace_id = response.headers.get(TRACE_ID_HEADER)
        if trace_id:
            self.sink.trace_received(trace_id)
        splitter = _Splitter(response.headers.get("content-type", ""), self.sink.frame_received)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_TeeStream(response.stream, splitter),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _run_input(body: bytes) -> Optional[RunAgentInput]:
    try:
        value: Any = json.loads(body)
        return parse_run_agent_input(value)
    except (ValueError, AGUIError):
        return None
