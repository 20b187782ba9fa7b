"""Who owns each streamed entity (PROTOCOL.md §5.8): the bookkeeping behind the ``O`` rules.

Owners are kept per entity kind (an id is unique only within its kind) and retained for the
whole run, even after the entity closes, because continuations such as an encrypted value may
arrive after the close. An owner is a subagent run id, or ``None`` for the parent agent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from ag_ui.core.errors import EventSequenceError

__all__ = ["Owners", "owner_label"]

_UNKNOWN = object()


def owner_label(owner: Optional[str]) -> str:
    return "(the parent agent)" if owner is None else owner


class Owners:
    """Four id -> owner maps: text/tool messages, tool calls, activities, reasoning."""

    __slots__ = ("activity", "message", "reasoning", "tool_call")

    def __init__(self) -> None:
        self.message: dict[str, Optional[str]] = {}
        self.tool_call: dict[str, Optional[str]] = {}
        self.activity: dict[str, Optional[str]] = {}
        self.reasoning: dict[str, Optional[str]] = {}

    def clear(self) -> None:
        self.message.clear()
        self.tool_call.clear()
        self.activity.clear()
        self.reasoning.clear()

    def check(
        self,
        bucket: dict[str, Optional[str]],
        tag: Optional[str],
        entity_id: str,
        kind: str,
        event_type: str,
    ) -> None:
        """O1: a tagged event must agree with the recorded owner (an absent tag always agrees)."""
        if tag is None:
            return
        owner = bucket.get(entity_id, _UNKNOWN)
        if owner is _UNKNOWN or owner == tag:
            return
        shown = owner_label(owner)  # type: ignore[arg-type]
        raise EventSequenceError(
            f"Cannot send '{event_type}': subagentRunId '{tag}' does not match the {kind} "
            f"'{entity_id}' opener's subagent '{shown}'. Tag the event with the subagent that "
            "opened it, or leave subagentRunId out.",
            rule="O1",
            event_type=event_type,
            ids={"entity_id": entity_id, "subagent_run_id": tag, "owner": owner},
        )

    def seed(self, messages: Optional[Iterable[Any]], *, authoritative: bool) -> None:
        """Record the owners of replayed history (MESSAGES_SNAPSHOT, RUN_STARTED.input)."""
        for message in messages or ():
            message_id = getattr(message, "id", None)
            if not isinstance(message_id, str):
                continue
            role = getattr(message, "role", None)
            owner = getattr(message, "subagent_run_id", None)
            if role == "reasoning":
                bucket = self.reasoning
            elif role == "activity":
                bucket = self.activity
            else:
                bucket = self.message
            if authoritative or message_id not in bucket:
                bucket[message_id] = owner
            for tool_call in getattr(message, "tool_calls", None) or ():
                call_id = getattr(tool_call, "id", None)
                if isinstance(call_id, str) and (authoritative or call_id not in self.tool_call):
                    self.tool_call[call_id] = owner
