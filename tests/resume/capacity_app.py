"""The app test_redis_capacity.py runs in a uvicorn process of its own: a short agent on a
``RedisRunStore`` in its default configuration (``AGUI_TEST_REDIS_URL``, key prefix
``AGUI_TEST_PREFIX``). Every run pauses ``forwardedProps.pause`` seconds between its two
deltas, so that runs started together write to Redis together."""

from __future__ import annotations

import os

import anyio

from ag_ui.core import RunAgentInput
from ag_ui.server import RunContext, create_app
from ag_ui.store import RedisRunStore


async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    pause = float((run_input.forwarded_props or {}).get("pause", 0.5))
    async with ctx.text_message() as message:
        await message.send("first ")
        await anyio.sleep(pause)
        await message.send("second")


store = RedisRunStore(os.environ["AGUI_TEST_REDIS_URL"], prefix=os.environ["AGUI_TEST_PREFIX"])
app = create_app(agent, store=store, keepalive=None)
