"""``HttpAgent(debug=...)`` logs each reconnect to a detached run as a lifecycle step."""

from __future__ import annotations

import json
import logging
import re

import anyio
import pytest

from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore

from .resume_helpers import in_process_agent, lifespan, story_agent

pytestmark = pytest.mark.anyio


async def test_each_reconnect_is_a_lifecycle_record(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="ag_ui.client")
    app = create_app(story_agent, store=InMemoryRunStore())
    async with lifespan(app):
        agent, _ = in_process_agent(app, [700, 900], debug={"events": False})
        with anyio.fail_after(10):
            result = await agent.run_agent(run_id="r1")
    assert result.reconnects == 2
    messages = [r.getMessage() for r in caplog.records if r.name == "ag_ui.client.lifecycle"]
    labels = [message.split(":")[0] for message in messages]
    assert labels == [
        "[LIFECYCLE] Run started",
        "[HTTP] Stream format detected",
        "[LIFECYCLE] Reconnecting",
        "[HTTP] Stream format detected",
        "[LIFECYCLE] Reconnecting",
        "[HTTP] Stream format detected",
        "[LIFECYCLE] Run finished",
    ]
    first = json.loads(messages[2].removeprefix("[LIFECYCLE] Reconnecting: "))
    assert first["attempt"] == 1
    assert re.fullmatch(r"[A-Za-z0-9_-]{24}:\d+", first["lastEventId"])
    assert "connection broke" in first["error"]
