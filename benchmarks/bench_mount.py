"""What the redirect of a FastAPI mount costs a run: ``app.mount("/agent", endpoint)`` answers
``POST /agent`` with a 307 to ``/agent/``, which ``HttpAgent`` follows; ``POST /agent/`` and a
route of its own (``endpoint.routes("/agent")``) need no redirect.

One short run (a text message of three deltas) at a time, over loopback, through one
``HttpAgent`` (kept-alive connections): runs per second for each address, the best of several
rounds, alternating. The server runs in a subprocess (uvicorn, one worker).

    .venv/bin/python benchmarks/bench_mount.py [--runs 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def serve(port: int) -> None:
    import uvicorn
    from fastapi import FastAPI

    from ag_ui.server import AgentEndpoint

    async def agent(run_input: Any, ctx: Any) -> None:
        await ctx.say(["Hello", ", ", "world"])

    app = FastAPI()
    app.mount("/agent", AgentEndpoint(agent, keepalive=None))
    app.router.routes.extend(AgentEndpoint(agent, keepalive=None).routes("/routed"))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def runs_per_second(url: str, runs: int) -> float:
    from ag_ui.client import HttpAgent

    async with HttpAgent(url) as agent:
        await agent.run_agent()  # warm the connection
        started = time.perf_counter()
        for _ in range(runs):
            agent.messages = []
            await agent.run_agent()
        return runs / (time.perf_counter() - started)


async def wait_until_up(base: str) -> None:
    import httpx

    async with httpx.AsyncClient() as http:
        for _ in range(200):
            try:
                await http.get(base + "/")
                return
            except httpx.TransportError:
                await asyncio.sleep(0.05)
    raise RuntimeError("the server did not start")


async def main(runs: int, rounds: int) -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)], cwd=REPO)
    base = f"http://127.0.0.1:{port}"
    addresses = {
        "mounted, POST /agent (307, then /agent/)": base + "/agent",
        "mounted, POST /agent/ (no redirect)": base + "/agent/",
        'routes("/routed"), POST /routed': base + "/routed",
    }
    best = dict.fromkeys(addresses, 0.0)
    try:
        await wait_until_up(base)
        for _ in range(rounds):
            for name, url in addresses.items():
                best[name] = max(best[name], await runs_per_second(url, runs))
    finally:
        server.terminate()
        server.wait(timeout=10)
    direct = best["mounted, POST /agent/ (no redirect)"]
    print(f"{runs} runs x {rounds} rounds, best round each (runs/s; ratio to the mount's /agent/)")
    for name, rate in best.items():
        print(f"  {name:<42} {rate:8.0f} runs/s  {rate / direct:5.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)  # the server process
    options = parser.parse_args()
    if options.serve:
        serve(options.serve)
    else:
        asyncio.run(main(options.runs, options.rounds))
