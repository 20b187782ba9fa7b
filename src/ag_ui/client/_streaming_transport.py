"""``StreamingTransport``: plain-HTTP/1.1 requests for the client's own ``httpx.AsyncClient``.

An event stream arrives as many small HTTP chunks (a server flushes each event). httpx hands
them over one chunk at a time, through h11's event machinery and httpcore's and httpx's
generator layers: over loopback that was most of the client's time per event. This transport
answers ``http://`` requests on asyncio itself and hands the body over once per socket read
(every complete chunk of that read, joined). Everything else goes to httpx's own transport:
``https://`` (TLS), other event loops (trio), and, because the client only mounts this transport
for ``http://`` when no proxy is configured in the environment, proxies.

It keeps what the client relies on: the request's connect/write/read/pool timeouts
(``httpx.ConnectTimeout``...), keep-alive connections reused for the next request (and
dropped when idle past ``keepalive_expiry`` or closed by the server), and httpx's errors
(``ConnectError``, ``ReadError``, ``RemoteProtocolError`` for a body cut short), so that a
connection lost mid-stream is reported and reconnected exactly as with httpx's transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Optional, TypeVar

import httpx

__all__ = ["StreamingTransport"]

_T = TypeVar("_T")
_READ_SIZE = 64 * 1024
_MAX_HEAD = 64 * 1024  # status line and headers
_MAX_SIZE_LINE = 1024  # a chunk-size line (hex size and extensions)


class _NoResponse(httpx.RemoteProtocolError):
    """The connection failed before any byte of the answer: a kept-alive connection the
    server had closed meanwhile, worth one fresh attempt."""


def _on_asyncio() -> bool:
    try:
        return asyncio.current_task() is not None
    except RuntimeError:
        return False


async def _bounded(step: Awaitable[_T], seconds: Optional[float], error: type[Exception]) -> _T:
    if seconds is None:
        return await step
    try:
        return await asyncio.wait_for(step, seconds)
    except asyncio.TimeoutError:
        raise error(f"timed out after {seconds:g} s") from None


class _Connection:
    """One TCP connection to a host, used for one request at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = time.monotonic()

    def usable(self, expiry: float) -> bool:
        """Still worth a request: not closed by the server, not idle for too long."""
        return (
            not self.reader.at_eof()
            and not self.writer.is_closing()
            and time.monotonic() - self.idle_since < expiry
        )

    def close(self) -> None:
        # asyncio closes the socket on a later turn of the loop; shut it down now so the server
        # learns at once that the client left (and stops the agent), even if the caller goes on
        # without yielding to the loop.
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.writer.close()


def _whole_chunks(buffer: bytes, pos: int, out: list[bytes]) -> int:
    """Append the data of each complete chunk of ``buffer`` from ``pos`` on to ``out``; return
    where the first chunk that is not plain and complete begins.

    The hot loop of a stream (a server flushes each event as one chunk, and a read holds
    several): no state kept, one pass per chunk. It stops at anything else (the last chunk, a
    size line with an extension, sign or blanks, a chunk cut by the read, a missing CRLF),
    which ``_ChunkedBody.feed``'s general loop then reads from there, with its errors.
    """
    end = len(buffer)
    find, append = buffer.find, out.append
    while True:
        line_end = find(b"\r\n", pos)
        if line_end <= pos:
            return pos
        size_line = buffer[pos:line_end]
        try:
            size = int(size_line, 16)
        except ValueError:
            return pos
        # Every hex digit is at or above "0" (48); "+", "-", blanks are below it.
        if not size or size_line[0] < 48:
            return pos
        start = line_end + 2
        stop = start + size
        if stop + 2 > end or buffer[stop : stop + 2] != b"\r\n":
            return pos
        append(buffer[start:stop])
        pos = stop + 2


def _chunk_size(size_line: bytes) -> int:
    """A chunk-size line's size, extensions (after ``;``) ignored; refuses what is not hex."""
    size_text = size_line.split(b";", 1)[0].strip()
    try:
        size = int(size_text, 16)
    except ValueError:
        raise httpx.RemoteProtocolError(
            f"malformed chunked body: chunk size {size_text!r}"
        ) from None
    if size < 0 or (size_text[:1] in (b"+", b"-")):
        raise httpx.RemoteProtocolError(f"malformed chunked body: chunk size {size}")
    return size


class _ChunkedBody:
    """Decodes ``Transfer-Encoding: chunked`` in bulk: every complete chunk of a read at once."""

    def __init__(self) -> None:
        self.done = False
        self._buffer = b""
        self._remaining = 0  # bytes of the current chunk's data still to come
        self._expect_crlf = False  # the CRLF that ends a chunk's data

    def feed(self, data: bytes) -> bytes:
        buffer = self._buffer + data if self._buffer else data
        out: list[bytes] = []
        pos, end = 0, len(buffer)
        while not self.done:
            if self._remaining:
                take = min(self._remaining, end - pos)
                out.append(buffer[pos : pos + take])
                pos += take
                self._remaining -= take
                if self._remaining:
                    break
                self._expect_crlf = True
            if self._expect_crlf:
                if end - pos < 2:
                    break
                if buffer[pos : pos + 2] != b"\r\n":
                    raise httpx.RemoteProtocolError("malformed chunked body: missing CRLF")
                pos += 2
                self._expect_crlf = False
            pos = _whole_chunks(buffer, pos, out)
            line_end = buffer.find(b"\r\n", pos)
            if line_end < 0:
                if end - pos > _MAX_SIZE_LINE:
                    raise httpx.RemoteProtocolError("malformed chunked body: size line too long")
                break
            size = _chunk_size(buffer[pos:line_end])
            if size == 0:
                # The last chunk; then optional trailer fields and the final empty line.
                if buffer[line_end + 2 : line_end + 4] == b"\r\n":
                    pos = line_end + 4
                else:
                    trailers_end = buffer.find(b"\r\n\r\n", line_end + 2)
                    if trailers_end < 0:
                        break  # the trailers are not complete yet
                    pos = trailers_end + 4
                self.done = True
                break
            pos = line_end + 2
            self._remaining = size
        self._buffer = buffer[pos:]
        return out[0] if len(out) == 1 else b"".join(out)

    @property
    def leftover(self) -> bytes:
        return self._buffer


class _Body(httpx.AsyncByteStream):
    """The response body, read from the connection; returns the connection when complete."""

    def __init__(
        self,
        transport: StreamingTransport,
        key: tuple[str, int],
        connection: _Connection,
        *,
        length: Optional[int],
        chunked: bool,
        keep_alive: bool,
        read_timeout: Optional[float],
    ) -> None:
        self._transport = transport
        self._key = key
        self._connection: Optional[_Connection] = connection
        self._length = length
        self._chunked = _ChunkedBody() if chunked else None
        self._keep_alive = keep_alive
        self._read_timeout = read_timeout
        self._complete = length == 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None or self._complete:
            return
        reader = connection.reader
        data = b""
        chunked, remaining = self._chunked, self._length
        while True:
            if data:
                if chunked is not None:
                    body = chunked.feed(data)
                    if body:
                        yield body
                    if chunked.done:
                        self._complete = not chunked.leftover
                        return
                elif remaining is not None:
                    body, extra = data[:remaining], len(data) > remaining
                    remaining -= len(body)
                    data = b""
                    if body:
                        yield body
                    if remaining == 0:
                        self._complete = True
                        self._keep_alive = self._keep_alive and not extra
                        return
                else:
                    yield data
            try:
                data = await _bounded(
                    reader.read(_READ_SIZE), self._read_timeout, httpx.ReadTimeout
                )
            except OSError as exc:
                raise httpx.ReadError(f"{type(exc).__name__}: {exc}") from exc
            if not data:
                if chunked is None and remaining is None:
                    self._keep_alive = False
                    self._complete = True
                    return  # a body delimited by the end of the connection
                raise httpx.RemoteProtocolError(
                    "peer closed connection without sending complete message body"
                )

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        if self._complete and self._keep_alive:
            self._transport.release(self._key, connection)
        else:
            connection.close()


class StreamingTransport(httpx.AsyncBaseTransport):
    """Answers ``http://`` requests on asyncio (see the module docstring); the rest, and
    everything on other event loops, goes to ``fallback``."""

    def __init__(
        self,
        fallback: Optional[httpx.AsyncBaseTransport] = None,
        *,
        keepalive_expiry: float = 4.0,
        max_idle_per_host: int = 10,
    ) -> None:
        self._fallback = fallback or httpx.AsyncHTTPTransport()
        self._expiry = keepalive_expiry
        self._max_idle = max_idle_per_host
        self._idle: dict[tuple[str, int], list[_Connection]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if (
            url.scheme != "http"
            or b"transfer-encoding" in (name.lower() for name, _ in request.headers.raw)
            or not _on_asyncio()
        ):
            # TLS, streamed request bodies and other event loops: httpx's own transport.
            return await self._fallback.handle_async_request(request)
        timeouts = request.extensions.get("timeout", {})
        key = (url.host, url.port or 80)
        head = _request_head(request)
        body = await request.aread()
        reused = self._take(key)
        if reused is not None:
            try:
                return await self._exchange(request, key, reused, head, body, timeouts)
            except _NoResponse:
                pass  # a kept-alive connection the server closed meanwhile: one fresh attempt
        connection = await self._connect(key, timeouts)
        return await self._exchange(request, key, connection, head, body, timeouts)

    async def _connect(
        self, key: tuple[str, int], timeouts: dict[str, Optional[float]]
    ) -> _Connection:
        host, port = key
        try:
            reader, writer = await _bounded(
                asyncio.open_connection(host, port, limit=_MAX_HEAD),
                timeouts.get("connect"),
                httpx.ConnectTimeout,
            )
        except OSError as exc:
            raise httpx.ConnectError(f"{type(exc).__name__}: {exc}") from exc
        return _Connection(reader, writer)

    async def _exchange(
        self,
        request: httpx.Request,
        key: tuple[str, int],
        connection: _Connection,
        head: bytes,
        body: bytes,
        timeouts: dict[str, Optional[float]],
    ) -> httpx.Response:
        try:
            connection.writer.write(head + body)
            await _bounded(connection.writer.drain(), timeouts.get("write"), httpx.WriteTimeout)
        except OSError as exc:
            connection.close()
            raise _NoResponse(f"{type(exc).__name__}: {exc}") from exc
        try:
            version, status, reason, headers = await self._read_head(connection, timeouts)
        except BaseException:
            connection.close()
            raise
        fields = {name.lower(): value for name, value in headers}
        encoding = fields.get(b"transfer-encoding", b"").lower()
        chunked = encoding.endswith(b"chunked")
        length: Optional[int] = None
        if not chunked and b"content-length" in fields:
            try:
                length = int(fields[b"content-length"])
            except ValueError:
                connection.close()
                raise httpx.RemoteProtocolError("malformed Content-Length") from None
        if request.method == "HEAD" or status in (204, 304):
            length, chunked = 0, False
        connection_header = fields.get(b"connection", b"").lower()
        keep_alive = connection_header != b"close" and (
            version == b"HTTP/1.1" or connection_header == b"keep-alive"
        )
        stream = _Body(
            self,
            key,
            connection,
            length=length,
            chunked=chunked,
            keep_alive=keep_alive,
            read_timeout=timeouts.get("read"),
        )
        return httpx.Response(
            status,
            headers=headers,
            stream=stream,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason},
        )

    async def _read_head(
        self, connection: _Connection, timeouts: dict[str, Optional[float]]
    ) -> tuple[bytes, int, bytes, list[tuple[bytes, bytes]]]:
        """Version, status, reason and headers of the answer (1xx answers skipped); the body
        follows in the connection's reader."""
        reader = connection.reader
        while True:
            try:
                raw = await _bounded(
                    reader.readuntil(b"\r\n\r\n"), timeouts.get("read"), httpx.ReadTimeout
                )
            except asyncio.IncompleteReadError as exc:
                what = "server disconnected without sending a response"
                if not exc.partial:
                    raise _NoResponse(what) from None
                raise httpx.RemoteProtocolError(what) from None
            except asyncio.LimitOverrunError:
                raise httpx.RemoteProtocolError("response head too large") from None
            except OSError as exc:
                raise _NoResponse(f"{type(exc).__name__}: {exc}") from exc
            lines = raw[:-4].split(b"\r\n")
            parts = lines[0].split(b" ", 2)
            if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
                raise httpx.RemoteProtocolError(f"malformed status line {lines[0][:80]!r}")
            status = int(parts[1])
            if 100 <= status < 200 and status != 101:
                continue  # an informational answer (100 Continue): the real one follows
            headers: list[tuple[bytes, bytes]] = []
            for line in lines[1:]:
                name, colon, value = line.partition(b":")
                if not colon or not name or name != name.strip():
                    raise httpx.RemoteProtocolError(f"malformed header line {line[:80]!r}")
                headers.append((name, value.strip()))
            return parts[0], status, parts[2] if len(parts) > 2 else b"", headers

    def _take(self, key: tuple[str, int]) -> Optional[_Connection]:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.usable(self._expiry):
                return connection
            connection.close()
        return None

    def release(self, key: tuple[str, int], connection: _Connection) -> None:
        """Keep a connection whose response was read completely, for the next request."""
        idle = self._idle.setdefault(key, [])
        if len(idle) >= self._max_idle:
            connection.close()
            return
        connection.idle_since = time.monotonic()
        idle.append(connection)

    async def aclose(self) -> None:
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle.clear()
        await self._fallback.aclose()


def _request_head(request: httpx.Request) -> bytes:
    target = request.url.raw_path  # path and query, already percent-encoded
    lines = [request.method.encode("ascii") + b" " + target + b" HTTP/1.1"]
    lines.extend(name + b": " + value for name, value in request.headers.raw)
    return b"\r\n".join(lines) + b"\r\n\r\n"
