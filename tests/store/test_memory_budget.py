"""The in-memory store's byte budget (``max_bytes``, issue 11 item 6): finished runs are evicted
oldest first, new runs are refused with ``store_full`` while running runs hold the budget, a
running run that outgrows it loses its own oldest events, and the resident memory of a real
server stays under the budget plus a small constant."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ag_ui.core import TextMessageContentEvent
from ag_ui.core.errors import HistoryTrimmedError, RunNotFoundError, StoreFullError
from ag_ui.encoder.encoder import event_to_json
from ag_ui.server import RunContext, create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.store.memory import DEFAULT_MAX_BYTES, EVENT_OVERHEAD
from tests.support.servers import FD, serve, serve_process
from tests.support.sse import sse_events

REPO = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024


def delta(size: int) -> TextMessageContentEvent:
    return TextMessageContentEvent(message_id="m", delta="x" * size)


def cost(size: int) -> int:
    """What one ``delta(size)`` costs against the budget."""
    return len(event_to_json(delta(size))) + EVENT_OVERHEAD


async def fill(store: InMemoryRunStore, key: str, events: int, size: int = 1000) -> None:
    await store.create(key, "t")
    await store.append_many(key, [delta(size) for _ in range(events)])


async def positions(store: InMemoryRunStore, key: str, after: int = 0) -> list[int]:
    return [item.position async for item in store.read(key, after)]


def test_the_default_budget_is_256_mib() -> None:
    assert InMemoryRunStore().max_bytes == DEFAULT_MAX_BYTES == 256 * MiB
    with pytest.raises(ValueError, match="max_bytes must be at least 1"):
        InMemoryRunStore(max_bytes=0)


@pytest.mark.anyio
async def test_the_store_counts_what_it_holds() -> None:
    store = InMemoryRunStore()
    await fill(store, "a", 10)
    assert store.stored_bytes == store.live_bytes == 10 * cost(1000)
    await store.finish("a")
    assert (store.stored_bytes, store.live_bytes) == (10 * cost(1000), 0)


@pytest.mark.anyio
async def test_finished_runs_are_evicted_oldest_first_over_the_budget() -> None:
    store = InMemoryRunStore(max_bytes=35 * cost(1000))
    for key in ("a", "b", "c"):
        await fill(store, key, 10)
        await store.finish(key)
    await fill(store, "d", 10)  # 40 events: "a", the oldest finished, must go
    with pytest.raises(RunNotFoundError):
        await store.get("a")
    assert [await positions(store, key) for key in ("b", "c")] == [list(range(1, 11))] * 2
    assert store.stored_bytes <= store.max_bytes


@pytest.mark.anyio
async def test_new_runs_are_refused_while_running_runs_hold_the_budget() -> None:
    store = InMemoryRunStore(max_bytes=20 * cost(1000))
    await fill(store, "old", 5)
    await store.finish("old")
    await fill(store, "a", 10)
    await fill(store, "b", 9)  # 19 of 20 running: over 90%, and "old" was evicted for it
    with pytest.raises(RunNotFoundError):
        await store.get("old")
    with pytest.raises(StoreFullError, match=r"max_bytes=.*raise max_bytes"):
        await store.create("c", "t")
    await store.finish("a")  # a finished run can be evicted to make room
    await store.create("c", "t")
    with pytest.raises(RunNotFoundError):
        await store.get("a")


@pytest.mark.anyio
async def test_a_running_run_that_outgrows_the_budget_loses_its_own_oldest_events() -> None:
    store = InMemoryRunStore(max_bytes=30 * cost(1000))
    await fill(store, "other", 10)
    await fill(store, "big", 10)
    await store.append_many("big", [delta(1000) for _ in range(30)])  # 50 events, room for 30
    assert store.stored_bytes <= store.max_bytes
    assert await store.last_position("big") == 40
    with pytest.raises(HistoryTrimmedError):
        await positions(store, "big")
    await store.finish("big")
    assert await positions(store, "big", after=20) == list(range(21, 41))
    await store.finish("other")
    assert await positions(store, "other") == list(range(1, 11))  # the other run is untouched
    # The newest event is always kept, even one larger than the whole budget.
    await store.create("huge", "t")
    await store.append("huge", delta(40 * 1000))
    await store.finish("huge")
    assert await positions(store, "huge") == [1]


# -- on a real server --------------------------------------------------------------------------


def props(chunks: int, chunk_kib: int) -> dict[str, Any]:
    return {"chunks": chunks, "chunk_kib": chunk_kib}


def body(run_id: str, forwarded: dict[str, Any]) -> dict[str, Any]:
    return {"threadId": "t", "runId": run_id, "messages": [], "forwardedProps": forwarded}


@pytest.fixture
def budget_server() -> Iterator[str]:
    """tests/store/budget_app.py in a uvicorn process of its own, with a 64 MiB budget."""
    env = {**os.environ, "AGUI_TEST_MAX_BYTES": str(64 * MiB)}
    command = [sys.executable, "-m", "uvicorn", "tests.store.budget_app:app", "--fd", FD]
    with serve_process([*command, "--log-level", "warning"], cwd=REPO, env=env) as url:
        yield url


def test_resident_memory_stays_under_the_budget_plus_a_small_constant(budget_server: str) -> None:
    # Before the budget, 15 runs of 20 MiB stayed resident for finished_ttl (+318 MiB).
    with httpx.Client(base_url=budget_server, timeout=60) as http:
        warm = http.post("/agent", json=body("warm-up", props(4, 256)))
        assert sse_events(warm.text)[-1]["type"] == "RUN_FINISHED"
        before = http.get("/memory").json()
        peak = 0
        for n in range(15):
            run = http.post("/agent", json=body(f"r{n}", props(320, 64)))  # 20 MiB
            events = sse_events(run.text)
            assert events[-1]["type"] == "RUN_FINISHED"
            assert sum(len(e.get("delta", "")) for e in events) == 20 * MiB
            after = http.get("/memory").json()
            peak = max(peak, after["rss"])
            assert after["stored"] <= 64 * MiB
        growth = peak - before["rss"]
        print(f"RSS {before['rss'] / MiB:.0f} MiB, at most {peak / MiB:.0f} MiB after a run")
        assert growth < 64 * MiB + 48 * MiB, f"+{growth / MiB:.0f} MiB over a 64 MiB budget"


def test_a_full_store_refuses_runs_with_503_store_full_on_a_real_server() -> None:
    store = InMemoryRunStore(max_bytes=4 * MiB)
    release: list[bool] = []

    async def agent(run_input: Any, ctx: RunContext) -> None:
        import anyio

        async with ctx.text_message() as message:
            await message.send("x" * (4 * MiB))  # more than 90% of the budget, still running
            while not release:
                await anyio.sleep(0.01)

    app = create_app(agent, store=store, keepalive=None)
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        with http.stream("POST", "/agent", json=body("big", {})) as running:
            lines = running.iter_lines()
            while "TEXT_MESSAGE_CONTENT" not in next(lines):
                pass
            refused = http.post("/agent", json=body("next", {}))
            assert refused.status_code == 503
            assert refused.headers["retry-after"] == "1"
            assert refused.json()["error"]["code"] == "store_full"
            release.append(True)
            rest = "\n".join(lines)
        assert "RUN_FINISHED" in rest
        # Finished, the big run can be evicted: new runs are served again.
        assert http.post("/agent", json=body("next", {})).status_code == 200


def test_a_run_trimmed_by_the_budget_is_replayed_as_history_trimmed() -> None:
    async def agent(run_input: Any, ctx: RunContext) -> None:
        await ctx.say(["x" * 100_000 for _ in range(20)])  # 2 MB for a budget of 1 MiB

    store = InMemoryRunStore(max_bytes=1 * MiB)
    app = create_app(agent, store=store, keepalive=None, public_thread_history=True)
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        live = http.post("/agent", json=body("r1", {}))
        events = sse_events(live.text)  # the live reader got every event
        assert [e["type"] for e in events].count("TEXT_MESSAGE_CONTENT") == 20
        assert events[-1]["type"] == "RUN_FINISHED"
        key = live.headers["ag-ui-resume-key"]
        for params in ({"runKey": key}, {"threadId": "t"}):
            replay = sse_events(http.get("/agent/connect", params=params).text)
            assert replay[-1]["type"] == "RUN_ERROR"
            assert replay[-1]["code"] == "history_trimmed"
