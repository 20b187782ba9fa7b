"""The PostgreSQL thread store behind the proxy: every worker shares one database, so a thread's
turns may land on any worker (the ``threaded`` deployment)."""

from __future__ import annotations

import time

import anyio
import httpx
import pytest

from ag_ui.core.events import EventType
from tests.deploy.harness import Deployment
from tests.deploy.streams import AgentRun, body, expected_text, read_stream, run_agent

pytestmark = pytest.mark.anyio

THREADS = 100
CONCURRENT = 1000


async def test_readiness_pings_both_stores(threaded: Deployment) -> None:
    async with httpx.AsyncClient(timeout=5) as client:
        ready = await client.get(f"{threaded.url}/agent/health/ready")
    assert ready.json() == {
        "status": "ready",
        "draining": False,
        "runStore": "ok",
        "threadStore": "ok",
    }


async def test_threads_in_postgresql_across_workers(threaded: Deployment) -> None:
    """Each of 100 threads (all at once) gets two runs through nginx (round-robin: on different
    workers), the second sending only its new message; the PostgreSQL thread store every
    worker shares holds both turns of each, read back through the proxy."""
    url = f"{threaded.url}/agent"
    async with httpx.AsyncClient(timeout=30) as client:

        async def turn(n: int, which: int) -> None:
            request = body(f"th{n}-{which}", 3, 0)
            request["threadId"] = f"pg-thread-{n}"
            request["messages"][0]["id"] = f"u{n}-{which}"
            (await read_stream(client, url, request)).check(3)

        for which in (1, 2):
            async with anyio.create_task_group() as tasks:
                for n in range(THREADS):
                    tasks.start_soon(turn, n, which)
        for n in range(THREADS):
            thread = (await client.get(f"{url}/threads/pg-thread-{n}")).json()
            roles = [message["role"] for message in thread["messages"]]
            assert roles == ["user", "assistant", "user", "assistant"], thread
            assert [run["runId"] for run in thread["runs"]] == [f"th{n}-1", f"th{n}-2"]


async def test_a_restart_keeps_every_thread(threaded: Deployment) -> None:
    """SIGTERM to one worker while 12 thread runs (2.5 s each) stream, then it starts again:
    every run ends whole (the cut ones resumed through nginx), and the draining worker saved
    the threads of its runs within its grace: each reads back with both messages."""
    url = f"{threaded.url}/agent"
    runs: list[AgentRun] = []
    async with httpx.AsyncClient(timeout=30) as client:

        async def one(n: int) -> None:
            runs.append(await run_agent(client, url, f"tr{n}", 25, 0.1))

        async with anyio.create_task_group() as tasks:
            for n in range(12):
                tasks.start_soon(one, n)
            await anyio.sleep(0.5)
            victim = threaded.workers[1]
            await anyio.to_thread.run_sync(victim.terminate)
            await anyio.to_thread.run_sync(victim.start)
        for run in runs:
            assert run.failure is None, run.failure
            assert run.types[-1] == EventType.RUN_FINISHED
            assert run.text == expected_text(25)
        assert any(run.reconnects for run in runs)
        for n in range(12):
            thread = (await client.get(f"{url}/threads/t-tr{n}")).json()
            assert [m["role"] for m in thread["messages"]] == ["user", "assistant"], thread
            assert thread["messages"][1]["content"] == expected_text(25)


async def test_kill_9_of_a_worker_leaves_every_thread_whole(threaded: Deployment) -> None:
    """SIGKILL of one worker while 12 thread runs (3 s each) stream through nginx: its runs end
    ``run_abandoned`` for their readers (resumed on another worker) and keep no new version of
    their thread (the worker died before the save: no torn thread, no half reply); every other
    run finishes whole and its thread holds both messages. The worker then starts again."""
    url = f"{threaded.url}/agent"
    runs: dict[int, AgentRun] = {}
    victim = threaded.workers[2]
    async with httpx.AsyncClient(timeout=30) as client:

        async def one(n: int) -> None:
            runs[n] = await run_agent(client, url, f"tk{n}", 30, 0.1)

        try:
            async with anyio.create_task_group() as tasks:
                for n in range(12):
                    tasks.start_soon(one, n)
                await anyio.sleep(1.0)
                victim.kill()
        finally:
            await anyio.to_thread.run_sync(victim.start)
        abandoned = [n for n, run in runs.items() if run.error_code == "run_abandoned"]
        finished = [n for n, run in runs.items() if run.types[-1:] == [EventType.RUN_FINISHED]]
        assert sorted(abandoned + finished) == list(range(12))
        assert abandoned, "the killed worker ran none of the runs (nginx spreads them)"
        for n in finished:
            thread = (await client.get(f"{url}/threads/t-tk{n}")).json()
            assert [m["role"] for m in thread["messages"]] == ["user", "assistant"], thread
            assert thread["messages"][1]["content"] == expected_text(30)
        for n in abandoned:
            # A first turn whose worker died: nothing was saved, so there is no thread at all.
            missing = await client.get(f"{url}/threads/t-tk{n}")
            assert missing.status_code == 404, missing.text


async def test_a_thousand_concurrent_runs_keep_their_threads(threaded: Deployment) -> None:
    """1,000 runs at once (10 deltas 0.1 s apart each), each its own thread in PostgreSQL:
    the four workers' pools (10 connections each) are overloaded. What overload may do is
    refuse a run before it starts (``503``, ``Retry-After``), which ``HttpAgent`` sends again;
    what it may not do is lose a reply already streamed (``thread_not_saved``) or an event.
    Every run ends whole and every thread reads back with both messages."""
    url = f"{threaded.url}/agent"
    runs: dict[int, AgentRun] = {}
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    began = time.monotonic()
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:

        async def one(n: int) -> None:
            runs[n] = await run_agent(client, url, f"k{n}", 10, 0.1)

        async with anyio.create_task_group() as tasks:
            for n in range(CONCURRENT):
                tasks.start_soon(one, n)
        took = time.monotonic() - began
        for run in runs.values():
            assert run.failure is None, (run.failure, run.error_code)
            assert run.types[-1] == EventType.RUN_FINISHED
            assert run.text == expected_text(10)
        refused = sum(run.refusals for run in runs.values())
        print(f"1,000 runs with the thread store: {took:.1f} s, {refused} refusal(s) resent")

        async def read_back(n: int) -> None:
            thread = (await client.get(f"{url}/threads/t-k{n}")).json()
            assert [m["role"] for m in thread["messages"]] == ["user", "assistant"], thread
            assert thread["messages"][1]["content"] == expected_text(10)
            assert [run["runId"] for run in thread["runs"]] == [f"k{n}"]

        for first in range(0, CONCURRENT, 50):  # 50 at a time: reading back is not the test
            async with anyio.create_task_group() as tasks:
                for n in range(first, first + 50):
                    tasks.start_soon(read_back, n)
