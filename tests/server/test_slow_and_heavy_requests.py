"""Slow and heavy clients on a real uvicorn (issue 11, item 4): a body that does not arrive in
time gets 408 and the connection is closed; a large body does not stall the other streams and
``max_messages`` bounds it; ``NaN``/``Infinity`` are not JSON on any parse path; ``run_timeout``
ends a hung request-bound run."""

from __future__ import annotations

import gc
import json
import socket
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from ag_ui.core import BaseEvent, CustomEvent, TextMessageContentEvent, TextMessageStartEvent
from ag_ui.core.decoding import parse_run_agent_input
from ag_ui.core.errors import AGUIValidationError, MalformedJSONError
from ag_ui.server import RunContext, create_app
from ag_ui.server._sliced_parse import SLICED_ABOVE, parse_run_input
from ag_ui.store import InMemoryRunStore
from tests.support.servers import serve
from tests.support.sse import sse_events

from .conftest import run_body


async def hello(run_input: Any, ctx: RunContext) -> None:
    await ctx.say("hi")


def many_messages(count: int, **extra: Any) -> dict[str, Any]:
    messages = [{"id": f"m{i}", "role": "user", "content": "hello"} for i in range(count)]
    return run_body(messages=messages, **extra)


def raw_exchange(url: str, head: bytes, send_body: Any, timeout: float = 10.0) -> bytes:
    """Send ``head`` on a fresh socket, let ``send_body(sock)`` write (some of) the body, then
    read until the server closes the connection; returns everything it sent."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(head)
        send_body(sock)
        received = b""
        while chunk := sock.recv(65536):  # b"": the server closed the connection
            received += chunk
        return received


def post_head(content_length: int) -> bytes:
    return (
        b"POST /agent HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(content_length).encode() + b"\r\n\r\n"
    )


def status_and_body(response: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


# -- body_timeout --------------------------------------------------------------------------------


def test_content_length_larger_than_the_body_gets_408_and_the_connection_is_closed() -> None:
    body = json.dumps(run_body()).encode()
    with serve(create_app(hello, body_timeout=0.5)) as url:
        started = time.monotonic()
        # Declares 100 bytes more than it sends, then waits (as a hostile client would).
        response = raw_exchange(url, post_head(len(body) + 100), lambda sock: sock.sendall(body))
        took = time.monotonic() - started
        status, headers, error = status_and_body(response)
        assert status == 408
        assert headers["connection"] == "close"
        assert error["error"]["code"] == "request_timeout"
        assert error["error"]["details"] == ["body_timeout: 0.5 s"]
        assert took < 5.0  # the deadline, not the socket's 10 s timeout, ended it
        # The server keeps serving.
        assert httpx.post(f"{url}/agent", json=run_body(), timeout=10).status_code == 200


def test_body_trickled_byte_by_byte_gets_408_within_the_deadline() -> None:
    body = json.dumps(run_body()).encode()
    stop = threading.Event()

    def trickle(sock: socket.socket) -> None:
        def drip() -> None:
            for byte in body:
                if stop.wait(0.05):
                    return
                try:
                    sock.sendall(bytes([byte]))
                except OSError:  # the server closed the connection: what the test expects
                    return

        threading.Thread(target=drip, daemon=True).start()

    with serve(create_app(hello, body_timeout=1.0)) as url:
        started = time.monotonic()
        try:
            response = raw_exchange(url, post_head(len(body)), trickle)
        finally:
            stop.set()
        assert time.monotonic() - started < 6.0  # the body alone would take ~2 s; 1 s deadline
        status, _, error = status_and_body(response)
        assert (status, error["error"]["code"]) == (408, "request_timeout")


def test_a_body_within_the_deadline_is_served() -> None:
    body = json.dumps(run_body()).encode()

    def in_two_parts(sock: socket.socket) -> None:
        sock.sendall(body[:10])
        time.sleep(0.2)
        sock.sendall(body[10:])

    with serve(create_app(hello, body_timeout=5.0)) as url:
        head = post_head(len(body)).replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
        response = raw_exchange(url, head, in_two_parts)
        assert response.startswith(b"HTTP/1.1 200")
        assert b'"type":"RUN_FINISHED"' in response


# -- NaN and Infinity -----------------------------------------------------------------------------

CONSTANTS = ["NaN", "Infinity", "-Infinity"]


@pytest.mark.parametrize("large", [False, True], ids=["one-call", "sliced"])
@pytest.mark.parametrize("constant", CONSTANTS)
def test_nan_and_infinity_are_400_malformed_json(constant: str, large: bool) -> None:
    body = many_messages(3000 if large else 1)
    text = json.dumps(body).replace(
        '"runId": "r1"', f'"runId": "r1", "state": {{"x": [1, {constant}]}}'
    )
    assert (len(text) > SLICED_ABOVE) is large
    with serve(create_app(hello)) as url:
        response = httpx.post(
            f"{url}/agent",
            content=text,
            headers={"content-type": "application/json"},
            timeout=10,
        )
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "malformed_json"
        assert "are not JSON" in error["details"][0]


@pytest.mark.anyio
@pytest.mark.parametrize("constant", CONSTANTS)
async def test_nan_inside_a_string_is_just_text_on_both_paths(constant: str) -> None:
    for count in (1, 3000):
        body = json.dumps(many_messages(count, state={"x": constant})).encode()
        for parsed in (parse_run_agent_input(body), await parse_run_input(body)):
            assert parsed.state == {"x": constant}


# -- large bodies: the sliced parse, max_messages, other streams keep going -----------------------


@pytest.mark.anyio
async def test_the_sliced_parse_gives_what_the_one_call_parse_gives() -> None:
    body = many_messages(
        5000,
        state={"doc": {"a": [1, 2.5, None, True]}, "n": 3},
        tools=[{"name": "t", "description": "d", "parameters": {"type": "object"}}],
        context=[{"description": "c", "value": "v"}],
        forwardedProps={"p": [1]},
        somethingExtra=1,
    )
    raw = json.dumps(body).encode()
    assert len(raw) > SLICED_ABOVE
    sliced = await parse_run_input(raw)
    assert sliced == parse_run_agent_input(raw)
    assert sliced.model_dump(by_alias=True) == parse_run_agent_input(raw).model_dump(by_alias=True)
    assert sliced.model_fields_set == parse_run_agent_input(raw).model_fields_set


@pytest.mark.anyio
async def test_the_sliced_parse_names_the_same_problems_with_their_wire_paths() -> None:
    body = many_messages(5000, runId=5)
    del body["messages"][3]["id"]
    del body["messages"][4321]["id"]
    body["messages"][4999]["role"] = "robot"
    raw = json.dumps(body).encode()
    with pytest.raises(AGUIValidationError) as one_call:
        parse_run_agent_input(raw)
    with pytest.raises(AGUIValidationError) as sliced:
        await parse_run_input(raw)
    assert sliced.value.problems == one_call.value.problems
    assert 'messages[4321] (role "user"): missing required field "id"' in sliced.value.problems


@pytest.mark.parametrize("count", [3, 5000], ids=["one-call", "sliced"])
def test_more_messages_than_max_messages_is_413_naming_the_limit(count: int) -> None:
    with serve(create_app(hello, max_messages=2)) as url, httpx.Client(timeout=10) as http:
        response = http.post(f"{url}/agent", json=many_messages(count))
        assert response.status_code == 413
        error = response.json()["error"]
        assert error["code"] == "too_many_messages"
        assert error["details"] == ["max_messages: 2"]
        assert http.post(f"{url}/agent", json=many_messages(2)).status_code == 200


def test_a_large_body_does_not_stall_a_concurrent_stream() -> None:
    """While 150,000 messages (6.3 MiB) are parsed, the event loop keeps running: a concurrent
    run that ticks every 10 ms is never held up for long.

    Measured in CPU time of the server's thread between two ticks (what the loop did meanwhile),
    which the other jobs on a shared machine cannot inflate, less the time CPython's cyclic GC
    took in that thread: a full pass scans the whole process (this test process, after the
    tests before it, holds far more than a server), and no parse can avoid it
    (benchmarks/README.md, "Large request bodies"). The one-call parse held the loop for
    0.5-1 s of CPU; the wall-clock figures are in benchmarks/bench_big_body.py."""
    ticking = threading.Event()
    lags: list[float] = []
    done = threading.Event()
    server_thread: list[int] = []
    collector = {"cpu": 0.0, "started": 0.0}

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if threading.get_ident() not in server_thread:
            return
        if phase == "start":
            collector["started"] = time.thread_time()
        else:
            collector["cpu"] += time.thread_time() - collector["started"]

    def work_so_far() -> float:
        return time.thread_time() - collector["cpu"]

    async def ticker(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
        if run_input.run_id == "big":
            return  # the large request's own run: nothing to do
        server_thread.append(threading.get_ident())
        last = work_so_far()
        while not done.is_set():
            yield CustomEvent(name="tick", value=None)
            ticking.set()
            await anyio.sleep(0.01)
            now = work_so_far()
            lags.append(now - last)
            last = now

    big = json.dumps(many_messages(150_000, runId="big")).encode()
    gc.callbacks.append(on_gc)
    try:
        during = post_during_a_stream(create_app(ticker), big, ticking, done, lags)
    finally:
        gc.callbacks.remove(on_gc)
    assert len(during) > 10
    assert max(during) < 0.2, f"the event loop was busy for {max(during):.3f} s of CPU at once"


def post_during_a_stream(
    app: Any, big: bytes, ticking: threading.Event, done: threading.Event, lags: list[float]
) -> list[float]:
    """Post ``big`` while a run of ``app`` streams; the lags the stream recorded meanwhile."""
    with (
        serve(app) as url,
        httpx.Client(timeout=30) as http,
        http.stream("POST", f"{url}/agent", json=run_body()) as stream,
    ):
        assert ticking.wait(5)
        before = len(lags)
        response = http.post(
            f"{url}/agent", content=big, headers={"content-type": "application/json"}
        )
        during = lags[before:]
        done.set()
        assert response.status_code == 200
        for _ in stream.iter_bytes():
            pass
    return during


# -- run_timeout ----------------------------------------------------------------------------------


async def hangs_with_a_message_open(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
    yield TextMessageStartEvent(message_id="m1", role="assistant")
    yield TextMessageContentEvent(message_id="m1", delta="thinking")
    await anyio.sleep_forever()
    yield CustomEvent(name="never", value=None)  # pragma: no cover


@pytest.mark.parametrize("detached", [False, True], ids=["request-bound", "detached"])
def test_run_timeout_ends_a_hung_run_with_run_expired(detached: bool) -> None:
    store = {"store": InMemoryRunStore()} if detached else {}
    app = create_app(hangs_with_a_message_open, run_timeout=1.0, keepalive=0.1, **store)
    with serve(app) as url, httpx.Client(timeout=30) as http:
        started = time.monotonic()
        response = http.post(f"{url}/agent", json=run_body())
        assert time.monotonic() - started < 10.0
    events = sse_events(response.text)
    assert [e["type"] for e in events] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_ERROR",
    ]
    assert events[-1]["code"] == "run_expired"
    assert events[-1]["message"] == "The run exceeded its time limit of 1 s."
    assert ": keepalive" in response.text  # the keepalives alone did not hold the client


PADDING = " " * (SLICED_ABOVE + 1)
"""Whitespace that takes a body over the threshold without changing what it says."""


@pytest.mark.anyio
@pytest.mark.parametrize(
    "text",
    [
        '{"threadId":"t","runId":"r","messages":[]}',
        ' \n{ "threadId" : "t" ,\t"runId":"r", "messages" : [ ] , "tools" : null }\r\n',
        '{"threadId":"t","runId":"r","messages":[{"id":"a","role":"user","content":"x"}],'
        '"messages":[],"state":{},"forwardedProps":[1,{"a":[]}]}',
        '{"threadId":"t","runId":"r","messages":[],"context":[{"description":"d","value":"v"}],'
        '"resume":[{"interruptId":"i","status":"resolved"}]}',
    ],
    ids=["plain", "whitespace", "repeated-key", "context-resume"],
)
async def test_odd_but_valid_bodies_parse_the_same_in_slices(text: str) -> None:
    padded = text.replace('"runId"', PADDING + '"runId"', 1).encode()
    assert len(padded) > SLICED_ABOVE
    assert await parse_run_input(padded) == parse_run_agent_input(text)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "text",
    [
        '{"threadId":"t" "runId":"r","messages":[]}',
        '{"threadId":"t","runId":"r","messages":[1,]}',
        '{"threadId":"t","runId":"r","messages":[]} x',
        '{"threadId":"t","runId":"r","messages":[]',
        '{"threadId":"t","runId":"r","messages":[], }',
        '{threadId:"t","runId":"r","messages":[]}',
        '{"threadId":"t","runId":"r","messages":[],"state":' + "[" * 100_000 + "]" * 100_000 + "}",
    ],
    ids=["no-comma", "trailing-comma", "extra-data", "unclosed", "comma-brace", "bare-key", "deep"],
)
async def test_malformed_bodies_are_malformed_in_slices_too(text: str) -> None:
    padded = text.replace('"runId"', PADDING + '"runId"', 1).encode()
    with pytest.raises(MalformedJSONError):
        parse_run_agent_input(padded)
    with pytest.raises(MalformedJSONError):
        await parse_run_input(padded)


@pytest.mark.anyio
async def test_invalid_utf8_in_a_large_body_is_malformed() -> None:
    body = json.dumps(many_messages(3000)).encode().replace(b'"hello"', b'"\xff"', 1)
    with pytest.raises(MalformedJSONError):
        await parse_run_input(body)
