"""Capacity of the Redis store (issue 11, item 3): many concurrent detached runs on one worker
with ``RedisRunStore(url)`` as it comes all complete. redis-py's default pool refuses a command
when its 100 connections are busy ("Too many connections"), which failed every run past the
hundredth with 503 ``store_unavailable`` while Redis was healthy; the store's pool now waits
for a free connection instead. A real uvicorn process and a real redis-server."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from tests.redis_helpers import RedisServer, free_port
from tests.support.servers import FD, serve_process
from tests.support.sse import sse_events

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
RUNS = 400


@pytest.fixture
def worker(redis_server: RedisServer, tmp_path: Path) -> Iterator[str]:
    env = {
        **os.environ,
        "AGUI_TEST_REDIS_URL": redis_server.url,
        "AGUI_TEST_PREFIX": f"capacity{free_port()}:",
    }
    command = [sys.executable, "-m", "uvicorn", "tests.resume.capacity_app:app", "--fd", FD]
    with (
        (tmp_path / "server.log").open("w") as log,
        serve_process([*command, "--log-level", "warning"], cwd=REPO, env=env, stderr=log) as url,
    ):
        yield url


async def test_hundreds_of_concurrent_runs_on_one_worker_all_complete(worker: str) -> None:
    outcomes: dict[int, str] = {}
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)

    async with httpx.AsyncClient(base_url=worker, timeout=60, limits=limits) as http:

        async def one(n: int) -> None:
            body = {"threadId": f"t{n}", "runId": f"r{n}", "messages": []}
            response = await http.post("/agent", json={**body, "forwardedProps": {"pause": 1}})
            if response.status_code != 200:
                outcomes[n] = f"{response.status_code} {response.json()['error']['code']}"
                return
            events = sse_events(response.text)
            text = "".join(e.get("delta", "") for e in events)
            ok = events[-1]["type"] == "RUN_FINISHED" and text == "first second"
            outcomes[n] = "finished" if ok else f"{events[-1]}"

        with anyio.fail_after(120):
            async with anyio.create_task_group() as runs:
                for n in range(RUNS):
                    runs.start_soon(one, n)
    failures = sorted({o for o in outcomes.values() if o != "finished"})
    finished = sum(o == "finished" for o in outcomes.values())
    assert (finished, failures) == (RUNS, [])
