"""The app each uvicorn worker process of test_workers.py serves: the story agent on a shared
Redis (``AGUI_TEST_REDIS_URL``, key prefix ``AGUI_TEST_PREFIX``; ``AGUI_TEST_DELAY`` seconds
between pieces, default 0.02), with its heartbeat every 0.5 s and its process id at ``/pid``
(test_abandoned_runs.py kills it)."""

from __future__ import annotations

import os

from starlette.requests import Request
from starlette.responses import PlainTextResponse

from ag_ui.server import create_app
from ag_ui.store import RedisRunStore
from tests.resume.resume_helpers import WORKER_BLOCK_SECONDS, WORKER_HEARTBEAT, make_story_agent

app = create_app(
    make_story_agent(delay=float(os.environ.get("AGUI_TEST_DELAY", "0.02"))),
    store=RedisRunStore(
        os.environ["AGUI_TEST_REDIS_URL"],
        prefix=os.environ["AGUI_TEST_PREFIX"],
        block_seconds=WORKER_BLOCK_SECONDS,
        heartbeat_interval=WORKER_HEARTBEAT,
    ),
    keepalive=None,
)


async def pid(request: Request) -> PlainTextResponse:
    return PlainTextResponse(str(os.getpid()))


app.add_route("/pid", pid)
