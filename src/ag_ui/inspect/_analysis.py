"""Runs each event of a session through the SDK's own pipeline and keeps its verdicts.

One ``EventPipeline`` (compatibility, chunk expansion, verifier, reducer) per run, seeded as a
client seeds it: with the messages and state the run's request carried, or, when the
recording has no requests, with what the previous run left. A violation is recorded as an
error at the event that caused it; the rest of that run is still reduced (so the state and the
conversation stay visible) but no longer verified, because the verifier's view of a broken
stream is not trustworthy. Warnings (a patch that did not apply, a legacy event translated,
a newer protocol version declared) are recorded at their event too.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

from ag_ui.apply import AgentState, EventPipeline, PatchError, apply_event
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import AGUIError, ProtocolError
from ag_ui.core.types import RunAgentInput
from ag_ui.inspect._rows import Finding

__all__ = ["Analyzer", "replay"]


def _describe(error: BaseException) -> tuple[str, Optional[str]]:
    if isinstance(error, ProtocolError):
        return str(error), error.rule
    return str(error), None


class Analyzer:
    """Feeds events through a per-run pipeline; tells the state after each and any findings."""

    def __init__(self) -> None:
        self.state = AgentState()
        self._pipeline: Optional[EventPipeline] = None
        self._verifying = True
        self._last_index: Optional[int] = None
        self._patch_errors: list[PatchError] = []

    def begin_run(self, run_input: Optional[RunAgentInput]) -> list[Finding]:
        """Start a run (its request, when known); returns what ending the previous one found."""
        findings = self.finish()
        if run_input is not None:
            dumped = run_input.model_dump(by_alias=True, mode="json", exclude_none=True)
            self.state = AgentState(messages=dumped.get("messages", []), state=run_input.state)
        self._pipeline = self._new_pipeline()
        return findings

    def _new_pipeline(self) -> EventPipeline:
        self._verifying = True
        return EventPipeline(
            messages=self.state.messages,
            state=self.state.state,
            on_patch_error=self._patch_errors.append,
        )

    def feed(self, event: AnyEvent, index: int) -> tuple[tuple[Any, ...], list[Finding], bool]:
        """Feed one event; ``state`` is then the state after it. Returns the events the reducer
        applied (to replay them later with ``replay``), what was found, whether it was verified."""
        if self._pipeline is None:
            self._pipeline = self._new_pipeline()
        self._last_index = index
        findings: list[Finding] = []
        if not self._verifying:
            self.state = replay(self.state, (event,))
            return (event,), findings, False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                applied = tuple(self._pipeline.feed(event))
            except AGUIError as error:
                message, rule = _describe(error)
                findings.append(Finding(index, "error", message, rule))
                self._verifying = False
                self.state = replay(self.state, (event,))
                return (event,), findings, True
        self.state = self._pipeline.agent_state
        for patch_error in self._patch_errors:
            findings.append(Finding(index, "warning", f"patch not applied: {patch_error}"))
        self._patch_errors.clear()
        for warning in caught:
            findings.append(Finding(index, "warning", str(warning.message)))
        return applied, findings, True

    def finish(self) -> list[Finding]:
        """End the current run's stream: a run left open is an error at its last event."""
        pipeline, self._pipeline = self._pipeline, None
        if pipeline is None or not self._verifying or self._last_index is None:
            return []
        try:
            pipeline.finish()
        except AGUIError as error:
            message, rule = _describe(error)
            return [Finding(self._last_index, "error", f"at the end of the run: {message}", rule)]
        return []


def replay(state: AgentState, events: tuple[Any, ...]) -> AgentState:
    """``state`` after the reducer applied ``events`` (a patch that does not apply is skipped,
    as the pipeline does; after a violation, an event the reducer cannot take is left out: the
    finding already says the stream is broken)."""
    for event in events:
        try:
            state = apply_event(state, event)
        except PatchError as error:
            state = error.agent_state
        except Exception:
            continue
    return state
