"""``agui validate`` against hostile endpoints: raw asyncio servers on 127.0.0.1 that accept and
never answer, flood, send bytes that are not UTF-8, or stream forever. Each ends within its
documented bound (set short here by options) with its own finding, never a hang."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator

import pytest

AGUI = [sys.executable, "-m", "ag_ui"]
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
HEADERS = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)
STARTED = b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
OPENED = b'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n'
CONTENT = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"%s"}\n\n'


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


async def _request(reader: asyncio.StreamReader) -> bytes:
    """Read one request (headers and a Content-Length body); its method."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    await reader.readexactly(length)
    return head.split(b" ", 1)[0]


@pytest.fixture
def hostile() -> Iterator[Callable[[Handler], str]]:
    """``hostile(handler)``: the URL of a raw asyncio server calling ``handler`` per connection."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    servers: list[asyncio.AbstractServer] = []

    def start(handler: Handler) -> str:
        async def guarded(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await handler(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError):
                pass  # the validator hung up: that is the point
            finally:
                writer.close()

        server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(guarded, "127.0.0.1", 0), loop
        ).result()
        servers.append(server)
        port = server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/agent"

    yield start

    async def shut_down() -> None:
        # Handlers still sleeping or flooding are cancelled and awaited on their own loop: a
        # task left pending when the loop goes away is reported, by a later test, as unraisable.
        for server in servers:
            server.close()
        handlers = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)

    asyncio.run_coroutine_threadsafe(shut_down(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


def validate(url: str, *options: str) -> tuple[int, dict[str, object]]:
    done = subprocess.run(
        [*AGUI, "validate", url, "--scenario", "text", "--output", "json", *options],
        # Bounds not under test are set long: a busy machine must not trip them first.
        capture_output=True,
        text=True,
        timeout=60,  # the bounds below are a few seconds: this only catches a hang
    )
    assert done.stdout or done.returncode == 1, done.stderr
    return done.returncode, json.loads(done.stdout) if done.stdout else {"error": done.stderr}


def _rules(report: dict[str, object]) -> list[str]:
    [scenario] = report["scenarios"]  # type: ignore[misc]
    return [finding["rule"] for finding in scenario["findings"]]


async def _options_then(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer the validator's first request (OPTIONS) so that the run request comes next."""
    await _request(reader)
    writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")
    await writer.drain()
    await _request(reader)


def test_an_endpoint_that_never_answers_is_one_line_within_the_idle_timeout(
    hostile: Callable[[Handler], str],
) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        await asyncio.sleep(3600)

    done = subprocess.run(
        [*AGUI, "validate", hostile(silent), "--timeout", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "no response within 1.0 s" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_run_request_never_answered_is_no_answer(hostile: Callable[[Handler], str]) -> None:
    async def accepts_then_stalls(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        await _options_then(reader, writer)
        await asyncio.sleep(3600)

    status, report = validate(hostile(accepts_then_stalls), "--timeout", "1")
    assert status == 1
    assert _rules(report) == ["wire.no-answer"]


def test_a_flood_stops_at_the_byte_bound(hostile: Callable[[Handler], str]) -> None:
    async def flood(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _options_then(reader, writer)
        writer.write(HEADERS + _chunk(STARTED + OPENED))
        block = _chunk(CONTENT % (b"x" * 60_000))
        while True:
            writer.write(block)
            await writer.drain()

    status, report = validate(hostile(flood), "--timeout", "10", "--max-bytes", "1000000")
    assert status == 1
    [finding] = report["scenarios"][0]["findings"]  # type: ignore[index]
    assert finding["rule"] == "wire.too-large"
    assert "past 1000000 bytes" in finding["message"]


def test_many_small_events_stop_at_the_event_bound(hostile: Callable[[Handler], str]) -> None:
    async def chatter(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _options_then(reader, writer)
        writer.write(HEADERS + _chunk(STARTED + OPENED))
        block = _chunk(CONTENT % b"x" * 200)
        while True:
            writer.write(block)
            await writer.drain()

    status, report = validate(hostile(chatter), "--timeout", "10", "--max-events", "1000")
    assert status == 1
    [finding] = report["scenarios"][0]["findings"]  # type: ignore[index]
    assert finding["rule"] == "wire.too-large"
    assert "past 1000 events" in finding["message"]


def test_a_stream_that_never_ends_is_endless_not_idle(hostile: Callable[[Handler], str]) -> None:
    async def forever(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _options_then(reader, writer)
        writer.write(HEADERS + _chunk(STARTED))
        while True:
            writer.write(_chunk(b": keepalive\n\n"))
            await writer.drain()
            await asyncio.sleep(0.2)

    status, report = validate(hostile(forever), "--timeout", "10", "--max-seconds", "2")
    assert status == 1
    [finding] = report["scenarios"][0]["findings"]  # type: ignore[index]
    assert finding["rule"] == "wire.endless"
    assert "keepalive" not in finding["fix"].split("do not end it")[0].replace("keepalives", "")


def test_a_stream_that_is_not_utf8_fails(hostile: Callable[[Handler], str]) -> None:
    async def latin1(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _options_then(reader, writer)
        body = (
            STARTED
            + OPENED
            + CONTENT % "café".encode("latin-1")
            + b'data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n'
            + b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
        )
        writer.write(HEADERS + _chunk(body) + b"0\r\n\r\n")
        await writer.drain()

    status, report = validate(hostile(latin1), "--timeout", "10")
    assert status == 1
    [finding] = report["scenarios"][0]["findings"]  # type: ignore[index]
    assert finding["rule"] == "wire.utf8"
    assert "b'\\xe9" in finding["message"]
