"""``StreamingTransport``: the client's own plain-HTTP/1.1 transport, against real TCP servers on
127.0.0.1 written byte by byte, so that framing, keep-alive, errors and fallbacks are exact."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from ag_ui.client import HttpAgent, IncompleteStreamError
from ag_ui.client._streaming_transport import StreamingTransport, _ChunkedBody
from ag_ui.client._transport import new_http_client

pytestmark = pytest.mark.anyio

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def tcp_server(handler: Handler) -> AsyncIterator[tuple[str, list[int]]]:
    """A server on a free port; yields its base URL and a log of connection numbers."""
    connections: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(len(connections))
        try:
            await handler(reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", connections
    finally:
        server.close()
        await server.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head, await reader.readexactly(length)


def direct_client(**options: Any) -> httpx.AsyncClient:
    """An httpx client whose every request goes through ``StreamingTransport``."""
    return httpx.AsyncClient(transport=StreamingTransport(), **options)


def chunked(*pieces: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)
RUN = [
    b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hi"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n',
    b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n',
]


@pytest.mark.parametrize(
    ("size_line", "end"),
    [(b"%x", b"0\r\n\r\n"), (b"%x;ext=1", b"0\r\nX-T: 1\r\n\r\n"), (b" %X ", b"0\r\n\r\n")],
    ids=["bare sizes (the fast loop)", "extensions and trailers", "blanks, upper case"],
)
def test_chunked_decoding_is_the_same_for_any_split_of_the_bytes(
    size_line: bytes, end: bytes
) -> None:
    body = b"Hello, \xf0\x9f\x8c\x8d world" * 20
    pieces = [body[i : i + 7] for i in range(0, len(body), 7)]
    wire = b"".join(size_line % len(p) + b"\r\n" + p + b"\r\n" for p in pieces) + end
    generator = random.Random(14)
    for _ in range(200):
        decoder, out, position = _ChunkedBody(), [], 0
        while position < len(wire):
            step = generator.randint(1, 40)
            out.append(decoder.feed(wire[position : position + step]))
            position += step
        assert decoder.done
        assert b"".join(out) == body
        assert decoder.leftover == b""


@pytest.mark.parametrize(
    "wire",
    [
        b"zz\r\nab\r\n0\r\n\r\n",
        b"2\r\nabXY0\r\n\r\n",
        b"2\r\nab\r\n2\r\nabXY0\r\n\r\n",
        b"-1\r\n\r\n",
        b"2\r\nab\r\n+2\r\nab\r\n0\r\n\r\n",
        b"\r\nab\r\n",
        b"f" * 2000,
    ],
    ids=[
        "not hex",
        "no CRLF after data",
        "no CRLF after a later chunk",
        "negative",
        "a sign",
        "no size",
        "size line too long",
    ],
)
def test_a_malformed_chunked_body_is_a_protocol_error(wire: bytes) -> None:
    with pytest.raises(httpx.RemoteProtocolError, match="malformed chunked body"):
        _ChunkedBody().feed(wire)


async def test_an_event_stream_arrives_and_the_connection_is_kept_for_the_next_run() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(2):  # two requests on one connection
            await read_request(reader)
            writer.write(SSE_HEAD)
            for frame in RUN:  # one chunk, and one write, per event
                writer.write(b"%x\r\n%s\r\n" % (len(frame), frame))
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()

    async with tcp_server(handler) as (url, connections), new_http_client() as client:
        for _ in range(2):
            agent = HttpAgent(f"{url}/agent", http_client=client)
            result = await agent.run_agent()
            assert result.outcome_type == "success"
            assert [m.content for m in agent.messages] == ["Hi"]
    assert connections == [0]


async def test_content_length_and_connection_close() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello")
        await writer.drain()

    async with tcp_server(handler) as (url, connections), direct_client() as client:
        first = await client.get(url)
        second = await client.get(url)
    assert (first.status_code, first.text, second.text) == (200, "hello", "hello")
    assert connections == [0, 1]  # "connection: close" is honoured


async def test_a_kept_alive_connection_closed_by_the_server_is_replaced() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        await writer.drain()
        # Then close the kept-alive connection before the next request, as an idle server does.

    async with tcp_server(handler) as (url, connections), direct_client() as client:
        assert (await client.get(url)).status_code == 204
        await asyncio.sleep(0.05)
        assert (await client.get(url)).status_code == 204
    assert connections == [0, 1]


async def test_a_body_cut_short_is_a_lost_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(SSE_HEAD + b"%x\r\n%s\r\n" % (len(RUN[0]), RUN[0]))
        await writer.drain()  # and the server dies without the last chunk

    async with tcp_server(handler) as (url, _), new_http_client() as client:
        agent = HttpAgent(f"{url}/agent", http_client=client)
        with pytest.raises(IncompleteStreamError) as caught:
            await agent.run_agent()
    assert "without RUN_FINISHED" in str(caught.value)
    assert isinstance(caught.value.__cause__, IncompleteStreamError)  # a ConnectionLostError
    assert "complete message body" in str(caught.value)


async def test_read_and_connect_timeouts_are_httpx_timeouts() -> None:
    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(5)

    timeout = httpx.Timeout(5.0, read=0.2)
    async with (
        tcp_server(stall) as (url, _),
        direct_client(timeout=timeout) as client,
        client.stream("GET", url) as response,
    ):
        with pytest.raises(httpx.ReadTimeout):
            await response.aread()
    async with httpx.AsyncClient(transport=StreamingTransport()) as client:
        # Nothing listens on port 9 (discard) of the loopback: the connection is refused.
        with pytest.raises(httpx.ConnectError):
            await client.get("http://127.0.0.1:9/")


class _Recording(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self.urls: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.urls.append(str(request.url))
        return httpx.Response(200, content=b"from the fallback")


async def test_tls_and_streamed_request_bodies_go_to_httpx() -> None:
    fallback = _Recording()
    async with httpx.AsyncClient(transport=StreamingTransport(fallback)) as client:
        assert (await client.get("https://example.invalid/x")).text == "from the fallback"

        async def body() -> AsyncIterator[bytes]:
            yield b"streamed"

        await client.post("http://example.invalid/y", content=body())
    assert fallback.urls == ["https://example.invalid/x", "http://example.invalid/y"]


async def test_a_proxy_in_the_environment_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head, _ = await read_request(reader)
        seen.append(head.split(b"\r\n")[0])
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\nproxied")
        await writer.drain()

    async with tcp_server(proxy) as (proxy_url, _):
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        async with new_http_client() as client:
            response = await client.get("http://agent.invalid/agent/capabilities")
    assert response.text == "proxied"
    assert seen == [b"GET http://agent.invalid/agent/capabilities HTTP/1.1"]


async def test_informational_answers_are_skipped() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
        await writer.drain()

    async with tcp_server(handler) as (url, _), direct_client() as client:
        response = await client.post(url, content=b"{}")
    assert (response.status_code, response.text) == (200, "ok")
