"""Client benchmarks: our client vs the official TypeScript ``@ag-ui/client`` 1.0.0 in Node.

Run: ``.venv/bin/python benchmarks/bench_client.py`` (after ``scripts/test`` installed the npm
peers in tests/interop/node_modules). Workload: the stream mix of ``workloads.py`` (558 events,
one run) as SSE bytes, the same bytes for both clients.

1. Pipeline in memory: bytes -> events -> verified -> applied to messages/state.
   - ours, sans-IO: ``SSEEventDecoder`` + the client's ``StreamVerifier`` + ``Reducer``;
   - ours, full ``HttpAgent.run_agent`` over an in-memory httpx transport (with an ``on_event``
     subscriber, as the TypeScript side has one to count events);
   - TypeScript ``HttpAgent.runAgent`` with a ``fetch`` that returns the bytes from memory.
2. End to end over loopback: both clients against the same server streaming the mix (one
   chunk per event) on 127.0.0.1, and the floor under both: the same server read by a
   blocking socket that does nothing with the bytes. Two servers, side by side: uvicorn (a
   bare ASGI app), and a raw asyncio ``Protocol`` writing the pre-encoded response (one
   ``transport.write`` per event), whose own cost is small enough that its rows measure the
   clients. Ours twice: with the
   client ``HttpAgent`` opens for itself (``ag_ui.client.new_http_client()``, shared across
   rounds so connections are kept, as Node's fetch keeps them), and with a caller's plain
   ``httpx.AsyncClient``.

Prints events/s and ratios (ours / TypeScript; > 1 means we are faster). The two clients take
turns in batches and each keeps its best round; absolute numbers drift on shared machines.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
INTEROP = REPO / "tests" / "interop"
NODE_SCRIPT = INTEROP / "bench_client_ts.mjs"
ROUNDS = 30
LOOPBACK_ROUNDS = 12
BATCHES = 5

sys.path.insert(0, str(HERE))


def mix_bytes() -> tuple[bytes, int]:
    from workloads import stream_mix

    from ag_ui.core import parse_event
    from ag_ui.encoder import EventEncoder

    encoder = EventEncoder()
    events = stream_mix()
    return b"".join(encoder.encode_sse(parse_event(e)) for e in events), len(events)


def _best(function: Any, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def sans_io_pipeline(data: bytes) -> int:
    """Decode + verify + apply, no HTTP: what the client does per byte received."""
    from ag_ui.apply import AgentState, Reducer
    from ag_ui.client import SSEEventDecoder
    from ag_ui.verify import StreamVerifier

    decoder = SSEEventDecoder()
    stream = StreamVerifier(strict_end=False)  # the stages and settings of the client's runs
    reduce = Reducer().reduce
    state = AgentState(messages=(), state={})
    count = 0
    for start in range(0, len(data), 65536):
        for raw in decoder.feed(data[start : start + 65536]):
            for event in stream.expand(raw):
                stream.check(event)
                state = reduce(state, event)
                count += 1
    for raw in decoder.close():
        for event in stream.expand(raw):
            stream.check(event)
            state = reduce(state, event)
            count += 1
    stream.finish()
    return count


class EventCounter:
    """The same work as the TypeScript side's ``onEvent`` counter."""

    def __init__(self) -> None:
        self.count = 0

    def on_event(self, params: Any) -> None:
        self.count += 1


def in_memory_agent_seconds(data: bytes, rounds: int) -> float:
    import anyio
    import httpx

    from ag_ui.client import HttpAgent

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=data, headers={"content-type": "text/event-stream"})

    async def main() -> float:
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
            best = float("inf")
            for _ in range(rounds):
                agent = HttpAgent("http://memory/agent", http_client=client)
                counter = EventCounter()
                agent.subscribe(counter)
                started = time.perf_counter()
                await agent.run_agent()
                best = min(best, time.perf_counter() - started)
                assert counter.count == 558, counter.count
            return best

    return anyio.run(main)


def loopback_agent_seconds(url: str, rounds: int, *, own_client: bool = True) -> float:
    import anyio
    import httpx

    from ag_ui.client import HttpAgent, new_http_client

    async def main() -> float:
        client = new_http_client(30) if own_client else httpx.AsyncClient(timeout=30)
        async with client:
            best = float("inf")
            for _ in range(rounds):
                agent = HttpAgent(url, http_client=client)
                counter = EventCounter()
                agent.subscribe(counter)
                started = time.perf_counter()
                await agent.run_agent()
                best = min(best, time.perf_counter() - started)
                assert counter.count == 558, counter.count
            return best

    return anyio.run(main)


def node(*arguments: str) -> dict[str, Any]:
    completed = subprocess.run(
        ["node", str(NODE_SCRIPT), *arguments],
        capture_output=True,
        check=True,
        cwd=INTEROP,
        timeout=300,
    )
    return dict(json.loads(completed.stdout))


def _frames() -> list[bytes]:
    data, _ = mix_bytes()
    return [frame + b"\n\n" for frame in data.split(b"\n\n") if frame]


def serve(port: int) -> None:
    """The uvicorn server: streams the mix, one chunk per event (``--serve PORT``).

    A bare ASGI app rather than a Starlette ``StreamingResponse``: the server is the floor
    under both clients (it runs on the other CPU, and a client cannot finish before the last
    chunk is sent), and Starlette's per-chunk cost put that floor at 7 ms, a third of the
    TypeScript client's whole run, which hid the clients' difference. ``floor_seconds``
    measures it.
    """
    import uvicorn

    frames = _frames()
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"text/event-stream")],
    }

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        await send(start)
        for frame in frames:
            await send({"type": "http.response.body", "body": frame, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


RAW_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


def serve_raw(port: int) -> None:
    """The raw server: the same response, pre-encoded, from an asyncio ``Protocol``
    (``--serve-raw PORT``).

    Still one HTTP chunk per event, each its own ``transport.write`` (a ``send`` on the
    socket while nothing is queued), so a client reads the stream as it reads an SSE server's;
    but the server's own cost per event is one write, not uvicorn's and h11's per-event
    work, so the loopback rows measure the clients. Requests on a kept-alive connection are
    answered in order; a request's body is read by its ``content-length``.
    """
    import asyncio

    chunks = [b"%x\r\n%b\r\n" % (len(frame), frame) for frame in _frames()]
    end = b"0\r\n\r\n"

    class Stream(asyncio.Protocol):
        def __init__(self) -> None:
            self.buffer = b""
            self.transport: Any = None

        def connection_made(self, transport: Any) -> None:
            self.transport = transport

        def data_received(self, data: bytes) -> None:
            self.buffer += data
            while True:
                head_end = self.buffer.find(b"\r\n\r\n")
                if head_end < 0:
                    return
                length = 0
                for line in self.buffer[:head_end].split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                    elif name.strip().lower() == b"transfer-encoding":
                        raise ValueError("the raw benchmark server reads content-length bodies")
                request_end = head_end + 4 + length
                if len(self.buffer) < request_end:
                    return
                self.buffer = self.buffer[request_end:]
                write = self.transport.write
                write(RAW_HEAD)
                for chunk in chunks:
                    write(chunk)
                write(end)

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Stream, "127.0.0.1", port)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def floor_seconds(port: int, rounds: int) -> float:
    """The server alone: a blocking socket that sends the request and reads to the chunked end."""
    request = (
        f"POST /agent HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
        "accept: text/event-stream\r\ncontent-length: 2\r\n\r\n{}"
    ).encode()
    best = float("inf")
    with socket.create_connection(("127.0.0.1", port)) as sock:
        for _ in range(rounds):
            started = time.perf_counter()
            sock.sendall(request)
            received = b""
            while not received.endswith(b"\r\n0\r\n\r\n"):
                chunk = sock.recv(1 << 20)
                if not chunk:
                    raise RuntimeError("the benchmark server closed the connection")
                received += chunk
            best = min(best, time.perf_counter() - started)
    return best


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the benchmark server exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the benchmark server did not start")


def main() -> None:
    data, events = mix_bytes()
    assert sans_io_pipeline(data) == events  # the mix has no chunks: one event in, one out
    print(f"workload: the stream mix, {events} events, {len(data)} bytes of SSE\n")

    # Alternate the two clients in batches and keep each one's best: load from the other
    # engineers on this machine then hits both sides alike.
    ts_seconds = sans_io = agent_memory = float("inf")
    with tempfile.NamedTemporaryFile(suffix=".sse") as handle:
        handle.write(data)
        handle.flush()
        for _ in range(BATCHES):
            ts_memory = node("memory", handle.name, str(ROUNDS))
            assert ts_memory["events"] == events, ts_memory
            ts_seconds = min(ts_seconds, ts_memory["bestMs"] / 1000)
            sans_io = min(sans_io, _best(lambda: sans_io_pipeline(data), ROUNDS))
            agent_memory = min(agent_memory, in_memory_agent_seconds(data, ROUNDS))

    def row(name: str, seconds: float, reference: float) -> None:
        rate = f"{events / seconds:>10,.0f} ev/s"
        print(f"  {name:<50} {seconds * 1000:7.2f} ms {rate}  {reference / seconds:5.2f}x")

    print("1. pipeline in memory (decode + verify + apply); ratio vs TypeScript HttpAgent")
    row("TypeScript HttpAgent.runAgent (fetch from memory)", ts_seconds, ts_seconds)
    row("ours, sans-IO decoder + pipeline + reducer", sans_io, ts_seconds)
    row("ours, HttpAgent.run_agent (in-memory transport)", agent_memory, ts_seconds)

    for number, (flag, name) in enumerate(SERVERS, start=2):
        print(f"\n{number}. end to end over loopback ({name}, one chunk per event)")
        loopback(flag, events, row)


SERVERS = [
    ("--serve", "uvicorn"),
    ("--serve-raw", "a raw asyncio Protocol writing the pre-encoded response"),
]


def loopback(flag: str, events: int, row: Any) -> None:
    port = _free_port()
    server = subprocess.Popen([sys.executable, __file__, flag, str(port)])
    try:
        _wait_for(port, server)
        url = f"http://127.0.0.1:{port}/agent"
        ts_loop_seconds = ours_loopback = ours_httpx = floor = float("inf")
        for _ in range(BATCHES):
            floor = min(floor, floor_seconds(port, LOOPBACK_ROUNDS))
            ts_loopback = node("url", url, str(LOOPBACK_ROUNDS), str(events))
            ts_loop_seconds = min(ts_loop_seconds, ts_loopback["bestMs"] / 1000)
            ours_loopback = min(ours_loopback, loopback_agent_seconds(url, LOOPBACK_ROUNDS))
            ours_httpx = min(
                ours_httpx, loopback_agent_seconds(url, LOOPBACK_ROUNDS, own_client=False)
            )
    finally:
        server.terminate()
        server.wait(timeout=10)
    row("TypeScript HttpAgent.runAgent", ts_loop_seconds, ts_loop_seconds)
    row("floor: the server read by a blocking socket", floor, ts_loop_seconds)
    row("ours, HttpAgent.run_agent (its own client)", ours_loopback, ts_loop_seconds)
    row("ours, HttpAgent.run_agent (a plain httpx.AsyncClient)", ours_httpx, ts_loop_seconds)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "--serve-raw":
        serve_raw(int(sys.argv[2]))
    else:
        main()
