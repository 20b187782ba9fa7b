"""The reducer: events -> messages, state and run bookkeeping (PROTOCOL.md §6.4), sans-IO.

- ``AgentState``: immutable messages (wire JSON dicts), state and run bookkeeping.
- ``apply_event(state, event) -> state``: one row of §6.4 per event type.
- ``apply_patch(document, operations)``: RFC 6902 with path copying (O(patch), not O(state)).
- ``EventPipeline``: compatibility -> chunk expansion -> verify -> apply, for consumers.
- ``Reducer``: ``apply_event`` with the rule for patches that fail (keep the state, warn).
"""

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.apply._message_rows import ReducerWarning
from ag_ui.apply._pipeline import EventPipeline, PatchFailedWarning, Reducer
from ag_ui.apply._reducer import apply_event
from ag_ui.apply._snapshot_rows import ACTIVITY_HISTORY_METADATA, authoritative_activity_types
from ag_ui.apply._state import AgentState, RunSummary
from ag_ui.core.errors import PatchError
from ag_ui.json_patch import apply_patch

__all__ = [
    "ACTIVITY_HISTORY_METADATA",
    "AgentState",
    "EventPipeline",
    "PatchError",
    "PatchFailedWarning",
    "Reducer",
    "ReducerWarning",
    "RunSummary",
    "apply_event",
    "apply_patch",
    "authoritative_activity_types",
]
