"""Resumable runs: what the run store costs a streamed run, and memory per stored event.

1. Throughput: events/s of one long run (RUN_STARTED, a text message of N deltas, RUN_FINISHED)
   on uvicorn (one worker, 127.0.0.1) with no store, ``InMemoryRunStore`` and ``RedisRunStore``
   (a redis-server started here), read by the raw socket client of ``bench_server.py``.
2. Memory per stored event: ``InMemoryRunStore`` (tracemalloc, event models included) and
   Redis (``used_memory`` delta) for N ``TEXT_MESSAGE_CONTENT`` events.
3. Capacity: ``--runs`` (1,000) concurrent detached runs on one worker with ``RedisRunStore(url)``
   as it comes, each pausing 1 s in the middle so that all of them are running at once: how
   many complete, in how long, how many Redis connections the worker held at most; the same
   with ``InMemoryRunStore()`` (the server's own cost, no Redis) and with redis-py's default
   pool (what the store had before), which refuses a command when its 100 connections are busy.

    .venv/bin/python benchmarks/bench_resume.py [--events 20000] [--rounds 3] [--runs 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from bench_server import WORDS, complete, free_port, one_run

REPO = Path(__file__).resolve().parent.parent


def serve(port: int, kind: str, redis_url: str) -> None:
    import uvicorn

    from ag_ui.core import TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent
    from ag_ui.server import create_app
    from ag_ui.store import InMemoryRunStore, RedisRunStore, RunStore

    async def agent(run_input: Any, ctx: Any) -> Any:
        props = run_input.forwarded_props or {}
        count, hold = int(props.get("events", 100)), float(props.get("hold", 0))
        yield TextMessageStartEvent(message_id="msg-1", role="assistant")
        for index in range(count):
            if hold and index == count // 2:
                await asyncio.sleep(hold)
            yield TextMessageContentEvent(message_id="msg-1", delta=WORDS[index % len(WORDS)])
        yield TextMessageEndEvent(message_id="msg-1")

    store: RunStore | None = None
    if kind == "memory":
        store = InMemoryRunStore()
    elif kind == "redis":
        store = RedisRunStore(redis_url)
    elif kind == "redis-default-pool":
        from redis import asyncio as aioredis

        store = RedisRunStore(client=aioredis.from_url(redis_url))
    # Refused runs (the default pool's) log a line each: the report counts them instead.
    logging.getLogger("ag_ui.server").setLevel(logging.CRITICAL)
    app = create_app(agent, keepalive=None, store=store)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error", backlog=4096)


class Process:
    def __init__(self, command: list[str], port: int) -> None:
        self.port = port
        self.process = subprocess.Popen(command, cwd=REPO, env={**os.environ})
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"{command[0]} did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def throughput(kind: str, events: int, rounds: int, redis_url: str) -> float:
    port = free_port()
    command = [sys.executable, __file__, "--serve", kind, "--port", str(port)]
    server = Process([*command, "--redis", redis_url], port)
    try:
        asyncio.run(one_run(port, 100, 0, "warmup"))
        best = 0.0
        for round_number in range(rounds):
            _, elapsed, response = asyncio.run(one_run(port, events, 0, f"run-{round_number}"))
            if not complete(response, events):
                raise RuntimeError(f"{kind}: incomplete response")
            best = max(best, (events + 4) / elapsed)
        return best
    finally:
        server.stop()


def capacity(kind: str, runs: int, redis_url: str) -> dict[str, float]:
    """``runs`` concurrent runs of 20 deltas with a 1 s pause in the middle, on one worker."""
    from redis import asyncio as aioredis

    port = free_port()
    command = [sys.executable, __file__, "--serve", kind, "--port", str(port)]
    server = Process([*command, "--redis", redis_url], port)

    async def all_at_once() -> dict[str, float]:
        monitor = aioredis.from_url(redis_url)
        await one_run(port, 10, 0, "warmup")
        peak = 0
        done = asyncio.Event()

        async def sample() -> None:
            nonlocal peak
            while not done.is_set():
                clients = (await monitor.info("clients"))["connected_clients"]
                peak = max(peak, int(clients) - 1)  # not the monitor's own connection
                await asyncio.sleep(0.05)

        sampler = asyncio.ensure_future(sample())
        started = time.perf_counter()
        results = await asyncio.gather(*(one_run(port, 20, 1.0, f"run-{n}") for n in range(runs)))
        elapsed = time.perf_counter() - started
        done.set()
        await sampler
        await monitor.aclose()
        finished = [r for r in results if complete(r[2], 20)]
        refused = sum(b" 503 " in r[2].split(b"\r\n", 1)[0] for r in results)
        totals = sorted(r[1] for r in finished) or [0.0]
        return {
            "finished": len(finished),
            "refused": refused,
            "elapsed": elapsed,
            "p50": statistics.median(totals),
            "max": totals[-1],
            "connections": peak,
        }

    try:
        return asyncio.run(all_at_once())
    finally:
        server.stop()


def memory_per_event_in_memory(count: int) -> float:
    import anyio

    from ag_ui.core import TextMessageContentEvent
    from ag_ui.store import InMemoryRunStore

    async def fill() -> float:
        store = InMemoryRunStore(max_events_per_run=count + 1)
        await store.create("r", "t")
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for index in range(count):
            delta = WORDS[index % len(WORDS)]
            await store.append("r", TextMessageContentEvent(message_id="msg-1", delta=delta))
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        return (after - before) / count

    return anyio.run(fill)


def memory_per_event_redis(count: int, redis_url: str) -> float:
    import anyio
    from redis import asyncio as aioredis

    from ag_ui.core import TextMessageContentEvent
    from ag_ui.store import RedisRunStore

    async def fill() -> float:
        client = aioredis.from_url(redis_url)
        store = RedisRunStore(client=client, max_events_per_run=count + 1)
        await store.create("r", "t")
        before = (await client.info("memory"))["used_memory"]
        for index in range(count):
            delta = WORDS[index % len(WORDS)]
            await store.append("r", TextMessageContentEvent(message_id="msg-1", delta=delta))
        after = (await client.info("memory"))["used_memory"]
        await client.aclose()
        return float(after - before) / count

    return anyio.run(fill)


def throughput_and_memory(events: int, rounds: int, redis_url: str) -> None:
    rates = {k: throughput(k, events, rounds, redis_url) for k in ("none", "memory", "redis")}
    base = rates["none"]
    print(f"one run of {events + 4} events over SSE, best of {rounds}:")
    for kind, rate in rates.items():
        print(f"  store={kind:7s} {rate:10,.0f} events/s  ({rate / base:.2f}x of no store)")
    count = 100_000
    print(f"memory per stored TEXT_MESSAGE_CONTENT ({count:,} events):")
    print(f"  InMemoryRunStore {memory_per_event_in_memory(count):6.0f} bytes")
    print(f"  RedisRunStore    {memory_per_event_redis(count, redis_url):6.0f} bytes")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--only", choices=["throughput", "capacity"], help="one part only")
    parser.add_argument("--serve", choices=["none", "memory", "redis", "redis-default-pool"])
    parser.add_argument("--port", type=int)
    parser.add_argument("--redis", default="")
    args = parser.parse_args()
    if args.serve:
        serve(args.port, args.serve, args.redis)
        return
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed")
    redis_port = free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    with tempfile.TemporaryDirectory() as directory:
        options = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory]
        options += ["--logfile", f"{directory}/redis.log"]  # keep the report free of its log
        redis = Process([binary, "--port", str(redis_port), *options], redis_port)
        try:
            if args.only != "capacity":
                throughput_and_memory(args.events, args.rounds, redis_url)
            if args.only == "throughput":
                return
            print(f"{args.runs:,} concurrent runs (20 deltas, a 1 s pause) on one worker:")
            for kind, label in [
                ("memory", "InMemoryRunStore()"),
                ("redis", "RedisRunStore(url)"),
                ("redis-default-pool", "redis-py's default pool"),
            ]:
                figures = capacity(kind, args.runs, redis_url)
                connections = f"; at most {figures['connections']:.0f} Redis connections"
                print(
                    f"  {label:24s} {figures['finished']:5,.0f} finished, "
                    f"{figures['refused']:5,.0f} refused (503) in {figures['elapsed']:5.1f} s; "
                    f"per run p50 {figures['p50']:5.2f} s, max {figures['max']:5.2f} s"
                    + (connections if kind != "memory" else "")
                )
        finally:
            redis.stop()


if __name__ == "__main__":
    main()
