"""``build_input``: a ``RunAgentInput`` from a message, history and options, ids filled in."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Optional

from ag_ui.core.types import RunAgentInput
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION

__all__ = ["build_input", "wire"]


def wire(item: Any) -> Any:
    dump = getattr(item, "model_dump", None)
    return dump(by_alias=True, mode="json") if dump is not None else item


def build_input(
    message: Optional[str] = None,
    *,
    messages: Sequence[Any] = (),
    state: Any = None,
    tools: Sequence[Any] = (),
    context: Sequence[Any] = (),
    forwarded_props: Any = None,
    resume: Optional[Sequence[Any]] = None,
    thread_id: Optional[str] = None,
    run_id: Optional[str] = None,
    parent_run_id: Optional[str] = None,
) -> RunAgentInput:
    """A ``RunAgentInput``: ``messages`` (models or wire dicts), then ``message`` as a new user
    message; fresh UUIDs for missing ids; ``protocolVersion`` as ``SPOKEN_PROTOCOL_VERSION``."""
    wire_messages = [wire(m) for m in messages if wire(m).get("role") != "activity"]
    if message is not None:
        wire_messages.append(
            {"id": f"user-{uuid.uuid4().hex[:12]}", "role": "user", "content": message}
        )
    fields: dict[str, Any] = {
        "threadId": thread_id or f"thread-{uuid.uuid4().hex[:12]}",
        "runId": run_id or f"run-{uuid.uuid4().hex[:12]}",
        "messages": wire_messages,
        "tools": [wire(t) for t in tools],
        "context": [wire(c) for c in context],
        "state": {} if state is None else state,
        "protocolVersion": SPOKEN_PROTOCOL_VERSION,
    }
    if forwarded_props is not None:
        fields["forwardedProps"] = forwarded_props
    if resume is not None:
        fields["resume"] = [wire(r) for r in resume]
    if parent_run_id is not None:
        fields["parentRunId"] = parent_run_id
    return RunAgentInput.model_validate(fields)
