"""Event-stream checks and transformations (PROTOCOL.md §5, §6.2, §6.3, §6.9), all sans-IO.

- ``EventVerifier`` / ``verify_events``: is this a legal AG-UI 1.0 event sequence?
- ``CompatibilityTranslator``: pre-1.0 shapes (THINKING_*, legacy nulls, binary parts) -> 1.0.
- ``ChunkExpander``: ``*_CHUNK`` events -> start/content/end.
- ``compact_events``: a shorter stream that applies to the same messages and state.
- ``reject_optional_nulls``: the TypeScript client's "no null on optional fields" check.
- ``tool_arguments_problem`` / ``ToolArgumentsWarning``: tool-call arguments that are not JSON
  (legal; the verifier warns).
- ``ForwardCompatibilityWarning``: an open union's member of a newer protocol (an outcome
  type, a JSON Patch op) was kept and skipped.
- ``verify_a2ui`` / ``A2UIVerifier``: A2UI surfaces (``a2ui-surface`` activities), rules
  ``a2ui.*``.
- ``StreamVerifier``: translation -> null checks -> expansion -> verification, in that order,
  as every consumer runs them (the client, the server's guard, ``agui verify``).

``ag_ui.apply.EventPipeline`` adds the reducer.
"""

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.core.errors import (
    ChunkExpansionError,
    EventSequenceError,
    ProtocolError,
    UnterminatedRunError,
)
from ag_ui.verify._a2ui import A2UIFinding, A2UIVerifier, verify_a2ui
from ag_ui.verify._chunk_streams import ChunkTransformWarning
from ag_ui.verify._chunks import ChunkExpander
from ag_ui.verify._compact import compact_events
from ag_ui.verify._compat import CompatibilityTranslator, CompatibilityWarning
from ag_ui.verify._draft_rules import DraftRuleWarning
from ag_ui.verify._enforce import UnrecognisedMaterialWarning
from ag_ui.verify._forward import ForwardCompatibilityWarning
from ag_ui.verify._nulls import reject_optional_nulls
from ag_ui.verify._stream import verify_events
from ag_ui.verify._stream_verifier import StreamVerifier
from ag_ui.verify._tool_args import ToolArgumentsWarning, tool_arguments_problem
from ag_ui.verify._verifier import EventVerifier

__all__ = [
    "A2UIFinding",
    "A2UIVerifier",
    "ChunkExpander",
    "ChunkExpansionError",
    "ChunkTransformWarning",
    "CompatibilityTranslator",
    "CompatibilityWarning",
    "DraftRuleWarning",
    "EventSequenceError",
    "EventVerifier",
    "ForwardCompatibilityWarning",
    "ProtocolError",
    "StreamVerifier",
    "ToolArgumentsWarning",
    "UnrecognisedMaterialWarning",
    "UnterminatedRunError",
    "compact_events",
    "reject_optional_nulls",
    "tool_arguments_problem",
    "verify_a2ui",
    "verify_events",
]
