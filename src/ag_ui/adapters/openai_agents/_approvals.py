"""Tool approval (``needs_approval``) as protocol 1.0 interrupts, and the runs waiting on them.

A run that stops on approvals ends with the ``interrupt`` outcome: one ``Interrupt`` per call,
its id the call's ``call_id``, reason ``tool_call``, and a ``responseSchema`` asking for
``{"approved": bool, "message"?: str}``. The SDK's ``RunState`` of that run stays on the server
(``PendingApprovals``, by caller and thread: the SDK's own advice, a client-sent state is not to
be trusted); the same caller's next run's ``resume`` approves or rejects each call on it and
continues it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ag_ui.adapters._resume import answers_to_open
from ag_ui.core.errors import RunError
from ag_ui.core.types import Interrupt, ResumeEntry

__all__ = [
    "APPROVAL_SCHEMA",
    "Decision",
    "PendingApprovals",
    "PendingRun",
    "call_id_of",
    "decisions",
    "to_interrupt",
]

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "message": {"type": "string", "description": "why, sent to the model on a rejection"},
    },
    "required": ["approved"],
}


def call_id_of(approval: Any) -> str:
    raw = approval.raw_item
    found = raw.get("call_id") if isinstance(raw, dict) else getattr(raw, "call_id", None)
    return str(found or getattr(raw, "id", "") or "")


def to_interrupt(approval: Any, *, subagent_run_id: Optional[str] = None) -> Interrupt:
    """The protocol's interrupt for one ``ToolApprovalItem``."""
    name = approval.tool_name or "tool"
    return Interrupt(
        id=call_id_of(approval),
        reason="tool_call",
        tool_call_id=call_id_of(approval),
        message=f"Approve the call to {name}?",
        response_schema=APPROVAL_SCHEMA,
        subagent_run_id=subagent_run_id,
        metadata={"toolName": name, "agent": getattr(approval.agent, "name", None)},
    )


@dataclass(frozen=True)
class Decision:
    approved: bool
    message: Optional[str] = None


def decisions(resume: list[ResumeEntry], open_ids: list[str]) -> dict[str, Decision]:
    """Each open interrupt's answer, or a ``RunError`` saying what is wrong with the resume."""
    found: dict[str, Decision] = {}
    for interrupt_id, entry in answers_to_open(resume, open_ids).items():
        if entry.status == "cancelled":
            found[interrupt_id] = Decision(False)
            continue
        payload = entry.payload
        if not isinstance(payload, Mapping) or not isinstance(payload.get("approved"), bool):
            raise RunError(
                f"resume of {interrupt_id!r}: the payload must be an object with a boolean "
                f'"approved" (and an optional "message"), got {payload!r}',
                code="invalid_resume_payload",
            )
        message = payload.get("message")
        found[interrupt_id] = Decision(
            payload["approved"], message if isinstance(message, str) else None
        )
    return found


@dataclass(frozen=True)
class PendingRun:
    """A run stopped on approvals: the SDK's serialized ``RunState`` and the calls it waits on."""

    state: str
    interrupt_ids: list[str]


class PendingApprovals:
    """The runs waiting on approvals, by caller and thread, in memory (one process; the oldest
    of more than ``max_threads`` is forgotten, and its resume is refused as having nothing open).

    ``owner`` is the run's ``ctx.principal`` (the endpoint's ``principal`` hook applied to what
    ``authorize`` returned): a run stopped by one caller is open to that caller only, so another
    one who learns the thread id finds nothing to answer. ``None`` is the anonymous caller (no
    ``authorize`` hook): every caller is it, and anyone with the thread id can answer."""

    def __init__(self, max_threads: int = 1024) -> None:
        self.max_threads = max_threads
        self._runs: OrderedDict[tuple[Optional[str], str], PendingRun] = OrderedDict()

    def get(self, owner: Optional[str], thread_id: str) -> Optional[PendingRun]:
        return self._runs.get((owner, thread_id))

    def put(self, owner: Optional[str], thread_id: str, run: PendingRun) -> None:
        key = (owner, thread_id)
        self._runs.pop(key, None)
        self._runs[key] = run
        while len(self._runs) > self.max_threads:
            self._runs.popitem(last=False)

    def delete(self, owner: Optional[str], thread_id: str) -> None:
        self._runs.pop((owner, thread_id), None)
