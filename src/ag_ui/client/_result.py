"""What a finished run hands back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ag_ui.core.errors import SubscriberError
from ag_ui.core.events import RunFinishedOutcome
from ag_ui.core.types import Interrupt, Message, ToolCall

__all__ = ["RunAgentResult"]


@dataclass
class RunAgentResult:
    """The outcome of ``HttpAgent.run_agent``.

    ``new_messages`` are the messages whose ids were not in ``agent.messages`` before the run.
    ``outcome`` is RUN_FINISHED's outcome (``None`` = success), ``result`` its ``result`` on
    success, ``interrupts`` what the run left open (pass answers as ``resume=`` next time) and
    ``pending_tool_call_ids`` the tool calls it left for the application to answer, and
    ``pending_tool_calls`` the same calls as typed ``ToolCall``s (name, JSON arguments) to answer
    with ``agent.add_tool_result(call.id, ...)``. Calls of the agent's registered client tools
    are answered by ``run_agent`` itself, which runs again (``tool_rounds`` counts those
    follow-up runs; ``new_messages`` then spans all of them, the other fields are the last
    run's).
    ``aborted`` is true when ``abort_run()`` stopped the run; ``error`` holds a failure that an
    ``on_run_failed`` subscriber chose to swallow (``stop_propagation``). ``reconnects``
    counts the automatic reconnects to a detached run (docs/resume.md).
    ``subscriber_errors`` lists the callbacks that raised during the run (each was logged at
    ERROR level and skipped; the run went on): check it, or ``raise`` one, to fail on them.
    """

    run_id: str
    new_messages: list[Message] = field(default_factory=list)
    outcome: Optional[RunFinishedOutcome] = None
    result: Any = None
    interrupts: list[Interrupt] = field(default_factory=list)
    pending_tool_call_ids: list[str] = field(default_factory=list)
    pending_tool_calls: list[ToolCall] = field(default_factory=list)
    tool_rounds: int = 0
    aborted: bool = False
    error: Optional[BaseException] = None
    finished: bool = False
    reconnects: int = 0
    subscriber_errors: list[SubscriberError] = field(default_factory=list)

    @property
    def outcome_type(self) -> str:
        """``"success"``, ``"interrupt"``, ``"cancelled"``, ``"aborted"`` or ``"error"``."""
        if self.aborted:
            return "aborted"
        if self.error is not None or not self.finished:
            return "error"
        return "success" if self.outcome is None else self.outcome.type
