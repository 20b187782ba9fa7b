"""A surface as one AG-UI activity message: each call returns the next ``ACTIVITY_SNAPSHOT``.

The wire contract (``@ag-ui/a2ui-middleware``): ``activityType`` ``"a2ui-surface"``, message
id ``a2ui-surface-<toolCallId>`` (``a2ui-surface-<surfaceId>-<toolCallId>`` when one call paints
several surfaces), ``replace`` true, and content ``{"a2ui_operations": [...]}`` once painted or
``{"status": "building" | "retrying" | "failed", ...}`` before. Every snapshot replaces the
last, so a painted one carries every operation so far.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Optional

from ag_ui.a2ui._envelopes import (
    BASIC_CATALOG_V0_9,
    OPERATIONS_KEY,
    Version,
    create_surface,
    delete_surface,
    update_components,
    update_data_model,
)
from ag_ui.core.events import ActivitySnapshotEvent

__all__ = ["ACTIVITY_TYPE", "MAX_ATTEMPTS", "Surface", "surface_message_id"]

ACTIVITY_TYPE: Final = "a2ui-surface"
MAX_ATTEMPTS: Final = 3
"""The retry cap a renderer shows when a status names none (the A2UI toolkit's default)."""
_ABSENT: Any = object()


def surface_message_id(tool_call_id: str, surface_id: Optional[str] = None) -> str:
    """``a2ui-surface-<toolCallId>``, or ``a2ui-surface-<surfaceId>-<toolCallId>``."""
    if not tool_call_id:
        raise ValueError("tool_call_id must be a non-empty string")
    if surface_id is None:
        return f"a2ui-surface-{tool_call_id}"
    return f"a2ui-surface-{surface_id}-{tool_call_id}"


class Surface:
    """One A2UI surface painted by the agent itself; emit each returned event with
    ``await ctx.emit(event)``.

    ``shared_call=True`` names the message ``a2ui-surface-<surfaceId>-<toolCallId>``, for a
    tool call that paints more than one surface.
    """

    def __init__(
        self,
        surface_id: str,
        tool_call_id: str,
        *,
        catalog_id: str = BASIC_CATALOG_V0_9,
        version: Version = "v0.9",
        theme: Optional[Mapping[str, Any]] = None,
        shared_call: bool = False,
    ) -> None:
        self.surface_id = surface_id
        self.tool_call_id = tool_call_id
        self.catalog_id = catalog_id
        self.version: Version = version
        self.message_id = surface_message_id(tool_call_id, surface_id if shared_call else None)
        self._operations: list[dict[str, Any]] = [
            create_surface(surface_id, catalog_id, theme=theme, version=version)
        ]
        self._deleted = False

    @property
    def operations(self) -> list[dict[str, Any]]:
        """The envelopes painted so far (a copy)."""
        return [dict(operation) for operation in self._operations]

    # -- before the first paint ----------------------------------------------------------------

    def building(self, *, progress_tokens: Optional[int] = None) -> ActivitySnapshotEvent:
        """``{"status": "building"}``: the skeleton while the UI is generated."""
        content: dict[str, Any] = {"status": "building"}
        if progress_tokens is not None:
            content["progressTokens"] = progress_tokens
        return self._snapshot(content)

    def retrying(
        self, attempt: int, max_attempts: int, errors: Sequence[Any] = ()
    ) -> ActivitySnapshotEvent:
        """``{"status": "retrying", "attempt", "maxAttempts", "errors"}``."""
        if not 1 <= attempt <= max_attempts:
            raise ValueError(f"attempt {attempt} is not within 1..{max_attempts}")
        return self._snapshot(
            {
                "status": "retrying",
                "attempt": attempt,
                "maxAttempts": max_attempts,
                "errors": list(errors),
            }
        )

    def failed(
        self, error: str, *, attempts: Sequence[Any] = (), max_attempts: Optional[int] = None
    ) -> ActivitySnapshotEvent:
        """``{"status": "failed", "error", "attempts", "maxAttempts"}``: recovery gave up.
        ``maxAttempts`` defaults to the number of attempts (``MAX_ATTEMPTS`` when none)."""
        return self._snapshot(
            {
                "status": "failed",
                "error": error,
                "attempts": list(attempts),
                "maxAttempts": max_attempts
                if max_attempts is not None
                else len(attempts) or MAX_ATTEMPTS,
            }
        )

    # -- painting ------------------------------------------------------------------------------

    def components(self, components: Sequence[Mapping[str, Any]]) -> ActivitySnapshotEvent:
        """Add or replace components and paint."""
        self._check_live()
        self._operations.append(
            update_components(self.surface_id, components, version=self.version)
        )
        return self._painted()

    def data(self, value: Any = _ABSENT, *, path: Optional[str] = None) -> ActivitySnapshotEvent:
        """Set (or, with no value, remove) data at ``path`` (the whole model) and paint."""
        self._check_live()
        if value is _ABSENT:
            envelope = update_data_model(self.surface_id, path=path, version=self.version)
        else:
            envelope = update_data_model(self.surface_id, value, path=path, version=self.version)
        self._operations.append(envelope)
        return self._painted()

    def delete(self) -> ActivitySnapshotEvent:
        """``deleteSurface``: the last operation this surface may send."""
        self._check_live()
        self._operations.append(delete_surface(self.surface_id, version=self.version))
        self._deleted = True
        return self._painted()

    def _check_live(self) -> None:
        if self._deleted:
            raise RuntimeError(f"surface {self.surface_id!r} was deleted; start a new Surface")

    def _painted(self) -> ActivitySnapshotEvent:
        return self._snapshot({OPERATIONS_KEY: self.operations})

    def _snapshot(self, content: dict[str, Any]) -> ActivitySnapshotEvent:
        return ActivitySnapshotEvent(
            message_id=self.message_id,
            activity_type=ACTIVITY_TYPE,
            content=content,
            replace=True,
        )
