"""Large request bodies on ``ag_ui.server``: does a concurrent stream keep getting its events?

A client streams a run that emits an event every 10 ms; meanwhile another client posts a body
of 150,000 small messages (about 6.3 MiB, within the default 10 MiB limit), or 8 such bodies at
once. Printed: the longest gap between two events of the stream (target: under 100 ms), the
time until the large requests were answered, and the server's RSS growth (current and peak).

Two server modes, each in its own uvicorn process (h11, one worker, loopback):

* ``sliced`` (the default): bodies over 64 KiB are decoded and validated in pieces, the event
  loop getting a turn every 5 ms (``ag_ui.server._sliced_parse``);
* ``sliced-tracked``: sliced, with every model left to CPython's cyclic GC (as before
  ``ag_ui.core._gc_tracking``): each full GC pass then visits every message's model;
* ``one-call``: the same server with the threshold set past any body, i.e. one pydantic-core
  call per body, as before.

With one body, each server mode runs ``--repeat`` times (a fresh process each): the longest gap
depends on where CPython's full collections fall, so the median and the worst are printed.

First the same in this process, without HTTP, where the loop thread's CPU time between two
turns of a ticker shows the stall independently of other jobs on the machine, with a third mode,
``thread``: the one call in a worker thread (``asyncio.to_thread``), which does not help (the
call holds the GIL); and the longest full (generation 2) collection of CPython's cyclic GC.

    .venv/bin/python benchmarks/bench_big_body.py [--messages 150000] [--concurrent 8]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
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
TICK = 0.01
SERVER_MODES = ("one-call", "sliced-tracked", "sliced")
TARGET_MS = 100.0


def serve(fd: int, mode: str) -> None:
    import anyio
    import uvicorn

    from ag_ui.core import CustomEvent, _gc_tracking
    from ag_ui.server import _sliced_parse, create_app

    if mode == "one-call":
        _sliced_parse.SLICED_ABOVE = 1 << 40
    if mode == "sliced-tracked":
        _gc_tracking._untrack = None

    async def agent(run_input: Any, ctx: Any) -> Any:
        if run_input.run_id != "stream":
            return  # a large request's run: the parse is what is measured
        seconds = float((run_input.forwarded_props or {}).get("seconds", 5))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            # The server's loop-thread CPU time rides along: the largest step between two
            # ticks is the stall in CPU, which other jobs on the machine cannot inflate.
            yield CustomEvent(name="tick", value=time.thread_time())
            await anyio.sleep(TICK)

    http = os.environ.get("BENCH_HTTP", "h11")
    uvicorn.run(create_app(agent, keepalive=None), fd=fd, log_level="error", http=http)  # type: ignore[arg-type]


def body_of(count: int) -> bytes:
    messages = [{"id": f"m{i}", "role": "user", "content": "hi"} for i in range(count)]
    return json.dumps({"threadId": "t", "runId": "big", "messages": messages}).encode()


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field}")


async def post(port: int, body: bytes, headers: str = "") -> tuple[asyncio.StreamReader, Any]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        f"POST /agent HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n{headers}\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
    return reader, writer


async def measure(port: int, pid: int, big: bytes, concurrent: int) -> dict[str, float]:
    stream_body = json.dumps(
        {"threadId": "t", "runId": "stream", "messages": [], "forwardedProps": {"seconds": 60}}
    ).encode()
    reader, writer = await post(port, stream_body)
    arrivals: list[float] = []
    server_cpu: list[tuple[float, float]] = []  # (arrival, the server's loop-thread CPU time)

    async def read_stream() -> None:
        while line := await reader.readline():
            if line.startswith(b"data: ") and b'"tick"' in line:
                arrivals.append(time.perf_counter())
                server_cpu.append((arrivals[-1], json.loads(line[6:])["value"]))

    streaming = asyncio.create_task(read_stream())
    while len(arrivals) < 20:  # the stream is flowing
        await asyncio.sleep(0.01)
    rss_before, hwm_before = status_kib(pid, "VmRSS"), status_kib(pid, "VmHWM")
    started = time.perf_counter()

    async def one() -> float:
        big_reader, big_writer = await post(port, big)
        answer = await big_reader.read()
        big_writer.close()
        if not answer.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(answer[:200].decode("latin-1"))
        return time.perf_counter() - started

    answered = await asyncio.gather(*(one() for _ in range(concurrent)))
    ended = time.perf_counter()
    # The runs' inputs are freed in slices once answered (ag_ui.server._release): RSS is read
    # once it has settled (two reads 0.1 s apart within 1 MiB, at most 5 s).
    rss_after = status_kib(pid, "VmRSS")
    for _ in range(50):
        await asyncio.sleep(0.1)
        previous, rss_after = rss_after, status_kib(pid, "VmRSS")
        if abs(previous - rss_after) < 1024:
            break
    hwm_after = status_kib(pid, "VmHWM")
    streaming.cancel()
    writer.close()
    during = [t for t in arrivals if started <= t <= ended + TICK * 5]
    gaps = [b - a for a, b in itertools.pairwise(during)]
    cpu = [c for t, c in server_cpu if started <= t <= ended + TICK * 5]
    cpu_gaps = [b - a for a, b in itertools.pairwise(cpu)]
    return {
        "max_gap_ms": max(gaps) * 1000 if gaps else float("nan"),
        "max_cpu_gap_ms": max(cpu_gaps) * 1000 if cpu_gaps else float("nan"),
        "answered_s": max(answered),
        "rss_growth_mib": (rss_after - rss_before) / 1024,
        "peak_growth_mib": (hwm_after - hwm_before) / 1024,
        "peak_per_request_mib": (hwm_after - hwm_before) / 1024 / concurrent,
    }


def run_server(mode: str, big: bytes, concurrent: int) -> dict[str, float]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", mode, "--fd", str(sock.fileno())],
        pass_fds=[sock.fileno()],
        cwd=REPO,
    )
    sock.close()
    try:
        for _ in range(200):  # wait until it answers
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as probe:
                    probe.sendall(
                        b"GET /x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                    )
                    if probe.recv(10):
                        break
            except OSError:
                time.sleep(0.05)
        return asyncio.run(measure(port, process.pid, big, concurrent))
    finally:
        process.terminate()
        process.wait(10)


async def in_process(big: bytes, mode: str, concurrent: int) -> dict[str, float]:
    """The loop's longest stall while ``concurrent`` bodies are parsed in this process: in wall
    time, and in CPU time of the loop's thread (what it did between two turns of a 5 ms ticker,
    which other jobs on the machine cannot inflate); and the longest full GC collection."""
    import gc

    from ag_ui.core import _gc_tracking
    from ag_ui.core.decoding import parse_run_agent_input
    from ag_ui.server import _sliced_parse

    collections: list[float] = []
    started_collection = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started_collection[0] = time.perf_counter()
        elif info["generation"] == 2:
            collections.append(time.perf_counter() - started_collection[0])

    ticks: list[tuple[float, float]] = []
    stop = False

    async def ticker() -> None:
        while True:
            ticks.append((time.perf_counter(), time.thread_time()))
            if stop:  # the turn after the parse counts too: it ends the longest gap
                return
            await asyncio.sleep(0.005)

    async def parse() -> object:
        if mode == "thread":
            return await asyncio.to_thread(parse_run_agent_input, big)
        if mode == "one-call":
            return parse_run_agent_input(big)
        return await _sliced_parse.parse_run_input(big)

    untrack = _gc_tracking._untrack
    if mode == "sliced-tracked":
        _gc_tracking._untrack = None
    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    # A GC callback is Python code, where a worker thread would hand the GIL over: the thread
    # mode is measured without one (its full GC column stays empty).
    callbacks = [] if mode == "thread" else [on_gc]
    gc.callbacks.extend(callbacks)
    started = time.perf_counter()
    try:
        parsed = await asyncio.gather(*(parse() for _ in range(concurrent)))
    finally:
        _gc_tracking._untrack = untrack
        for callback in callbacks:
            gc.callbacks.remove(callback)
    took = time.perf_counter() - started
    stop = True
    await task
    del parsed
    pairs = list(itertools.pairwise(ticks))
    return {
        "took_s": took,
        "wall_gap_ms": max(b[0] - a[0] for a, b in pairs) * 1000,
        "cpu_gap_ms": max(b[1] - a[1] for a, b in pairs) * 1000,
        "gc_max_ms": max(collections, default=0.0) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", choices=SERVER_MODES)
    parser.add_argument("--fd", type=int)
    parser.add_argument("--messages", type=int, default=150_000)
    parser.add_argument("--concurrent", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each one-body server row")
    args = parser.parse_args()
    if args.serve:
        serve(args.fd, args.serve)
        return
    big = body_of(args.messages)
    print(f"body: {args.messages:,} messages, {len(big) / 2**20:.1f} MiB")
    print("\nin this process, a 5 ms ticker on the loop (CPU: the loop thread's, between ticks)")
    print(f"{'mode':<14} {'bodies':>6} {'parse':>8} {'max gap':>9} {'CPU gap':>9} {'full GC':>9}")
    for concurrent in (1, args.concurrent):
        for mode in ("one-call", "thread", "sliced-tracked", "sliced"):
            r = asyncio.run(in_process(big, mode, concurrent))
            cpu = "" if mode == "thread" else f"{r['cpu_gap_ms']:.0f}ms"
            collection = "" if mode == "thread" else f"{r['gc_max_ms']:.0f}ms"
            print(
                f"{mode:<14} {concurrent:>6} {r['took_s']:>7.2f}s {r['wall_gap_ms']:>7.0f}ms"
                f" {cpu:>9} {collection:>9}"
            )
    print("\nover uvicorn (own process), a stream ticking every 10 ms read by a socket client")
    print(f"(one body: median and worst of {args.repeat} runs, each in a fresh server process)")
    print(
        f"{'mode':<14} {'bodies':>6} {'max gap':>9} {'worst':>7} {'answered':>9}"
        f" {'RSS +':>9} {'peak +':>9}"
    )
    target: list[float] = []
    for concurrent in (1, args.concurrent):
        for mode in SERVER_MODES:
            runs = [
                run_server(mode, big, concurrent)
                for _ in range(args.repeat if concurrent == 1 else 1)
            ]
            gaps = sorted(r["max_gap_ms"] for r in runs)
            if mode == "sliced" and concurrent == 1:
                target = gaps
            r = runs[-1]
            worst = f"{gaps[-1]:.0f}ms" if len(gaps) > 1 else ""
            print(
                f"{mode:<14} {concurrent:>6} {statistics.median(gaps):>7.0f}ms {worst:>7}"
                f" {r['answered_s']:>8.2f}s"
                f" {r['rss_growth_mib']:>6.0f}MiB {r['peak_growth_mib']:>6.0f}MiB"
                f"  ({r['peak_per_request_mib']:.0f} MiB peak per request)"
            )
    verdict = "met" if target[-1] < TARGET_MS else "NOT met"
    print(
        f"\ntarget: another stream's longest gap under {TARGET_MS:g} ms while one body is parsed"
        f" (sliced, over uvicorn): worst of {len(target)} {target[-1]:.0f} ms: {verdict}"
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
