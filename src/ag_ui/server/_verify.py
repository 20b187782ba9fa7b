"""The verifier behind the server's sequence guard: ``ag_ui.verify`` as the TS client runs it.

The TypeScript client verifies after expanding ``*_CHUNK`` events, so the guard does the same:
an agent may send chunks, and what the guard refuses is exactly what that client would refuse.
"""

from __future__ import annotations

from typing import cast

from ag_ui.core.events import BaseEvent, Event
from ag_ui.verify import ChunkExpander, EventVerifier

__all__ = ["ExpandingVerifier", "make_verifier"]


class ExpandingVerifier:
    """``feed(event)``: expand chunks, verify each resulting event; raises ``ProtocolError``."""

    def __init__(self) -> None:
        self._expander = ChunkExpander()
        # A Python producer writes ``subagent_run_id=None`` freely; it is omitted on the wire, so
        # the null checks (meant for parsed wire events) would only flag false positives here.
        self._verifier = EventVerifier(null_checks=False)

    def feed(self, event: BaseEvent) -> None:
        for expanded in self._expander.feed(cast(Event, event)):
            self._verifier.feed(expanded)


def make_verifier() -> ExpandingVerifier:
    """A fresh verifier for one run."""
    return ExpandingVerifier()
