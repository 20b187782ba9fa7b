"""Where a resumable stream stands: the server's resume key and the last position received.

A detached run (docs/resume.md) names its resume key in the ``AG-UI-Resume-Key`` response
header and the position the response starts after in ``AG-UI-Resume-After``. SSE frames then
carry ``id: <key>:<position>``; protobuf frames carry nothing, so their position is counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

__all__ = ["RESUME_AFTER_HEADER", "RESUME_KEY_HEADER", "ResumeCursor", "split_last_event_id"]

RESUME_KEY_HEADER = "ag-ui-resume-key"
RESUME_AFTER_HEADER = "ag-ui-resume-after"


def split_last_event_id(value: Optional[str]) -> Optional[tuple[str, int]]:
    """``"<key>:<position>"`` -> (key, position); ``None`` for anything else."""
    if not value:
        return None
    key, colon, position = value.rpartition(":")
    if not colon or not key or not position.isdigit():
        return None
    return key, int(position)


class ResumeCursor:
    """The resume point of one logical stream across its connections."""

    def __init__(self) -> None:
        self.key: Optional[str] = None
        self.position = 0
        self._base = 0  # position the current response started after (protobuf counting)

    @property
    def resumable(self) -> bool:
        return self.key is not None

    @property
    def last_event_id(self) -> Optional[str]:
        return None if self.key is None else f"{self.key}:{self.position}"

    def on_response(self, headers: Mapping[str, str]) -> None:
        """Read the resume headers of a new response."""
        key = headers.get(RESUME_KEY_HEADER)
        after = headers.get(RESUME_AFTER_HEADER, "0")
        if key:
            self.key = key
            self.position = self._base = int(after) if after.isdigit() else 0
        else:
            self._base = self.position

    def advance(self, decoder: object) -> None:
        """Move past what ``decoder`` has handed out (an SSE id, or a protobuf frame count)."""
        seen = split_last_event_id(getattr(decoder, "last_event_id", None))
        if seen is not None:
            # A thread's history moves from run to run: the latest id names the run to resume.
            self.key, self.position = seen
            return
        frames = getattr(decoder, "frames_seen", None)
        if frames is not None and self.key is not None:
            self.position = self._base + frames
