"""The app test_memory_budget.py runs in a uvicorn process of its own, to measure its RSS: an
agent that sends ``forwardedProps.chunks`` text deltas of ``forwardedProps.chunk_kib`` KiB each,
on an ``InMemoryRunStore`` with the budget ``AGUI_TEST_MAX_BYTES``. ``GET /memory`` answers the
process's resident set (``VmRSS`` of /proc/self/status) and what the store counts."""

from __future__ import annotations

import gc
import os

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ag_ui.core import RunAgentInput
from ag_ui.server import RunContext, create_app
from ag_ui.store import InMemoryRunStore

store = InMemoryRunStore(max_bytes=int(os.environ["AGUI_TEST_MAX_BYTES"]))


async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    props = run_input.forwarded_props or {}
    chunk = "x" * (int(props["chunk_kib"]) * 1024)
    async with ctx.text_message() as message:
        for _ in range(int(props["chunks"])):
            await message.send(chunk)


def resident_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


async def memory(request: Request) -> JSONResponse:
    gc.collect()  # what stays resident, not garbage waiting for the next collection
    return JSONResponse(
        {"rss": resident_bytes(), "stored": store.stored_bytes, "live": store.live_bytes}
    )


app = create_app(agent, store=store, keepalive=None)
app.router.routes.append(Route("/memory", memory))
