"""Interrupts on the client side (PROTOCOL.md §2.6, §6.10): gate, expiry, resume helpers.

>>> from ag_ui.core import Interrupt
>>> pending = [Interrupt(id="i1", reason="confirmation")]
>>> build_resume_array(pending, {"i1": {"status": "resolved", "payload": True}})
[ResumeEntry(interrupt_id='i1', status='resolved', payload=True, metadata=None)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, Optional, Union

from ag_ui.core.errors import InterruptError
from ag_ui.core.events import RunFinishedEvent, RunFinishedInterruptOutcome, RunFinishedOutcome
from ag_ui.core.types import Interrupt, ResumeEntry

__all__ = [
    "build_resume_array",
    "check_resume_covers",
    "get_run_outcome",
    "interrupts_of",
    "is_interrupt_expired",
]


def _parse_time(text: str) -> Optional[datetime]:
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def is_interrupt_expired(interrupt: Interrupt, now: Optional[datetime] = None) -> bool:
    """True when ``expires_at`` is a parseable ISO 8601 time at or before ``now``.

    No or unparseable ``expires_at`` never expires (as in the TypeScript client).
    """
    if not interrupt.expires_at:
        return False
    expires = _parse_time(interrupt.expires_at)
    if expires is None:
        return False
    return expires <= (now or datetime.now(timezone.utc))


def get_run_outcome(event: RunFinishedEvent) -> Optional[RunFinishedOutcome]:
    """The outcome of a RUN_FINISHED event (``None`` means success)."""
    return event.outcome


def interrupts_of(event: RunFinishedEvent) -> list[Interrupt]:
    """The interrupts a RUN_FINISHED event leaves open (empty unless it paused)."""
    if isinstance(event.outcome, RunFinishedInterruptOutcome):
        return list(event.outcome.interrupts)
    return []


def check_resume_covers(
    pending: Sequence[Interrupt],
    resume: Optional[Sequence[ResumeEntry]],
    now: Optional[datetime] = None,
) -> None:
    """Refuse a run that leaves open interrupts unanswered or answers an expired one.

    Raises ``InterruptError`` (``reason`` ``"unaddressed"`` or ``"expired"``) before any request
    is sent: the agent would answer such a run with RUN_ERROR anyway.
    """
    if not pending:
        return
    answers = {entry.interrupt_id: entry for entry in resume or []}
    missing = [interrupt.id for interrupt in pending if interrupt.id not in answers]
    if missing:
        raise InterruptError(
            f"thread has {len(missing)} pending interrupt(s) not addressed by resume: "
            f"{', '.join(missing)}; answer each with resume=[ResumeEntry(...)] "
            "(build_resume_array helps)",
            interrupt_ids=missing,
            reason="unaddressed",
        )
    for interrupt in pending:
        if is_interrupt_expired(interrupt, now) and answers[interrupt.id].status != "cancelled":
            raise InterruptError(
                f"interrupt {interrupt.id} expired at {interrupt.expires_at} and can no longer "
                'be answered; resume it with status "cancelled" to continue the thread',
                interrupt_ids=[interrupt.id],
                reason="expired",
            )


ResponseLike = Union[ResumeEntry, Mapping[str, Any]]


def build_resume_array(
    interrupts: Sequence[Interrupt], responses: Mapping[str, ResponseLike]
) -> list[ResumeEntry]:
    """Resume entries in interrupt order from ``{interrupt_id: {"status", "payload"?, ...}}``.

    Every open interrupt needs a response and every response must name an open interrupt
    (``InterruptError`` with reason ``"missing"`` / ``"unknown"``). ``payload`` is kept only for
    ``resolved`` answers.
    """
    known = {interrupt.id for interrupt in interrupts}
    missing = [interrupt.id for interrupt in interrupts if interrupt.id not in responses]
    if missing:
        raise InterruptError(
            f"missing responses for open interrupts: {', '.join(missing)}",
            interrupt_ids=missing,
            reason="missing",
        )
    unknown = [key for key in responses if key not in known]
    if unknown:
        raise InterruptError(
            f"responses reference unknown interrupt ids: {', '.join(unknown)}",
            interrupt_ids=unknown,
            reason="unknown",
        )
    entries: list[ResumeEntry] = []
    for interrupt in interrupts:
        response = responses[interrupt.id]
        if isinstance(response, ResumeEntry):
            data: dict[str, Any] = response.model_dump(exclude_unset=True)
        else:
            data = dict(response)
        status = data.get("status", "resolved")
        entry: dict[str, Any] = {"interrupt_id": interrupt.id, "status": status}
        if status == "resolved" and data.get("payload") is not None:
            entry["payload"] = data["payload"]
        if data.get("metadata") is not None:
            entry["metadata"] = data["metadata"]
        entries.append(ResumeEntry.model_validate(entry))
    return entries
