"""The client's seam onto ``ag_ui.verify``: compatibility -> null checks -> chunks -> verify.

The same stages as ``ag_ui.apply.EventPipeline``, split so that subscribers can run between
verification and the reducer (they may replace messages/state or stop the default handling).
Events come out one at a time: each is applied before the next one is verified, as in the
TypeScript client's operator chain.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

from ag_ui.client.debug import DebugLog
from ag_ui.verify import (
    ChunkExpander,
    CompatibilityTranslator,
    EventVerifier,
    reject_optional_nulls,
)

__all__ = ["RunPipeline"]


class RunPipeline:
    """Per-run expansion and verification. ``strict=False`` skips the sequence verifier
    (compatibility, null checks and chunk expansion still run). ``debug`` logs the events
    made from chunks (``[TRANSFORM]``) and the verified ones (``[VERIFY]``)."""

    def __init__(self, *, strict: bool = True, debug: Optional[DebugLog] = None) -> None:
        self.compatibility = CompatibilityTranslator()
        self.chunks = ChunkExpander()
        self.verifier = EventVerifier(strict_end=False) if strict else None
        self.debug = debug

    def expand(self, event: Any) -> Iterator[Any]:
        """The verified 1.0 events one received event stands for (often exactly one)."""
        verifier = self.verifier
        log = self.debug
        for translated in self.compatibility.feed(event):
            reject_optional_nulls(translated)
            for expanded in self.chunks.feed(translated):
                if log is not None and expanded is not translated:
                    log.event("TRANSFORM", expanded.type.value, expanded)
                if verifier is not None:
                    verifier.feed(expanded)
                    if log is not None:
                        log.event("VERIFY", "Event:", expanded)
                yield expanded

    def finish(self) -> None:
        """End of stream: drop unfinished chunk streams (ends are checked by the agent)."""
        self.chunks.finish()
        if self.verifier is not None:
            self.verifier.finish()
