"""The client's seam onto ``ag_ui.verify``: compatibility -> null checks -> chunks -> verify.

The same stages as ``ag_ui.apply.EventPipeline``, split so that subscribers can run between
verification and the reducer (they may replace messages/state or stop the default handling).
Events come out one at a time: each is applied before the next one is verified, as in the
TypeScript client's operator chain.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ag_ui.verify import (
    ChunkExpander,
    CompatibilityTranslator,
    EventVerifier,
    reject_optional_nulls,
)

__all__ = ["RunPipeline"]


class RunPipeline:
    """Per-run expansion and verification. ``strict=False`` skips the sequence verifier
    (compatibility, null checks and chunk expansion still run)."""

    def __init__(self, *, strict: bool = True) -> None:
        self.compatibility = CompatibilityTranslator()
        self.chunks = ChunkExpander()
        self.verifier = EventVerifier(strict_end=False) if strict else None

    def expand(self, event: Any) -> Iterator[Any]:
        """The verified 1.0 events one received event stands for (often exactly one)."""
        verifier = self.verifier
        for translated in self.compatibility.feed(event):
            reject_optional_nulls(translated)
            for expanded in self.chunks.feed(translated):
                if verifier is not None:
                    verifier.feed(expanded)
                yield expanded

    def finish(self) -> None:
        """End of stream: drop unfinished chunk streams (ends are checked by the agent)."""
        self.chunks.finish()
        if self.verifier is not None:
            self.verifier.finish()
