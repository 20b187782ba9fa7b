"""``AbortSignal``: lets another task stop a run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

__all__ = ["AbortSignal"]


class AbortSignal:
    """Lets another task stop a run: ``abort()`` cancels the wait under way and ends the stream.

    The waiting side registers how to cancel its current wait (a read, a reconnect delay) with
    ``watch(cancel)`` and removes it with ``unwatch()``.
    """

    def __init__(self) -> None:
        self.aborted = False
        self._cancel: Optional[Callable[[], object]] = None

    def abort(self) -> None:
        """Mark the run aborted and cancel the wait under way, if any."""
        self.aborted = True
        if self._cancel is not None:
            self._cancel()

    def watch(self, cancel: Callable[[], object]) -> None:
        """``abort()`` calls ``cancel`` until ``unwatch()``."""
        self._cancel = cancel

    def unwatch(self) -> None:
        self._cancel = None
