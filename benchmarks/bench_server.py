"""Server benchmarks: our ``ag_ui.server`` on uvicorn against a minimal FastAPI server built on
the official ``ag-ui-protocol`` 1.0.0 (run from ``.venv-official``), over loopback SSE.

1. Throughput: events/s of one long run (RUN_STARTED, a text message of N deltas, RUN_FINISHED),
   ours (guard + verifier on, and with ``verify=False``) vs the official-package server and vs
   the floor (the same events pre-encoded, streamed by a bare ASGI app on the same uvicorn); and
   ours over the protobuf transport (the official package has none).
2. Concurrency: 500 simultaneous streaming clients on our server: all must complete with every
   event; p50/p99 time to first event; server memory per open stream.

Both servers run as subprocesses (uvicorn, h11, one worker); the client is a raw asyncio socket
reader in this process, identical for both, so what differs is the server.

    .venv/bin/python benchmarks/bench_server.py [--events 20000] [--clients 500]
    .venv/bin/python benchmarks/bench_server.py --instructions   # per-layer callgrind counts
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
WORDS = ["Hello", " wörld", ", ", "this", " is", " a", " tést", " 🚀", " of", " streaming"]
CONTENT_MARKER = b'"type":"TEXT_MESSAGE_CONTENT"'
SSE = "text/event-stream"
PROTOBUF = "application/vnd.ag-ui.event+proto"


# -- servers (each runs in its own process and venv) ---------------------------------------------


def ours_app(verify: bool = True) -> Any:
    """Our server's app for the benchmark's agent (a granian factory target too)."""
    import anyio

    from ag_ui.core import TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent
    from ag_ui.server import create_app

    async def agent(run_input: Any, ctx: Any) -> Any:
        props = run_input.forwarded_props or {}
        count, hold = int(props.get("events", 100)), float(props.get("hold", 0))
        paced = bool(props.get("paced"))
        yield TextMessageStartEvent(message_id="msg-1", role="assistant")
        if hold:
            await anyio.sleep(hold)
        for index in range(count):
            if paced:  # a model's next token: the agent awaits before each delta
                await asyncio.sleep(0)
            yield TextMessageContentEvent(message_id="msg-1", delta=WORDS[index % len(WORDS)])
        yield TextMessageEndEvent(message_id="msg-1")

    return create_app(agent, verify=verify, keepalive=None)


STACKS = {
    # What this file measured from the start (throughput, concurrency, burst rows).
    "h11": {"http": "h11", "loop": "asyncio"},
    # uvicorn as deployed (uvicorn[standard]): the paced rows.
    "standard": {"http": "httptools", "loop": "uvloop"},
}


def run_uvicorn(app: Any, port: int, stack: str) -> None:
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error", backlog=2048, **STACKS[stack])


def serve_ours(port: int, verify: bool, stack: str = "h11") -> None:
    run_uvicorn(ours_app(verify), port, stack)


def serve_granian(port: int) -> None:
    """Our app (guard + verifier) on granian: one worker, one runtime thread, ASGI, HTTP/1."""
    from granian import Granian

    # granian's worker imports the target by name: this file's folder must be importable.
    os.environ["PYTHONPATH"] = str(Path(__file__).resolve().parent)
    sys.path.insert(0, os.environ["PYTHONPATH"])
    Granian(
        "bench_server:ours_app",
        factory=True,
        address="127.0.0.1",
        port=port,
        interface="asgi",  # type: ignore[arg-type]
        workers=1,
        http="1",  # type: ignore[arg-type]
        log_level="error",  # type: ignore[arg-type]
        backlog=2048,
    ).serve()


def serve_floor(port: int, build: bool = False, stack: str = "h11") -> None:
    run_uvicorn(floor_app(build), port, stack)


def floor_app(build: bool = False) -> Any:
    """The floor: the same run's events encoded once (per size), then streamed as bytes.

    A bare ASGI app on the same uvicorn (h11, one worker): it reads the body, parses the JSON
    (the run's size is in it, as for the other servers) and sends the pre-encoded SSE in 64 KiB
    messages, as our server's writer sends what is queued; no model is built, nothing checked.
    With ``build`` (the "floor-build" row), each request builds and encodes its events as our
    agent does, with nothing between them and the socket: what a server's own layers (guard,
    verifier, writer) cost shows as the distance to this row. Paced (``forwardedProps.paced``,
    the paced rows), floor-build awaits ``asyncio.sleep(0)`` before each delta and sends each
    event in its own ASGI message, as any server must when the agent awaits between tokens.
    """
    from ag_ui.core import (
        RunFinishedEvent,
        RunStartedEvent,
        TextMessageContentEvent,
        TextMessageEndEvent,
        TextMessageStartEvent,
    )
    from ag_ui.encoder import EventEncoder

    encoder = EventEncoder()
    cache: dict[int, list[bytes]] = {}

    def encoded(count: int) -> list[bytes]:
        """The text message's frames, encoded on the first request of that size only."""
        if build or count not in cache:
            frames = [encoder.encode(TextMessageStartEvent(message_id="msg-1", role="assistant"))]
            frames += [
                encoder.encode(
                    TextMessageContentEvent(message_id="msg-1", delta=WORDS[i % len(WORDS)])
                )
                for i in range(count)
            ]
            frames.append(encoder.encode(TextMessageEndEvent(message_id="msg-1")))
            # 64 KiB messages cut between events, as our writer's are (the client counts
            # events in the raw chunked body, where a chunk header inside one would hide it).
            chunks, pending, size = [], [], 0
            for frame in frames:
                data = frame.encode()
                pending.append(data)
                size += len(data)
                if size >= 65536:
                    chunks.append(b"".join(pending))
                    pending, size = [], 0
            cache[count] = [*chunks, b"".join(pending)]
        return cache[count]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        run = json.loads(body)
        props = run.get("forwardedProps") or {}
        count = int(props.get("events", 100))
        ids = {"thread_id": run["threadId"], "run_id": run["runId"]}
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if props.get("paced"):
            await paced_floor(send, count, ids)
            return
        started = encoder.encode(RunStartedEvent(**ids)).encode()
        await send({"type": "http.response.body", "body": started, "more_body": True})
        for chunk in encoded(count):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        finished = encoder.encode(RunFinishedEvent(**ids)).encode()
        await send({"type": "http.response.body", "body": finished})

    encode_sse = encoder.encode_sse

    async def paced_floor(send: Any, count: int, ids: dict[str, str]) -> None:
        async def out(event: Any, more: bool = True) -> None:
            body = encode_sse(event)
            await send({"type": "http.response.body", "body": body, "more_body": more})

        await out(RunStartedEvent(**ids))
        await out(TextMessageStartEvent(message_id="msg-1", role="assistant"))
        for index in range(count):
            await asyncio.sleep(0)
            await out(TextMessageContentEvent(message_id="msg-1", delta=WORDS[index % len(WORDS)]))
        await out(TextMessageEndEvent(message_id="msg-1"))
        await out(RunFinishedEvent(**ids), more=False)

    return app


def serve_official(port: int, stack: str = "h11") -> None:
    run_uvicorn(official_app(), port, stack)


def official_app() -> Any:
    """The official package's server: ``EventEncoder`` + FastAPI ``StreamingResponse``."""
    from fastapi import FastAPI, Request
    from fastapi.responses import StreamingResponse

    from ag_ui.core import (  # the official package, in .venv-official
        EventType,
        RunAgentInput,
        RunFinishedEvent,
        RunStartedEvent,
        TextMessageContentEvent,
        TextMessageEndEvent,
        TextMessageStartEvent,
    )
    from ag_ui.encoder import EventEncoder

    app = FastAPI()

    async def run(input_data: RunAgentInput, request: Request) -> StreamingResponse:
        encoder = EventEncoder(accept=request.headers.get("accept"))
        props = input_data.forwarded_props or {}
        count = int(props.get("events", 100))
        paced = bool(props.get("paced"))

        async def stream() -> Any:
            yield encoder.encode(
                RunStartedEvent(
                    type=EventType.RUN_STARTED,
                    thread_id=input_data.thread_id,
                    run_id=input_data.run_id,
                )
            )
            yield encoder.encode(TextMessageStartEvent(message_id="msg-1", role="assistant"))
            for index in range(count):
                if paced:
                    await asyncio.sleep(0)
                yield encoder.encode(
                    TextMessageContentEvent(message_id="msg-1", delta=WORDS[index % len(WORDS)])
                )
            yield encoder.encode(TextMessageEndEvent(message_id="msg-1"))
            yield encoder.encode(
                RunFinishedEvent(thread_id=input_data.thread_id, run_id=input_data.run_id)
            )

        return StreamingResponse(stream(), media_type=encoder.get_content_type())

    # This module uses postponed annotations; FastAPI needs the real classes to read the body.
    run.__annotations__ = {"input_data": RunAgentInput, "request": Request}
    app.post("/agent")(run)
    return app


# -- driver ----------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """A server subprocess; stopped (by its pid) on exit."""

    def __init__(self, kind: str, stack: str = "h11") -> None:
        self.kind = kind
        self.port = free_port()
        if kind == "node":
            command = ["node", str(REPO / "benchmarks" / "bench_server_node.mjs"), str(self.port)]
        else:
            python = REPO / (".venv-official" if kind == "official" else ".venv") / "bin/python"
            command = [str(python), str(Path(__file__).resolve()), "--serve", kind]
            command += ["--port", str(self.port), "--stack", stack]
        # Run from a neutral directory so the official venv never sees our src/ on sys.path.
        self.process = subprocess.Popen(command, cwd="/tmp", env={**os.environ, "PYTHONPATH": ""})

    def __enter__(self) -> Server:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.process.kill()
        raise RuntimeError(f"{self.kind} server did not start")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

    def cpu_seconds(self) -> float:
        """CPU time of every thread of the server so far (scheduler nanoseconds, exact)."""
        total = 0
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")


def request_bytes(
    port: int, events: int, hold: float, run_id: str, accept: str = SSE, paced: bool = False
) -> bytes:
    props: dict[str, Any] = {"events": events, "hold": hold}
    if paced:
        props["paced"] = True
    body = json.dumps(
        {"threadId": "thread-1", "runId": run_id, "messages": [], "forwardedProps": props}
    ).encode()
    head = (
        f"POST /agent HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: {accept}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


async def one_run(
    port: int, events: int, hold: float, run_id: str, accept: str = SSE, paced: bool = False
) -> tuple[float, float, bytes]:
    """(time to first event, total time, whole response) of one streamed run."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(request_bytes(port, events, hold, run_id, accept, paced))
    first_event = 0.0
    chunks: list[bytes] = []
    while True:
        chunk = await reader.read(1 << 16)
        if not chunk:
            break
        if not first_event and b"data: " in chunk:
            first_event = time.perf_counter() - started
        chunks.append(chunk)
    writer.close()
    return first_event, time.perf_counter() - started, b"".join(chunks)


def complete(response: bytes, events: int) -> bool:
    return response.count(CONTENT_MARKER) == events and b'"type":"RUN_FINISHED"' in response


def complete_protobuf(response: bytes, events: int) -> bool:
    """Every frame decodes and the run is whole (the body is HTTP/1.1 chunked)."""
    from ag_ui.proto import FrameDecoder

    head, _, chunked = response.partition(b"\r\n\r\n")
    body, position = bytearray(), 0
    while True:
        line_end = chunked.index(b"\r\n", position)
        size = int(chunked[position:line_end], 16)
        if size == 0:
            break
        body += chunked[line_end + 2 : line_end + 2 + size]
        position = line_end + 4 + size
    decoder = FrameDecoder()
    decoded = decoder.feed(bytes(body)) + decoder.close()
    kinds = [event.type.value for event in decoded]
    return (
        PROTOBUF.encode() in head
        and kinds.count("TEXT_MESSAGE_CONTENT") == events
        and kinds[-1] == "RUN_FINISHED"
    )


def throughput(kind: str, events: int, rounds: int, accept: str = SSE) -> float:
    """Best events/s over ``rounds`` runs (all events of the run, lifecycle included)."""
    is_complete = complete_protobuf if accept == PROTOBUF else complete
    with Server(kind) as server:
        asyncio.run(one_run(server.port, 100, 0, "warmup", accept))
        asyncio.run(one_run(server.port, events, 0, "warmup-full", accept))  # the floor's cache
        best = 0.0
        for round_number in range(rounds):
            _, elapsed, response = asyncio.run(
                one_run(server.port, events, 0, f"run-{round_number}", accept)
            )
            if not is_complete(response, events):
                raise RuntimeError(f"{kind}: incomplete response")
            best = max(best, (events + 4) / elapsed)
    return best


def sequential_ttfe(kind: str, runs: int) -> tuple[float, float]:
    """p50/p99 time to first event (ms) of ``runs`` short runs, one client at a time."""
    with Server(kind) as server:
        asyncio.run(one_run(server.port, 10, 0, "warmup"))
        firsts = sorted(
            asyncio.run(one_run(server.port, 10, 0, f"s{index}"))[0] for index in range(runs)
        )
    return statistics.median(firsts) * 1000, firsts[int(len(firsts) * 0.99) - 1] * 1000


async def concurrent_runs(
    server: Server, clients: int, events: int, hold: float
) -> tuple[list[tuple[float, float, bytes]], int]:
    """All clients at once; samples the server's RSS while every stream is open (holding)."""
    tasks = [
        asyncio.create_task(one_run(server.port, events, hold, f"c{index}"))
        for index in range(clients)
    ]
    await asyncio.sleep(hold / 2)
    rss_open = server.rss_kib()
    results = await asyncio.gather(*tasks)
    return results, rss_open


def burst(kind: str, clients: int, events: int) -> tuple[int, float, float]:
    """``clients`` runs started at once, no pause: (complete runs, TTFE p50 ms, p99 ms)."""

    async def all_at_once(port: int) -> list[tuple[float, float, bytes]]:
        return await asyncio.gather(
            *(one_run(port, events, 0, f"b{index}") for index in range(clients))
        )

    with Server(kind) as server:
        asyncio.run(one_run(server.port, 10, 0, "warmup"))
        results = asyncio.run(all_at_once(server.port))
    firsts = sorted(first for first, _, _ in results)
    done = sum(complete(response, events) for _, _, response in results)
    return done, statistics.median(firsts) * 1000, firsts[int(len(firsts) * 0.99) - 1] * 1000


def concurrency(clients: int, events: int, hold: float) -> dict[str, Any]:
    with Server("ours") as server:
        asyncio.run(one_run(server.port, 10, 0, "warmup"))
        rss_idle = server.rss_kib()
        results, rss_open = asyncio.run(concurrent_runs(server, clients, events, hold))
    complete_runs = sum(complete(response, events) for _, _, response in results)
    firsts = sorted(first for first, _, _ in results)
    return {
        "clients": clients,
        "complete": complete_runs,
        "events_each": events + 4,
        "ttfe_p50_ms": statistics.median(firsts) * 1000,
        "ttfe_p99_ms": firsts[int(len(firsts) * 0.99) - 1] * 1000,
        "memory_per_stream_kib": (rss_open - rss_idle) / clients,
        "rss_idle_mib": rss_idle / 1024,
        "rss_open_mib": rss_open / 1024,
    }


# -- paced: an agent that awaits before each delta, as one relaying a model's tokens does --------

PACED_KINDS = {
    "ours": "ours, create_app (guard + verifier)",
    "official": "official EventEncoder + FastAPI",
    "floor-build": "floor-build (bare ASGI, one send/event)",
    "node": "Node http + @ag-ui/encoder",
}


def paced_socket(kinds: list[str], streams: int, deltas: int, rounds: int) -> dict[str, float]:
    """Server CPU µs per event of each kind: ``streams`` paced runs of ``deltas`` at once over
    loopback (uvicorn + httptools + uvloop; Node's own http), the least of ``rounds`` rounds.
    Every server is up for the whole measurement and the rounds go round the servers, so that
    the machine's load changes every row alike."""
    events = streams * (deltas + 4)

    async def all_at_once(port: int, round_number: int) -> list[bytes]:
        runs = (
            one_run(port, deltas, 0, f"p{round_number}-{i}", paced=True) for i in range(streams)
        )
        return [response for _, _, response in await asyncio.gather(*runs)]

    best = dict.fromkeys(kinds, float("inf"))
    with contextlib.ExitStack() as stack:
        servers = {kind: stack.enter_context(Server(kind, "standard")) for kind in kinds}
        for server in servers.values():
            asyncio.run(all_at_once(server.port, -1))  # warm-up
        for round_number in range(rounds):
            for kind, server in servers.items():
                before = server.cpu_seconds()
                responses = asyncio.run(all_at_once(server.port, round_number))
                used = server.cpu_seconds() - before
                if not all(complete(response, deltas) for response in responses):
                    raise RuntimeError(f"{kind}: incomplete paced response")
                best[kind] = min(best[kind], used / events * 1e6)
    return best


def paced_in_process(kind: str, streams: int, deltas: int, rounds: int) -> float:
    """CPU µs per event of the same load through the app's ASGI callable in its own venv's
    process (no socket, uvloop): what the server's Python costs, without the kernel."""
    python = REPO / (".venv-official" if kind == "official" else ".venv") / "bin/python"
    command = [str(python), str(Path(__file__).resolve()), "--in-process", kind]
    command += ["--streams", str(streams), "--deltas", str(deltas), "--rounds", str(rounds)]
    out = subprocess.run(
        command, cwd="/tmp", env={**os.environ, "PYTHONPATH": ""}, capture_output=True, text=True
    )
    if out.returncode:
        raise RuntimeError(f"{kind} in process: {out.stderr[-2000:]}")
    return float(out.stdout.split()[-1])


_SCOPE = {
    "type": "http",
    "asgi": {"version": "3.0"},
    "http_version": "1.1",
    "method": "POST",
    "scheme": "http",
    "path": "/agent",
    "raw_path": b"/agent",
    "query_string": b"",
    "root_path": "",
    "headers": [(b"content-type", b"application/json"), (b"accept", SSE.encode())],
    "client": ("127.0.0.1", 1),
    "server": ("127.0.0.1", 80),
}


def _in_process_worker(kind: str, streams: int, deltas: int, rounds: int) -> None:
    """``--in-process KIND``: prints the least CPU µs per event over ``rounds`` rounds."""
    import uvloop

    app = {"ours": ours_app, "official": official_app, "floor-build": floor_app}[kind]()
    if kind == "floor-build":
        app = floor_app(build=True)
    scope = _SCOPE

    async def one(run_id: str) -> None:
        body = request_bytes(0, deltas, 0, run_id, paced=True).split(b"\r\n\r\n", 1)[1]
        done = asyncio.Event()
        received: list[bytes] = []

        async def receive() -> dict[str, Any]:
            if not received:
                received.append(body)
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        out: list[bytes] = []

        async def send(message: dict[str, Any]) -> None:
            out.append(message.get("body", b""))

        await app(scope, receive, send)
        done.set()
        if not complete(b"".join(out), deltas):
            raise RuntimeError(f"{kind}: incomplete run in process")

    async def load(round_number: int) -> None:
        await asyncio.gather(*(one(f"p{round_number}-{i}") for i in range(streams)))

    best = float("inf")
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(load(-1))
        for round_number in range(rounds):
            started = time.process_time()
            runner.run(load(round_number))
            best = min(best, (time.process_time() - started) / (streams * (deltas + 4)) * 1e6)
    print(f"{best:.2f}")


PACED_RUNS = 10


def _paced_workload(kind: str, deltas: int) -> Any:
    """``PACED_RUNS`` paced runs of ``deltas`` through ``kind``'s ASGI app, one after another
    on one uvloop loop (the in-process rows' load, for callgrind)."""
    import uvloop

    app = {"ours": ours_app, "official": official_app, "floor-build": floor_app}[kind]()
    if kind == "floor-build":
        app = floor_app(build=True)

    async def one(run_id: str) -> None:
        body = request_bytes(0, deltas, 0, run_id, paced=True).split(b"\r\n\r\n", 1)[1]
        done = asyncio.Event()
        received: list[bytes] = []

        async def receive() -> dict[str, Any]:
            if not received:
                received.append(body)
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            pass

        await app(_SCOPE, receive, send)
        done.set()

    async def runs() -> None:
        for index in range(PACED_RUNS):
            await one(f"i{index}")

    def run() -> None:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(runs())

    return run


def paced_instructions(deltas: int) -> dict[str, float]:
    """Instructions per event of each kind's paced run in process (callgrind, each kind in its
    own venv): the numbers to decide by, which the machine's load does not move."""
    guard = _guard()
    counts = {}
    for kind in ("ours", "official", "floor-build"):
        python = REPO / (".venv-official" if kind == "official" else ".venv") / "bin/python"
        flag = f"--paced-worker {kind} --deltas {deltas}"
        (total,) = guard.callgrind_totals(__file__, flag, 1, python=str(python))
        counts[kind] = total / PACED_RUNS / (deltas + 4)
    return counts


def paced_table(streams: int, deltas: int, rounds: int) -> None:
    print(
        f"Paced: {streams} streams x {deltas} deltas at once, the agent awaiting before each "
        f"delta;\nserver CPU per event (least of {rounds} rounds; uvicorn + httptools + uvloop)"
    )
    kinds = list(PACED_KINDS)
    if not _node_ready():
        print("  Node: skipped (node or tests/interop/node_modules missing)")
        kinds.remove("node")
    socket_us = paced_socket(kinds, streams, deltas, rounds)
    in_process_us = {
        kind: paced_in_process(kind, streams, deltas, rounds)
        for kind in ("ours", "official", "floor-build")
    }
    print(f"  {'server':42} {'socket µs':>9} {'in process µs':>14}")
    for kind, label in PACED_KINDS.items():
        if kind in socket_us:
            inner = f"{in_process_us[kind]:14.1f}" if kind in in_process_us else f"{'':14}"
            print(f"  {label:42} {socket_us[kind]:9.1f} {inner}")
    ours, official = socket_us["ours"], socket_us["official"]
    floor = socket_us["floor-build"]
    print(
        f"  ours: {official / ours:.2f}x cheaper than official + FastAPI (target >= 1.5), "
        f"{ours / floor:.2f}x floor-build (target <= 2)"
        + (f", {ours / socket_us['node']:.2f}x Node (target <= 2)" if "node" in socket_us else "")
    )
    inner_ours = in_process_us["ours"]
    print(
        f"  in process: {in_process_us['official'] / inner_ours:.2f}x cheaper than official, "
        f"{inner_ours / in_process_us['floor-build']:.2f}x floor-build"
    )
    try:
        counts = paced_instructions(deltas)
    except RuntimeError as exc:
        print(f"  instructions: skipped ({exc})")
        return
    print(
        f"  instructions per event in process ({PACED_RUNS} runs, callgrind): ours "
        f"{counts['ours'] / 1000:.1f} k, official {counts['official'] / 1000:.1f} k, "
        f"floor-build {counts['floor-build'] / 1000:.1f} k: "
        f"{counts['official'] / counts['ours']:.2f}x cheaper than official, "
        f"{counts['ours'] / counts['floor-build']:.2f}x floor-build"
    )


def _node_ready() -> bool:
    import shutil

    modules = REPO / "tests" / "interop" / "node_modules" / "@ag-ui" / "encoder"
    return shutil.which("node") is not None and modules.is_dir()


# -- instructions per event, layer by layer (callgrind, in process) ----------------------------


def _layer_workloads() -> dict[str, Any]:
    """Each configuration of our server's run, and floor-build's own work, as one callable.

    The run is ``instruction_guard.py``'s ``server_run`` (SERVER_DELTAS deltas through
    ``create_app``'s ASGI app, no socket); the rows differ by one layer each, so the differences
    are what the layers cost.
    """
    guard = _guard()

    from ag_ui.core import TextMessageContentEvent, TextMessageStartEvent
    from ag_ui.encoder import EventEncoder

    encode = EventEncoder().encode_sse

    def built(with_encode: bool) -> Any:
        def run() -> None:
            kept: list[Any] = [TextMessageStartEvent(message_id="m")]
            for _ in range(guard.SERVER_DELTAS):
                event = TextMessageContentEvent(message_id="m", delta="tok ")
                kept.append(encode(event) if with_encode else event)

        return run

    return {
        "the agent's models built, nothing else": built(False),
        "built + encode_sse (floor-build's work)": built(True),
        "ours, verify=False, a 1.1 client": guard._server_run(verify=False, version="1.1"),
        "ours, verify=False, a pre-1.0 client": guard._server_run(verify=False),
        "ours, guard + verifier, a 1.1 client": guard._server_run(version="1.1"),
        "ours, guard + verifier, a pre-1.0 client": guard._server_run(),
        "the same over protobuf": guard._server_run(accept=PROTOBUF.encode()),
    }


def _guard() -> Any:
    """benchmarks/instruction_guard.py, which holds the callgrind runner and the workloads."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import instruction_guard

    return instruction_guard


def _layers_worker() -> None:
    """Under callgrind: every configuration between markers."""
    _guard().between_markers(_layer_workloads())


def layer_instructions() -> None:
    """Print instructions per event of each configuration (one process under callgrind)."""
    guard = _guard()
    names = list(_layer_workloads())
    try:
        totals = guard.callgrind_totals(__file__, "--layers-worker", len(names))
    except RuntimeError as exc:
        sys.exit(str(exc))
    print(f"Instructions per event, {guard.SERVER_DELTAS:,} deltas in process (callgrind):")
    for name, total in zip(names, totals, strict=True):
        print(f"  {name:45} {total / guard.SERVER_DELTAS / 1000:6.1f} k")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--serve",
        choices=("ours", "ours-noverify", "official", "floor", "floor-build", "granian"),
    )
    parser.add_argument("--port", type=int)
    parser.add_argument("--stack", choices=tuple(STACKS), default="h11", help=argparse.SUPPRESS)
    parser.add_argument(
        "--paced",
        action="store_true",
        help="only the paced table: server CPU per event, agent awaiting before each delta",
    )
    parser.add_argument("--streams", type=int, default=50, help="paced: streams at once")
    parser.add_argument("--deltas", type=int, default=200, help="paced: deltas per stream")
    parser.add_argument("--in-process", choices=("ours", "official", "floor-build"))
    parser.add_argument("--paced-worker", choices=("ours", "official", "floor-build"))
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--hold", type=float, default=3.0)
    parser.add_argument(
        "--throughput-only", action="store_true", help="only the throughput rows (a minute)"
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="instructions per event of each server layer, in process (callgrind; a minute)",
    )
    parser.add_argument("--layers-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.layers_worker:
        _layers_worker()
        return
    if args.instructions:
        layer_instructions()
        return
    if args.paced_worker:
        _guard().between_markers({"run": _paced_workload(args.paced_worker, args.deltas)})
        return
    if args.in_process:
        _in_process_worker(args.in_process, args.streams, args.deltas, args.rounds)
        return
    if args.serve == "official":
        serve_official(args.port, args.stack)
        return
    if args.serve == "granian":
        serve_granian(args.port)
        return
    if args.serve in ("floor", "floor-build"):
        serve_floor(args.port, build=args.serve == "floor-build", stack=args.stack)
        return
    if args.serve:
        serve_ours(args.port, verify=args.serve == "ours", stack=args.stack)
        return
    paced_table(args.streams, args.deltas, args.rounds)
    if args.paced:
        return
    print()

    print(
        f"Throughput: one run of {args.events + 4} events over loopback SSE (best of {args.rounds})"
    )
    official = throughput("official", args.events, args.rounds)
    floor = throughput("floor", args.events, args.rounds)
    floor_build = throughput("floor-build", args.events, args.rounds)
    ours = throughput("ours", args.events, args.rounds)
    ours_noverify = throughput("ours-noverify", args.events, args.rounds)
    print(f"  official ag-ui-protocol 1.0.0 + FastAPI: {official:10,.0f} events/s")
    print(f"  floor (pre-encoded bytes, same uvicorn): {floor:10,.0f} events/s")
    print(f"  floor-build (models built + encoded):    {floor_build:10,.0f} events/s")
    for label, rate in (("guard + verifier", ours), ("verify=False", ours_noverify)):
        print(
            f"  ag_ui.server ({label + '):':<26}{rate:10,.0f} events/s  "
            f"{rate / official:.2f}x official, {rate / floor:.0%} of the floor, "
            f"{rate / floor_build:.0%} of floor-build"
        )
    ours_protobuf = throughput("ours", args.events, args.rounds, PROTOBUF)
    print(
        f"  ag_ui.server over protobuf (guard + verifier): {ours_protobuf:10,.0f} events/s  "
        f"{ours_protobuf / official:.2f}x official SSE, {ours_protobuf / ours:.2f}x ours over SSE"
    )
    try:
        import granian  # noqa: F401  (optional: pip install granian)
    except ImportError:
        print("  granian: not installed (pip install granian), row skipped")
    else:
        on_granian = throughput("granian", args.events, args.rounds)
        print(
            f"  ag_ui.server on granian (guard + verifier): {on_granian:10,.0f} events/s  "
            f"{on_granian / ours:.2f}x ours on uvicorn"
        )
    if args.throughput_only:
        return
    print("\nTime to first event, one client at a time (200 short runs):")
    for kind, label in (("official", "official + FastAPI"), ("ours", "ag_ui.server")):
        p50, p99 = sequential_ttfe(kind, 200)
        print(f"  {label:20} p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    print(f"\nConcurrency: {args.clients} clients at once, each run held open {args.hold:g} s")
    stats = concurrency(args.clients, 100, args.hold)
    complete_runs = f"{stats['complete']}/{stats['clients']}"
    print(f"  complete runs: {complete_runs} ({stats['events_each']} events each)")
    p50, p99 = stats["ttfe_p50_ms"], stats["ttfe_p99_ms"]
    print(f"  time to first event: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    print(
        f"  memory per open stream: {stats['memory_per_stream_kib']:.1f} KiB "
        f"(RSS {stats['rss_idle_mib']:.1f} MiB idle, {stats['rss_open_mib']:.1f} MiB with all open)"
    )
    print(f"\nBurst: {args.clients} clients at once, 100 deltas each, no pause")
    for kind, label in (("official", "official + FastAPI"), ("ours", "ag_ui.server")):
        done, p50, p99 = burst(kind, args.clients, 100)
        counts = f"complete {done}/{args.clients}"
        print(f"  {label:20} {counts}, first event p50 {p50:.0f} ms, p99 {p99:.0f} ms")
    if stats["complete"] != stats["clients"]:
        sys.exit("some runs lost events")


if __name__ == "__main__":
    main()
