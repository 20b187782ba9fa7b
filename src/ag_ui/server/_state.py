"""Shared state and activity emitters: snapshots, and updates sent as JSON Patch deltas.

Both keep the last value sent, so ``update(new)`` can send only what changed. Values are
deep-copied on the way in: an agent that keeps mutating its own dict cannot change what the
emitter believes the client holds.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
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
    """``ctx.state``: read the current state, send a snapshot, or send a change as a delta.

    ``update(changes)`` merges keys into the state like ``dict.update``; ``replace(new_state)``
    swaps the whole state. Both send the JSON Patch from the old state to the new one.

    >>> async def agent(run_input, ctx):  # doctest: +SKIP
    ...     await ctx.state.update({"city": "Paris"})  # STATE_DELTA: add /city, the rest stays
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

    async def update(
        self, changes: Optional[Mapping[str, Any]] = None, /, **more: Any
    ) -> list[dict[str, Any]]:
        """Merge ``changes`` (and keyword arguments) into the state, like ``dict.update``, and
        send what changed as ``STATE_DELTA``; keys not named are kept.

        The state must be a JSON object (or null, read as ``{}``); use ``replace`` for any other
        value. Nothing is sent when nothing changed. Returns the operations sent.
        """
        current = self._box.value
        if current is None:
            current = {}
        if not isinstance(current, dict):
            raise TypeError(
                "ctx.state.update() merges keys into an object, but the state is a "
                f"{type(current).__name__}; use ctx.state.replace(new_state) to swap it"
            )
        merged = dict(current)
        merged.update(_plain(dict(changes or {}, **more)))
        return await self._send_delta(merged)

    async def replace(self, new_state: Any) -> list[dict[str, Any]]:
        """Make ``new_state`` the whole state and send the JSON Patch from the current one as
        ``STATE_DELTA`` (keys it lacks are removed). Nothing is sent when nothing changed.
        Returns the operations sent.
        """
        return await self._send_delta(_plain(new_state))

    async def _send_delta(self, new: Any) -> list[dict[str, Any]]:
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
