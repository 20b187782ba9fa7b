"""The ``update_state`` tool: the model changes the shared state, the client gets STATE_DELTA.

The model sends the changes as a JSON merge patch (RFC 7386: keys set, ``null`` removes,
objects merge), which models write far more reliably than JSON Patch operations; the server
toolkit turns the new state into the JSON Patch the protocol carries.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from ag_ui.server import RunContext
from ag_ui.tools import FunctionTool

__all__ = ["STATE_TOOL_NAME", "merge_patch", "state_tool"]

STATE_TOOL_NAME = "update_state"


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: ``patch`` applied to ``target`` (neither is modified)."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


async def update_state(
    changes: Annotated[
        dict[str, Any],
        Field(
            description="The keys to change, as a JSON merge patch: a key set to a value "
            "replaces it, null removes it, nested objects are merged."
        ),
    ],
    ctx: RunContext,
) -> str:
    """Change the application's shared state (the user sees the change at once)."""
    new_state = merge_patch(ctx.state.current, changes)
    # replace() sends the difference as STATE_DELTA (removals included; nothing when equal).
    await ctx.state.replace(new_state)
    return "The shared state is now: " + json.dumps(new_state, ensure_ascii=False, sort_keys=True)


def state_tool() -> FunctionTool:
    """The ``update_state`` tool (it receives the run's ``RunContext``)."""
    return FunctionTool(update_state, name=STATE_TOOL_NAME, context_type=RunContext)
