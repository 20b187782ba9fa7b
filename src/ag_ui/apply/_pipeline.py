"""``EventPipeline``: compatibility -> null check -> chunk expansion -> verify -> apply.

The one sans-IO consumer pipeline the client, the server guard and ``agui verify`` share, in
the TypeScript client's order (PROTOCOL.md §6.1): legacy shapes are translated first, chunks
are expanded before verification (which needs start/content/end), and each verified event is
applied to the ``AgentState`` before the next is looked at.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any, Callable, Optional

from ag_ui.apply._reducer import apply_event
from ag_ui.apply._state import AgentState
from ag_ui.core._wire import event_type_name
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import PatchError
from ag_ui.core.events import Event
from ag_ui.verify import (
    ChunkExpander,
    CompatibilityTranslator,
    EventVerifier,
    reject_optional_nulls,
)

__all__ = ["EventPipeline", "PatchFailedWarning"]


class PatchFailedWarning(UserWarning):
    """A STATE_DELTA/ACTIVITY_DELTA did not apply; the run continues with the previous value."""


class EventPipeline:
    """Turns a raw event stream into verified events and an up-to-date ``AgentState``.

    ``feed(event)`` accepts 1.0 and legacy (THINKING_*) events and returns the expanded events
    it applied, in order. Protocol violations raise (``EventSequenceError``,
    ``ChunkExpansionError``, ``AGUIValidationError`` for a forbidden null); the stream should
    then be abandoned. A patch that does not apply is *not* fatal (as in TypeScript): the state
    keeps its previous value, the ``PatchError`` is appended to ``patch_errors`` and passed to
    ``on_patch_error`` (default: a ``PatchFailedWarning``). ``finish()`` ends the stream (with
    ``strict_end`` a run left open raises ``UnterminatedRunError``).

    >>> from ag_ui.core import RunStartedEvent, TextMessageChunkEvent, RunFinishedEvent
    >>> pipeline = EventPipeline()
    >>> for event in [RunStartedEvent(thread_id="t", run_id="r"),
    ...               TextMessageChunkEvent(message_id="m", delta="Hi"),
    ...               RunFinishedEvent(thread_id="t", run_id="r")]:
    ...     _ = pipeline.feed(event)
    >>> pipeline.finish()
    >>> pipeline.agent_state.messages
    ({'id': 'm', 'role': 'assistant', 'content': 'Hi'},)
    """

    def __init__(
        self,
        *,
        messages: Iterable[Any] = (),
        state: Any = None,
        strict_end: bool = True,
        null_checks: bool = True,
        on_patch_error: Optional[Callable[[PatchError], None]] = None,
        id_factory: Optional[Callable[[], str]] = None,
    ) -> None:
        self.compatibility = CompatibilityTranslator(id_factory=id_factory)
        self.chunks = ChunkExpander()
        self.verifier = EventVerifier(strict_end=strict_end, null_checks=null_checks)
        self.null_checks = null_checks
        self.patch_errors: list[PatchError] = []
        self._on_patch_error = on_patch_error or _warn_patch_error
        self._state = AgentState(messages=messages, state=state)

    @property
    def agent_state(self) -> AgentState:
        """Messages, state and run bookkeeping after every event fed so far."""
        return self._state

    def feed(self, event: AnyEvent) -> list[Event]:
        """Run one event through the pipeline; return the (expanded) events applied."""
        translated = self.compatibility.translate(event)
        if self.null_checks:
            reject_optional_nulls(translated)
        expanded = self.chunks.feed(translated)
        verify = self.verifier.feed
        for item in expanded:
            verify(item)
            try:
                self._state = apply_event(self._state, item)
            except PatchError as error:
                self._state = error.agent_state
                self.patch_errors.append(error)
                self._on_patch_error(error)
        return expanded

    def feed_with_states(self, event: AnyEvent) -> list[tuple[Event, AgentState]]:
        """Like ``feed``, but pair each applied event with the ``AgentState`` right after it.

        For consumers that notify per event (subscribers): a chunk can expand to an END for
        the previous stream plus a START and a CONTENT, each with its own state.
        """
        translated = self.compatibility.translate(event)
        if self.null_checks:
            reject_optional_nulls(translated)
        steps: list[tuple[Event, AgentState]] = []
        for item in self.chunks.feed(translated):
            self.verifier.feed(item)
            try:
                self._state = apply_event(self._state, item)
            except PatchError as error:
                self._state = error.agent_state
                self.patch_errors.append(error)
                self._on_patch_error(error)
            steps.append((item, self._state))
        return steps

    def finish(self) -> None:
        """End of the stream: drop unfinished chunk streams, then the verifier's end check."""
        self.chunks.finish()
        self.verifier.finish()


def _warn_patch_error(error: PatchError) -> None:
    kind = event_type_name(error.event) if error.event is not None else "patch"
    warnings.warn(
        f"{kind} could not be applied and was skipped: {error}", PatchFailedWarning, stacklevel=4
    )
