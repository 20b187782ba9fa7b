"""The app each uvicorn worker process of test_workers.py serves: the story agent on a shared
Redis (``AGUI_TEST_REDIS_URL``, key prefix ``AGUI_TEST_PREFIX``)."""

from __future__ import annotations

import os

from ag_ui.server import create_app
from ag_ui.store import RedisRunStore
from tests.resume.resume_helpers import make_story_agent

app = create_app(
    make_story_agent(delay=0.02),
    store=RedisRunStore(
        os.environ["AGUI_TEST_REDIS_URL"], prefix=os.environ["AGUI_TEST_PREFIX"], block_seconds=0.2
    ),
    keepalive=None,
)
