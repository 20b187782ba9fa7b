"""Interrupt helpers and the pending-interrupt gate (PROTOCOL.md §2.6, §6.10)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ag_ui.client import (
    build_resume_array,
    check_resume_covers,
    get_run_outcome,
    interrupts_of,
    is_interrupt_expired,
)
from ag_ui.core import (
    Interrupt,
    ResumeEntry,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
)
from ag_ui.core.errors import InterruptError

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
OPEN = Interrupt(id="i1", reason="confirmation")
EXPIRED = Interrupt(id="i2", reason="input_required", expires_at="2026-11-30T11:59:59Z")
LATER = Interrupt(id="i3", reason="tool_call", tool_call_id="c1", expires_at="2026-11-30T13:00")


def test_expiry_is_iso_8601_and_unparseable_never_expires() -> None:
    assert [is_interrupt_expired(i, NOW) for i in (OPEN, EXPIRED, LATER)] == [False, True, False]
    weird = Interrupt(id="x", reason="r", expires_at="next tuesday")
    assert is_interrupt_expired(weird, NOW) is False


def test_gate_refuses_unaddressed_interrupts() -> None:
    with pytest.raises(InterruptError) as info:
        check_resume_covers([OPEN, LATER], [ResumeEntry(interrupt_id="i1", status="resolved")])
    assert (info.value.reason, info.value.interrupt_ids) == ("unaddressed", ("i3",))
    with pytest.raises(InterruptError) as info:
        check_resume_covers([OPEN], None)
    assert info.value.interrupt_ids == ("i1",)


def test_gate_allows_only_cancelling_an_expired_interrupt() -> None:
    resolved = [ResumeEntry(interrupt_id="i2", status="resolved", payload=1)]
    with pytest.raises(InterruptError) as info:
        check_resume_covers([EXPIRED], resolved, NOW)
    assert (info.value.reason, info.value.interrupt_ids) == ("expired", ("i2",))
    check_resume_covers([EXPIRED], [ResumeEntry(interrupt_id="i2", status="cancelled")], NOW)
    check_resume_covers([], None)


def test_build_resume_array_orders_by_interrupt_and_drops_cancelled_payloads() -> None:
    entries = build_resume_array(
        [OPEN, EXPIRED],
        {
            "i2": {"status": "cancelled", "payload": "ignored", "metadata": {"sig": "s"}},
            "i1": ResumeEntry(interrupt_id="i1", status="resolved", payload={"approved": True}),
        },
    )
    assert [e.model_dump(by_alias=True, mode="json") for e in entries] == [
        {"interruptId": "i1", "status": "resolved", "payload": {"approved": True}},
        {"interruptId": "i2", "status": "cancelled", "metadata": {"sig": "s"}},
    ]


def test_build_resume_array_reports_missing_and_unknown_ids() -> None:
    with pytest.raises(InterruptError) as info:
        build_resume_array([OPEN, EXPIRED], {"i1": {"status": "resolved"}})
    assert (info.value.reason, info.value.interrupt_ids) == ("missing", ("i2",))
    with pytest.raises(InterruptError) as info:
        build_resume_array([OPEN], {"i1": {"status": "resolved"}, "zz": {"status": "cancelled"}})
    assert (info.value.reason, info.value.interrupt_ids) == ("unknown", ("zz",))


def test_outcome_helpers() -> None:
    paused = RunFinishedEvent(
        thread_id="t", run_id="r", outcome=RunFinishedInterruptOutcome(interrupts=[OPEN])
    )
    assert get_run_outcome(paused) == RunFinishedInterruptOutcome(interrupts=[OPEN])
    assert interrupts_of(paused) == [OPEN]
    assert interrupts_of(RunFinishedEvent(thread_id="t", run_id="r")) == []
