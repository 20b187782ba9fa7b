"""The HTTP shell: POST a run input, check the answer, stream decoded events. Async, thin.

All decoding is in the sans-IO decoders (``ag_ui.client._decoding``); this module only moves bytes
and turns HTTP failures into typed errors:

* a non-2xx answer raises ``HTTPStatusError`` with ``status`` and the parsed body;
* a 2xx answer that is not an event stream (an HTML login page) raises ``ContentTypeError``;
* nothing received (no event, no keepalive comment) for ``idle_timeout`` seconds raises
  ``IdleTimeoutError``;
* redirects are followed as fetch follows them, except that a 301/302/303 answer to a run's
  ``POST`` raises ``RedirectError`` rather than turning the run into a ``GET``
  (``ag_ui.client._redirects``);
* connection failures raise ``TransportError``; a connection that breaks once the event
  stream has started raises ``IncompleteStreamError``;
* cancelling the task (or ``AbortSignal.abort()``) closes the connection.
"""

from __future__ import annotations

import functools
import json
import ssl
import urllib.request
from collections.abc import AsyncIterator, Mapping
from typing import Any, Optional, TypeVar

import httpx

from ag_ui.client._cursor import ResumeCursor
from ag_ui.client._debug import DebugLog
from ag_ui.client._decoding import (
    ProtoEventDecoder,
    decoder_for_content_type,
    is_known_content_type,
)
from ag_ui.client._idle import idle_reads
from ag_ui.client._reconnect import retry_after_seconds
from ag_ui.client._redirects import redirect_target, redirected_headers
from ag_ui.client._signal import AbortSignal
from ag_ui.client._streaming_transport import StreamingTransport
from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import (
    ConnectionLostError,
    DecodeError,
    HTTPStatusError,
    TransportError,
)
from ag_ui.encoder import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE
from ag_ui.telemetry._propagation import inject_current

__all__ = [
    "AbortSignal",
    "ConnectionLostError",
    "accept_header",
    "fetch_capabilities",
    "new_http_client",
    "stream_events",
]

_ERROR_BODY_LIMIT = 64 * 1024
_T = TypeVar("_T")


@functools.cache
def _default_ssl_context() -> ssl.SSLContext:
    # Loading the CA bundle costs ~20 ms; do it once per process, not once per run.
    return httpx.create_ssl_context()


def new_http_client(timeout: float = 30.0) -> httpx.AsyncClient:
    """The ``httpx.AsyncClient`` an ``HttpAgent`` opens when none was given: ``timeout`` for
    connect/write/pool, no read timeout (``idle_timeout`` covers reads), the process-wide
    default TLS context, and ``StreamingTransport`` for plain ``http://`` unless a proxy is
    configured in the environment (then httpx's own transport, which honours it, serves all).

    Pass it as ``http_client`` to share one client (and its connections) between agents.
    """
    verify = _default_ssl_context()
    mounts: dict[str, httpx.AsyncBaseTransport] = {}
    if not _environment_proxies():
        fallback = httpx.AsyncHTTPTransport(verify=verify)
        mounts["http://"] = StreamingTransport(fallback)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, read=None), verify=verify, mounts=mounts
    )


def _environment_proxies() -> bool:
    """True when HTTP(S)_PROXY / ALL_PROXY (any case) or the platform configures a proxy."""
    return bool(urllib.request.getproxies())


def accept_header(proto: bool) -> str:
    """What to ask for: SSE, or protobuf with SSE as a fallback for servers without it."""
    return f"{AGUI_MEDIA_TYPE}, {SSE_MEDIA_TYPE};q=0.5" if proto else SSE_MEDIA_TYPE


async def _read_error_body(response: httpx.Response) -> Any:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= _ERROR_BODY_LIMIT:
            break
    raw = b"".join(chunks)[:_ERROR_BODY_LIMIT]
    text = raw.decode("utf-8", "replace")
    if "json" in response.headers.get("content-type", "").lower():
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


async def _first_bytes(response: httpx.Response, limit: int = 200) -> str:
    async for chunk in response.aiter_bytes():
        return chunk[:limit].decode("utf-8", "replace")
    return ""


async def stream_events(
    client: httpx.AsyncClient,
    url: str,
    body: Optional[bytes],
    *,
    headers: Optional[Mapping[str, str]] = None,
    proto: bool = False,
    idle_timeout: Optional[float] = None,
    max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
    signal: Optional[AbortSignal] = None,
    params: Optional[Mapping[str, str]] = None,
    cursor: Optional[ResumeCursor] = None,
    debug: Optional[DebugLog] = None,
) -> AsyncIterator[AnyEvent]:
    """POST ``body`` (JSON) to ``url`` (or GET it when ``body`` is ``None``) and yield the
    events of the streamed answer.

    User ``headers`` go first; ``Content-Type`` and ``Accept`` are always set by the client.
    Close the generator (``contextlib.aclosing``) to release the connection early. A ``cursor``
    follows the resume point of a detached run (docs/resume.md); in a resumable response a
    frame cut off at the end is a lost connection (``ConnectionLostError``), not an error.
    ``debug`` logs the stream format and each event as decoded.
    """
    request_headers = dict(headers or {})
    for key in [k for k in request_headers if k.lower() in ("content-type", "accept")]:
        del request_headers[key]
    if body is not None:
        request_headers["Content-Type"] = "application/json"
    request_headers["Accept"] = accept_header(proto)
    # W3C trace context of the caller's current span (when the application uses
    # OpenTelemetry), so that the server's run continues the caller's trace.
    inject_current(request_headers)
    signal = signal or AbortSignal()
    method = "GET" if body is None else "POST"
    request = client.build_request(
        method, url, content=body, headers=request_headers, params=params
    )
    response: Optional[httpx.Response] = None
    streaming = False
    reads = idle_reads(idle_timeout, signal)
    read = reads.read
    try:
        hops = 0
        while True:
            # Redirects are followed here, by this SDK's rules (``_redirects``), whatever the
            # client's own ``follow_redirects`` says.
            send = functools.partial(client.send, request, stream=True, follow_redirects=False)
            response = await read(send)
            if response is None:
                return
            target = redirect_target(
                method,
                request.url,
                response.status_code,
                response.headers.get("location"),
                hops=hops,
            )
            if target is None:
                break
            await response.aclose()
            hops += 1
            if debug is not None:
                debug.lifecycle(
                    "HTTP", "Redirected:", status=response.status_code, location=str(target)
                )
            request_headers = redirected_headers(request_headers, request.url, target)
            request = client.build_request(method, target, content=body, headers=request_headers)
        if not response.is_success:
            answered = url if not hops else str(request.url.copy_with(query=None))
            raise HTTPStatusError(
                response.status_code,
                await _read_error_body(response),
                url=answered,
                retry_after=retry_after_seconds(response.headers.get("retry-after")),
            )
        content_type = response.headers.get("content-type")
        if not is_known_content_type(content_type):
            decoder_for_content_type(content_type, snippet=await _first_bytes(response))
        decoder = decoder_for_content_type(content_type, max_event_size=max_event_size)
        stage = "PROTO" if isinstance(decoder, ProtoEventDecoder) else "SSE"
        if debug is not None:
            parser = "protobuf" if stage == "PROTO" else "sse"
            debug.lifecycle(
                "HTTP", "Stream format detected:", contentType=content_type, parser=parser
            )
        if cursor is not None:
            cursor.on_response(response.headers)
        streaming = True
        # Undecoded bytes skip httpx's per-chunk decoder layers when nothing is compressed
        # (a response built in memory, e.g. by a mock transport, only offers decoded bytes).
        encoded = response.headers.get("content-encoding", "identity").lower() != "identity"
        raw = not encoded and not response.is_stream_consumed
        chunks = (response.aiter_raw() if raw else response.aiter_bytes()).__aiter__()
        next_chunk = functools.partial(anext, chunks, None)
        while True:
            chunk = await read(next_chunk)
            if chunk is None:
                break
            for event in decoder.feed(chunk):
                if signal.aborted:
                    return
                if debug is not None:
                    debug.event(stage, "Event received:", event)
                yield event
            if cursor is not None:
                cursor.advance(decoder)
        if signal.aborted:
            return
        deferred = getattr(decoder, "raise_deferred", None)
        if deferred is not None:
            deferred()  # a bad event after the last chunk's good ones: not a cut frame
        try:
            last_events = decoder.close()
        except DecodeError as exc:
            if cursor is None or not cursor.resumable:
                raise
            raise ConnectionLostError(f"the stream was cut inside a frame ({exc})") from exc
        for event in last_events:
            if debug is not None:
                debug.event(stage, "Event received:", event)
            yield event
        if cursor is not None:
            cursor.advance(decoder)
    except httpx.TransportError as exc:
        what = f"{type(exc).__name__}: {exc}"
        if streaming:
            raise ConnectionLostError(
                f"the connection broke while reading the event stream ({what})"
            ) from exc
        raise TransportError(f"request to {url} failed: {what}") from exc
    finally:
        reads.close()
        if response is not None:
            await response.aclose()


async def fetch_capabilities(
    client: Optional[httpx.AsyncClient],
    agent_url: str,
    *,
    headers: Optional[Mapping[str, str]] = None,
    timeout: float = 30.0,
) -> Optional[AgentCapabilities]:
    """GET ``<agent_url>/capabilities`` (this SDK's server convention); ``None`` on 404.

    Redirects are followed as httpx follows them for a ``GET`` (up to the client's
    ``max_redirects``, 20 by default; ``Authorization`` dropped across origins)."""
    url = agent_url.rstrip("/") + "/capabilities"
    try:
        if client is not None:
            response = await client.get(url, headers=headers, follow_redirects=True)
        else:
            async with new_http_client(timeout) as own_client:
                response = await own_client.get(url, headers=headers, follow_redirects=True)
    except httpx.TransportError as exc:
        raise TransportError(f"request to {url} failed: {type(exc).__name__}: {exc}") from exc
    if response.status_code == 404:
        return None
    if not response.is_success:
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text
        raise HTTPStatusError(response.status_code, body, url=url)
    return AgentCapabilities.model_validate_json(response.content)
