"""Read an SSE response body in tests: its events as wire dicts, and its ``id:`` lines.

Deliberately naive (``data:`` lines only, no CR handling): the servers under test write
``data: <json>\\n\\n`` frames, and a test should see exactly those bytes.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["sse_events", "sse_ids"]


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
