"""What deploys do to streams, through the real proxy: a rolling restart (SIGTERM each worker in
turn while runs stream), kill -9 of a worker, ``nginx -s reload`` mid-stream, and a client that
stops reading."""

from __future__ import annotations

import json
import socket
import time

import anyio
import httpx
import pytest

from ag_ui.core.events import EventType
from tests.deploy.counting import ABANDONED_WITHIN
from tests.deploy.harness import Deployment, rss_bytes
from tests.deploy.streams import AgentRun, StreamResult, body, expected_text, read_stream, run_agent

pytestmark = pytest.mark.anyio

LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=20)


async def test_a_rolling_restart_loses_nothing(deployed: Deployment) -> None:
    """Each worker in turn gets SIGTERM and is started again, while new runs (1.5 s each) keep
    starting every 50 ms. uvicorn cuts the streams still open after its graceful timeout (1 s);
    ``HttpAgent`` resumes each through nginx on another worker (``Last-Event-ID``), which tails
    the run in Redis while the stopping worker finishes it (``shutdown_grace``). Every run ends
    with ``RUN_FINISHED`` and exactly its text."""
    runs: list[AgentRun] = []
    stop_times: list[float] = []
    async with httpx.AsyncClient(timeout=30, limits=LIMITS) as client:

        async def one(n: int) -> None:
            runs.append(await run_agent(client, f"{deployed.url}/agent", f"rr{n}", 15, 0.1))

        async with anyio.create_task_group() as tasks:
            restarted = anyio.Event()

            async def restart_each() -> None:
                for worker in deployed.workers:
                    await anyio.sleep(0.6)
                    stop_times.append(await anyio.to_thread.run_sync(worker.terminate))
                    await anyio.to_thread.run_sync(worker.start)
                restarted.set()

            tasks.start_soon(restart_each)
            n = 0
            while not restarted.is_set():
                tasks.start_soon(one, n)
                n += 1
                await anyio.sleep(0.05)
    assert len(runs) == n
    for run in runs:
        assert run.failure is None, run.failure
        assert run.types[-1] == EventType.RUN_FINISHED
        assert run.text == expected_text(15)
    resumed = [run for run in runs if run.reconnects]
    assert resumed, "no stream was cut: the restarts happened while nothing streamed"
    # uvicorn's 1 s for the open streams, then at most the rest of a 1.5 s run (and a busy box).
    assert all(took < 8 for took in stop_times), stop_times


async def test_kill_9_of_a_worker(deployed: Deployment) -> None:
    """SIGKILL of one worker while 16 runs (4 s each) stream: the runs it was running are held
    abandoned (``RUN_ERROR`` ``run_abandoned``) within the documented bound after the kill,
    their readers having resumed on another worker; every other run finishes whole."""
    runs: list[AgentRun] = []
    victim = deployed.workers[0]
    async with httpx.AsyncClient(timeout=30, limits=LIMITS) as client:

        async def one(n: int) -> None:
            runs.append(await run_agent(client, f"{deployed.url}/agent", f"k{n}", 40, 0.1))

        async with anyio.create_task_group() as tasks:
            for n in range(16):
                tasks.start_soon(one, n)
            await anyio.sleep(1.0)
            victim.kill()
            killed_at = time.monotonic()
    abandoned = [run for run in runs if run.error_code == "run_abandoned"]
    finished = [run for run in runs if run.types and run.types[-1] == EventType.RUN_FINISHED]
    assert len(abandoned) + len(finished) == len(runs)
    assert abandoned, "the killed worker ran none of the runs (nginx spreads them round-robin)"
    for run in finished:
        assert run.text == expected_text(40)
    for run in abandoned:
        assert run.reconnects >= 1
        # The bound counts from the last heartbeat (at most one interval before the kill); the
        # reconnect's back-off and a busy box come on top.
        assert run.ended_at - killed_at < ABANDONED_WITHIN + 3, run.ended_at - killed_at
        assert expected_text(40).startswith(run.text)  # a prefix, nothing repeated


async def test_nginx_reload_mid_stream(deployed: Deployment) -> None:
    """``nginx -s reload`` while 20 streams run: the old nginx worker finishes the streams it
    holds, the new one takes the runs started after; nothing is cut, lost or repeated."""
    assert deployed.nginx is not None
    before = deployed.nginx.worker_pids()
    results: list[StreamResult] = []
    async with httpx.AsyncClient(timeout=30, limits=LIMITS) as client:

        async def one(n: int) -> None:
            results.append(
                await read_stream(client, f"{deployed.url}/agent", body(f"n{n}", 15, 0.1))
            )

        async with anyio.create_task_group() as tasks:
            for n in range(10):
                tasks.start_soon(one, n)
            await anyio.sleep(0.5)
            await anyio.to_thread.run_sync(deployed.nginx.reload)
            await anyio.sleep(0.3)
            for n in range(10, 20):
                tasks.start_soon(one, n)
    assert len(results) == 20
    for result in results:
        result.check(15)
    assert deployed.nginx.worker_pids() != before


async def test_a_client_that_stops_reading_does_not_grow_worker_memory(
    deployed: Deployment,
) -> None:
    """A client opens a stream of 40 MB (2,000 deltas of 20 KB, 2 ms apart) and reads nothing
    for 4 s, while some 30 MB of it are produced. Back-pressure runs from the client's socket
    through nginx (no buffering) to the worker's response, whose reader falls behind the run
    and continues from Redis at the client's pace (the live feed holds at most 4 MiB); the run
    goes on into Redis. The workers' memory grows by a few MB, not with what was produced
    (about 80 MB before the feed had a bound in bytes); then the client reads it all, whole."""
    size, pieces = 20_000, 2_000
    pids = [worker.process.pid for worker in deployed.workers if worker.process is not None]
    before = sum(rss_bytes(pid) for pid in pids)
    payload = json.dumps(body("slow", pieces, 0.002, size)).encode()
    host, port = "127.0.0.1", deployed.nginx.port if deployed.nginx else 0
    peak = before
    with socket.create_connection((host, port), timeout=10) as sock:
        # HTTP/1.0: the body ends with the connection, no chunk sizes amid the events.
        head = (
            f"POST /agent HTTP/1.0\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Accept: text/event-stream\r\nContent-Length: {len(payload)}\r\n\r\n"
        )
        sock.sendall(head.encode() + payload)
        for _ in range(8):
            time.sleep(0.5)
            peak = max(peak, sum(rss_bytes(pid) for pid in pids))
        received = bytearray()
        sock.settimeout(20)
        while chunk := sock.recv(1 << 20):
            received += chunk
    growth = peak - before
    assert growth < 16 * 1024 * 1024, f"worker memory grew {growth / 1e6:.1f} MB"
    head_end = received.index(b"\r\n\r\n")
    assert received.startswith(b"HTTP/1.1 200 OK")
    positions, text, types = [], [], []
    for frame in bytes(received[head_end + 4 :]).decode().split("\n\n"):
        for line in frame.splitlines():
            if line.startswith("id:"):
                positions.append(int(line.rsplit(":", 1)[1]))
            elif line.startswith("data:"):
                event = json.loads(line[5:])
                types.append(event["type"])
                text.append(event.get("delta", ""))
    assert positions == list(range(1, len(positions) + 1))
    assert "".join(text) == expected_text(pieces, size)
    assert types[-1] == "RUN_FINISHED"
