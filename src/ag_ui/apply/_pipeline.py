"""The consumer pipeline: ``StreamVerifier`` (compatibility -> nulls -> chunks -> verify) and the
reducer with its one rule for failed patches.

``Reducer`` is ``apply_event`` plus what every consumer does when a STATE_DELTA or
ACTIVITY_DELTA does not apply (as in TypeScript): keep the previous state, record the
``PatchError`` and warn. ``EventPipeline`` chains the two for consumers that only need the
final ``AgentState`` (``agui verify``, tests, servers replaying a stream); the client runs the
same two pieces with its subscribers in between.
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
from ag_ui.core.types import Tool
from ag_ui.verify import StreamVerifier

__all__ = ["EventPipeline", "PatchFailedWarning", "Reducer"]


class PatchFailedWarning(UserWarning):
    """A STATE_DELTA/ACTIVITY_DELTA did not apply; the run continues with the previous value."""


def warn_patch_error(error: PatchError) -> None:
    """The default ``on_patch_error``: a ``PatchFailedWarning`` naming the event."""
    kind = event_type_name(error.event) if error.event is not None else "patch"
    # "Failed to apply state patch" is @ag-ui/client's wording; a log search finds both SDKs.
    target = "activity" if kind == "ACTIVITY_DELTA" else "state"
    warnings.warn(
        f"Failed to apply {target} patch: {kind} could not be applied and was skipped: {error}",
        PatchFailedWarning,
        stacklevel=4,
    )


class Reducer:
    """``apply_event`` with the rule for patches that do not apply.

    ``reduce(state, event)`` returns the next state. When the event's patch fails, it returns
    the state to continue with (``PatchError.agent_state``), appends the error to
    ``patch_errors`` and passes it to ``on_patch_error`` (default: a ``PatchFailedWarning``).

    >>> from ag_ui.core import StateSnapshotEvent, StateDeltaEvent
    >>> reducer = Reducer(on_patch_error=lambda error: None)
    >>> state = reducer.reduce(AgentState(), StateSnapshotEvent(snapshot={"a": 1}))
    >>> reducer.reduce(state, StateDeltaEvent(delta=[{"op": "remove", "path": "/b"}])).state
    {'a': 1}
    >>> len(reducer.patch_errors)
    1
    """

    def __init__(self, *, on_patch_error: Optional[Callable[[PatchError], None]] = None) -> None:
        self.patch_errors: list[PatchError] = []
        self._on_patch_error = on_patch_error or warn_patch_error

    def reduce(self, state: AgentState, event: Event) -> AgentState:
        """The state after ``event`` (the state to continue with when its patch failed)."""
        try:
            return apply_event(state, event)
        except PatchError as error:
            self.patch_errors.append(error)
            self._on_patch_error(error)
            continued: AgentState = error.agent_state
            return continued


class EventPipeline:
    """Turns a raw event stream into verified events and an up-to-date ``AgentState``.

    ``feed(event)`` accepts 1.0 and legacy (THINKING_*) events and returns the expanded events
    it applied, in order. Protocol violations raise (``EventSequenceError``,
    ``ChunkExpansionError``, ``AGUIValidationError`` for a forbidden null); the stream should
    then be abandoned. A patch that does not apply is *not* fatal (as in TypeScript): the state
    keeps its previous value, the ``PatchError`` is appended to ``patch_errors`` and passed to
    ``on_patch_error`` (default: a ``PatchFailedWarning``). ``finish()`` ends the stream (with
    ``strict_end`` a run left open raises ``UnterminatedRunError``). Tool-call arguments that
    are not JSON go to ``on_tool_arguments`` (default: a ``ToolArgumentsWarning``).

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
        on_tool_arguments: Optional[Callable[[str], None]] = None,
        strict_draft: bool = False,
        tools: Optional[Iterable[Tool]] = None,
    ) -> None:
        self.stream = StreamVerifier(
            strict_end=strict_end,
            null_checks=null_checks,
            id_factory=id_factory,
            on_tool_arguments=on_tool_arguments,
            strict_draft=strict_draft,
            tools=tools,
        )
        self.reducer = Reducer(on_patch_error=on_patch_error)
        self._state = AgentState(messages=messages, state=state)

    @property
    def agent_state(self) -> AgentState:
        """Messages, state and run bookkeeping after every event fed so far."""
        return self._state

    @property
    def patch_errors(self) -> list[PatchError]:
        """The patches that did not apply, in order."""
        return self.reducer.patch_errors

    def feed(self, event: AnyEvent) -> list[Event]:
        """Run one event through the pipeline; return the (expanded) events applied."""
        stream, reduce = self.stream, self.reducer.reduce
        expanded = stream.expand(event)
        for item in expanded:
            stream.check(item)
            self._state = reduce(self._state, item)
        return expanded

    def finish(self) -> None:
        """End of the stream: drop unfinished chunk streams, then the verifier's end check."""
        self.stream.finish()
