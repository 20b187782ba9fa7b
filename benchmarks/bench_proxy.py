"""Behind nginx: what the proxy costs a run's first event, and memory per open stream.

The deployment of tests/deploy (four uvicorn workers on one redis-server, nginx in front from
deploy/nginx/agui.conf; tests/deploy/harness.py), started here:

1. First-event latency (POST sent to the first ``data:`` line read), ``--runs`` runs one after
   another, then ``--concurrent`` at once: direct to the workers (round-robin by the client)
   and through nginx, alternating rounds, p50 and p99 of each.
2. Memory per open stream: ``--streams`` runs held open (each waits 30 s between its two
   deltas), the workers' and nginx's resident memory before and with all of them open.

    .venv/bin/python benchmarks/bench_proxy.py [--runs 300] [--concurrent 200] [--streams 500]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.deploy.harness import Deployment, rss_bytes  # noqa: E402
from tests.deploy.streams import body  # noqa: E402
from tests.redis_helpers import RedisServer  # noqa: E402


async def first_event(client: httpx.AsyncClient, url: str, run_id: str, orders: str) -> float:
    pieces, delay = orders.split()
    request = body(run_id, int(pieces), float(delay))
    began = time.perf_counter()
    took = None
    async with client.stream("POST", url, json=request) as response:
        async for line in response.aiter_lines():  # to the end: the connection is reused
            if took is None and line.startswith("data:"):
                took = time.perf_counter() - began
    if took is None:
        raise RuntimeError(f"no event from {url}")
    return took


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms"


async def latency(deployment: Deployment, runs: int, concurrent: int) -> None:
    direct = [f"{worker.url}/agent" for worker in deployment.workers]
    proxied = [f"{deployment.url}/agent"]
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
    samples: dict[tuple[str, str], list[float]] = {}
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        for round_ in range(3):
            for name, urls in (("direct", direct), ("nginx", proxied)):
                sequential = samples.setdefault((name, "sequential"), [])
                for n in range(runs // 3):
                    url = urls[n % len(urls)]
                    sequential.append(await first_event(client, url, f"s{round_}{n}", "3 0"))
                together = samples.setdefault((name, f"{concurrent} at once"), [])
                tasks = [
                    first_event(client, urls[n % len(urls)], f"c{round_}{n}", "3 0")
                    for n in range(concurrent)
                ]
                together.extend(await asyncio.gather(*tasks))
    for (name, kind), values in sorted(samples.items(), key=lambda item: (item[0][1], item[0][0])):
        print(f"first event, {kind:>12}, {name:>6}: {percentiles(values)} ({len(values)} runs)")


async def memory(deployment: Deployment, streams: int) -> None:
    assert deployment.nginx is not None
    workers = [w.process.pid for w in deployment.workers if w.process is not None]
    nginx = sorted(deployment.nginx.worker_pids())

    def resident() -> tuple[int, int]:
        return sum(map(rss_bytes, workers)), sum(map(rss_bytes, nginx))

    before = resident()
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        opened = 0
        all_open = asyncio.Event()
        done = asyncio.Event()

        async def hold(n: int) -> None:
            nonlocal opened
            request = body(f"m{n}", 2, 30)
            async with client.stream("POST", f"{deployment.url}/agent", json=request) as response:
                async for line in response.aiter_lines():
                    if line.startswith("data:"):
                        break
                opened += 1
                if opened == streams:
                    all_open.set()
                await done.wait()

        tasks = [asyncio.create_task(hold(n)) for n in range(streams)]
        await asyncio.wait_for(all_open.wait(), timeout=120)
        await asyncio.sleep(1)
        during = resident()
        done.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    per_worker = (during[0] - before[0]) / streams
    per_nginx = (during[1] - before[1]) / streams
    print(
        f"{streams} open streams: workers +{(during[0] - before[0]) / 1e6:.1f} MB "
        f"({per_worker / 1024:.1f} KB per stream), nginx +{(during[1] - before[1]) / 1e6:.1f} MB "
        f"({per_nginx / 1024:.1f} KB per stream)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--concurrent", type=int, default=200)
    parser.add_argument("--streams", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisServer(Path(tmp))
        try:
            deployment = Deployment(redis, Path(tmp) / "deploy", workers=4)
            try:
                asyncio.run(latency(deployment, args.runs, args.concurrent))
                asyncio.run(memory(deployment, args.streams))
            finally:
                deployment.close()
        finally:
            redis.stop()


if __name__ == "__main__":
    main()
