"""The ``RunAgentInput`` a run sends: the conversation, the thread, and the run's options."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

from ag_ui.apply import AgentState
from ag_ui.core.types import Context, ResumeEntry, RunAgentInput, Tool
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION

__all__ = ["ContextLike", "ResumeLike", "ToolLike", "build_input"]

ToolLike = Union[Tool, Mapping[str, Any]]
ContextLike = Union[Context, Mapping[str, Any]]
ResumeLike = Union[ResumeEntry, Mapping[str, Any]]

_PROTOCOL_1_0 = (1, 0, 0)  # the first version with the field


def build_input(
    agent_state: AgentState,
    *,
    thread_id: str,
    peer_ceiling: tuple[int, int, int],
    run_id: Optional[str] = None,
    tools: Optional[Sequence[ToolLike]] = None,
    context: Optional[Sequence[ContextLike]] = None,
    forwarded_props: Any = None,
    resume: Optional[Sequence[ResumeLike]] = None,
    parent_run_id: Optional[str] = None,
) -> RunAgentInput:
    """The input for one run of a conversation (activity messages are client-only)."""
    fields: dict[str, Any] = {
        "thread_id": thread_id,
        "run_id": run_id or str(uuid.uuid4()),
        "messages": [m for m in agent_state.messages if m.get("role") != "activity"],
        "tools": list(tools or []),
        "context": list(context or []),
        "state": copy.deepcopy(agent_state.state),
    }
    # An agent pinned below 1.0 predates the field; a strict old parser may reject it.
    if peer_ceiling >= _PROTOCOL_1_0:
        fields["protocol_version"] = SPOKEN_PROTOCOL_VERSION
    if forwarded_props is not None:
        fields["forwarded_props"] = forwarded_props
    if resume is not None:
        fields["resume"] = list(resume)
    if parent_run_id is not None:
        fields["parent_run_id"] = parent_run_id
    return RunAgentInput.model_validate(fields)
