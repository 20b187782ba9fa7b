"""Read an SSE response body in tests: its events as wire dicts, and its ``id:`` lines; and
the messages of an inspector tap (``GET <path>/tap``) as they arrive.

Deliberately naive (``data:`` lines only, no CR handling): the servers under test write
``data: <json>\\n\\n`` frames, and a test should see exactly those bytes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

__all__ = ["sse_events", "sse_ids", "tap_messages"]


def sse_events(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body, as wire dicts (comments and blank frames skipped)."""
    events = []
    for frame in text.split("\n\n"):
        data = [line[6:] for line in frame.split("\n") if line.startswith("data: ")]
        if data:
            events.append(json.loads("\n".join(data)))
    return events


def sse_ids(text: str) -> list[str]:
    """The value of every ``id:`` line, in order."""
    return [line[4:] for line in text.split("\n") if line.startswith("id: ")]


async def tap_messages(
    client: httpx.AsyncClient, url: str, headers: dict[str, str] | None = None
) -> AsyncIterator[dict[str, Any]]:
    """The tap at ``url``: each ``data:`` frame as a dict, each comment as
    ``{"kind": "comment", "text": ...}`` (": tap" says the watcher is connected)."""
    async with client.stream("GET", url, headers=headers or {}) as response:
        assert response.status_code == 200, await response.aread()
        buffer = ""
        async for text in response.aiter_text():
            buffer += text
            while "\n\n" in buffer:
                frame, buffer = buffer.split("\n\n", 1)
                if frame.startswith("data: "):
                    yield json.loads(frame[6:])
                else:
                    yield {"kind": "comment", "text": frame}
