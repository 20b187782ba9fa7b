"""Rules of the draft specification (upstream ``spec/draft``, not yet normative), opt-in fatal.

1.0 and 1.1 accept these streams (so do this SDK and ``@ag-ui/client`` 1.0), but the draft
makes them violations, and each hides a real fault:

* ``D1``: a RUN_FINISHED whose ``runId`` or ``threadId`` differs from its RUN_STARTED's (an
  outcome about another run, or another conversation, would be taken as this run's);
* ``D2``: a second run in one stream on another ``threadId`` (the stream would move to another
  conversation without anyone asking);
* ``D3``: two interrupts with one id in a RUN_FINISHED outcome (one resume entry would answer
  both, and the second question is lost).

By default each is a ``DraftRuleWarning`` and the stream goes on; with ``strict_draft=True``
(``EventVerifier``, ``StreamVerifier``, ``EventPipeline``, ``HttpAgent``, ``agui verify
--strict-draft``, ``agui validate --strict-draft``) each is an ``EventSequenceError`` with the
rule code, as the draft requires.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

from ag_ui.core.errors import EventSequenceError

__all__ = ["DraftRuleWarning", "DraftRules"]


class DraftRuleWarning(UserWarning):
    """A stream broke a rule of the draft specification (fatal under ``strict_draft``)."""


class DraftRules:
    """The draft rules' state over one stream: the stream's thread and the open run's ids."""

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        self.thread_id: Optional[str] = None
        self.run_id: Optional[str] = None
        self.run_thread_id: Optional[str] = None

    def _break(self, rule: str, event_type: str, text: str, ids: dict[str, Any]) -> None:
        if self.strict:
            raise EventSequenceError(text, rule=rule, event_type=event_type, ids=ids)
        warnings.warn(
            f"[{rule}] {text} (a draft rule; fatal with strict_draft)",
            DraftRuleWarning,
            stacklevel=5,
        )

    def run_started(self, event: Any) -> None:
        thread_id, run_id = event.thread_id, event.run_id
        if self.thread_id is None:
            self.thread_id = thread_id
        elif thread_id != self.thread_id:
            self._break(
                "D2",
                "RUN_STARTED",
                f"RUN_STARTED names threadId '{thread_id}', but this stream's runs are on "
                f"'{self.thread_id}': every run in a stream carries the input's threadId",
                {"thread_id": thread_id, "expected": self.thread_id},
            )
        self.run_id, self.run_thread_id = run_id, thread_id

    def run_finished(self, event: Any) -> None:
        if self.run_id is not None and event.run_id != self.run_id:
            self._break(
                "D1",
                "RUN_FINISHED",
                f"RUN_FINISHED names runId '{event.run_id}' but closes run '{self.run_id}': "
                "RUN_STARTED and RUN_FINISHED must agree on their runId",
                {"run_id": event.run_id, "expected": self.run_id},
            )
        if self.run_thread_id is not None and event.thread_id != self.run_thread_id:
            self._break(
                "D1",
                "RUN_FINISHED",
                f"RUN_FINISHED names threadId '{event.thread_id}' but the run is on "
                f"'{self.run_thread_id}': both boundary events carry the input's threadId",
                {"thread_id": event.thread_id, "expected": self.run_thread_id},
            )
        outcome = getattr(event, "outcome", None)
        if getattr(outcome, "type", None) == "interrupt":
            seen: set[str] = set()
            for interrupt in getattr(outcome, "interrupts", None) or ():
                if interrupt.id in seen:
                    self._break(
                        "D3",
                        "RUN_FINISHED",
                        f"the interrupt outcome has two interrupts carrying the id "
                        f"'{interrupt.id}': a resume entry answers an interrupt by its id",
                        {"interrupt_id": interrupt.id},
                    )
                    break
                seen.add(interrupt.id)
