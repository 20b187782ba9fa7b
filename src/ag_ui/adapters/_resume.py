"""A resume matched against the interrupts a thread has open: the rule every adapter enforces.

PROTOCOL.md's resume rules, as the adapters apply them to their framework's open interrupts:
a resume may answer only interrupts that are open (``unknown_interrupt``) and must answer all of
them (``incomplete_resume``). Each adapter then reads the answers its own way.
"""

from __future__ import annotations

from ag_ui.core.errors import RunError
from ag_ui.core.types import ResumeEntry

__all__ = ["answers_to_open"]


def answers_to_open(resume: list[ResumeEntry], open_ids: list[str]) -> dict[str, ResumeEntry]:
    """Each open interrupt's resume entry, in ``open_ids``' order, or the ``RunError`` naming
    what the resume got wrong."""
    answers = {entry.interrupt_id: entry for entry in resume}
    unknown = sorted(set(answers) - set(open_ids))
    if unknown:
        raise RunError(
            f"resume names interrupt(s) {', '.join(unknown)} the thread does not have open; "
            f"open: {', '.join(open_ids)}",
            code="unknown_interrupt",
        )
    missing = [i for i in open_ids if i not in answers]
    if missing:
        raise RunError(
            f"resume must answer every open interrupt; missing: {', '.join(missing)}",
            code="incomplete_resume",
        )
    return {interrupt_id: answers[interrupt_id] for interrupt_id in open_ids}
