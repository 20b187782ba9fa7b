"""The app every uvicorn worker of tests/deploy serves: the counting agent (counting.py) on a
shared Redis run store (``AGUI_TEST_REDIS_URL``, key prefix ``AGUI_TEST_PREFIX``), with a fast
heartbeat (so that a killed worker's runs are held abandoned within ``ABANDONED_WITHIN``),
``AGUI_TEST_SHUTDOWN_GRACE`` seconds for its runs to end at shutdown, the public name
``ALLOWED_HOST`` clients use through the proxy (docs/deploy.md) and, given
``AGUI_TEST_THREADS_URL`` (a PostgreSQL URL), a shared thread store (anonymous threads kept:
the tests have no principals)."""

from __future__ import annotations

import os

from ag_ui.server import create_app
from ag_ui.store import PostgresThreadStore, RedisRunStore
from tests.deploy.counting import ALLOWED_HOST, BLOCK_SECONDS, HEARTBEAT, counting_agent

THREADS_URL = os.environ.get("AGUI_TEST_THREADS_URL")

app = create_app(
    counting_agent,
    store=RedisRunStore(
        os.environ["AGUI_TEST_REDIS_URL"],
        prefix=os.environ["AGUI_TEST_PREFIX"],
        block_seconds=BLOCK_SECONDS,
        heartbeat_interval=HEARTBEAT,
    ),
    shutdown_grace=float(os.environ.get("AGUI_TEST_SHUTDOWN_GRACE", "10")),
    keepalive=float(os.environ.get("AGUI_TEST_KEEPALIVE", "15")),
    # The pool opened at full size, as docs/deploy.md advises for bursts of runs.
    threads=PostgresThreadStore(THREADS_URL, min_size=10, max_size=10) if THREADS_URL else None,
    public_thread_history=True,
    allowed_hosts=[ALLOWED_HOST],
)
