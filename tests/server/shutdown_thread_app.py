"""A server whose run outlasts uvicorn's graceful shutdown, for the SIGTERM test of
``test_thread_shutdown.py``: ``python -m tests.server.shutdown_thread_app DB FD``."""

from __future__ import annotations

import sys

import anyio
import uvicorn

from ag_ui.core import RunAgentInput
from ag_ui.server import RunContext, create_app
from ag_ui.store import SqliteThreadStore


async def half_a_reply(run_input: RunAgentInput, ctx: RunContext) -> None:
    async with ctx.text_message() as message:
        await message.send("Half a ")
        await anyio.sleep(60)
        await message.send("reply.")


if __name__ == "__main__":
    app = create_app(
        half_a_reply, threads=SqliteThreadStore(sys.argv[1]), public_thread_history=True
    )
    uvicorn.run(app, fd=int(sys.argv[2]), timeout_graceful_shutdown=1, log_level="critical")
