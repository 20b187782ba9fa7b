"""Shared state and activity emitters: snapshots, and updates sent as JSON Patch deltas.

Both keep the last value sent, so ``update(new)`` can send only what changed. Values are
deep-copied on the way in: an agent that keeps mutating its own dict cannot change what the
emitter believes the client holds.
"""

from __future__ import annotations

import copy
from typing import Any, Optional

from pydantic import BaseModel

from ag_ui.core.events import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
)
from ag_ui.server._diff import json_patch_diff
from ag_ui.server._streams import Emit

__all__ = ["Activity", "SharedState", "StateBox"]


_CURRENT: Any = object()


def _plain(value: Any) -> Any:
    """A JSON-shaped deep copy (pydantic models dumped with wire names)."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, mode="json", exclude_none=False)
    return copy.deepcopy(value)


class StateBox:
    """The state the client is known to hold, shared by a run context and its subagents."""

    def __init__(self, initial: Any) -> None:
        self.value: Any = _plain(initial)


class SharedState:
    """``ctx.state``: read the current state, send a snapshot, or send an update as a delta.

    >>> async def agent(run_input, ctx):  # doctest: +SKIP
    ...     await ctx.state.update({**ctx.state.current, "city": "Paris"})  # STATE_DELTA
    """

    def __init__(self, box: StateBox, emit: Emit, *, subagent_run_id: Optional[str]) -> None:
        self._box = box
        self._emit = emit
        self._tag = subagent_run_id

    @property
    def current(self) -> Any:
        """A copy of the state as the client holds it (the input's state, then what was sent)."""
        return copy.deepcopy(self._box.value)

    async def snapshot(self, value: Any = _CURRENT) -> None:
        """Send ``STATE_SNAPSHOT`` with ``value`` (default: the current state) and adopt it.

        ``None`` is a value here (a null state), not "use the current one".
        """
        new = self._box.value if value is _CURRENT else _plain(value)
        self._box.value = new
        await self._emit(StateSnapshotEvent(snapshot=copy.deepcopy(new), subagent_run_id=self._tag))

    async def update(self, new_state: Any) -> list[dict[str, Any]]:
        """Send the JSON Patch from the current state to ``new_state`` as ``STATE_DELTA``.

        Nothing is sent when nothing changed. Returns the operations sent.
        """
        new = _plain(new_state)
        patch = json_patch_diff(self._box.value, new)
        self._box.value = new
        if patch:
            await self._emit(StateDeltaEvent(delta=patch, subagent_run_id=self._tag))
        return patch


class Activity:
    """An activity message (progress, a plan, a card...) updated in place by deltas.

    Created by ``await ctx.activity(type, content)``, which sends ``ACTIVITY_SNAPSHOT``;
    ``update(content)`` sends ``ACTIVITY_DELTA`` with the JSON Patch of the change.
    """

    def __init__(
        self,
        emit: Emit,
        message_id: str,
        activity_type: str,
        content: dict[str, Any],
        *,
        subagent_run_id: Optional[str],
    ) -> None:
        self._emit = emit
        self.message_id = message_id
        self.activity_type = activity_type
        self.content: dict[str, Any] = _plain(content)
        self._tag = subagent_run_id

    async def snapshot(self, content: Optional[dict[str, Any]] = None) -> None:
        """Send the whole content (default: the current one) as ``ACTIVITY_SNAPSHOT``."""
        if content is not None:
            self.content = _plain(content)
        await self._emit(
            ActivitySnapshotEvent(
                message_id=self.message_id,
                activity_type=self.activity_type,
                content=copy.deepcopy(self.content),
                subagent_run_id=self._tag,
            )
        )

    async def update(self, content: dict[str, Any]) -> list[dict[str, Any]]:
        """Send what changed since the last content as ``ACTIVITY_DELTA`` (nothing if equal)."""
        new = _plain(content)
        patch = json_patch_diff(self.content, new)
        self.content = new
        if patch:
            await self._emit(
                ActivityDeltaEvent(
                    message_id=self.message_id,
                    activity_type=self.activity_type,
                    patch=patch,
                    subagent_run_id=self._tag,
                )
            )
        return patch
