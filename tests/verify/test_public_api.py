"""Pins the public surface of ``ag_ui.verify`` and ``ag_ui.apply``."""

from __future__ import annotations

import ag_ui.apply
import ag_ui.verify


def test_verify_all() -> None:
    assert ag_ui.verify.__all__ == [
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
    assert all(hasattr(ag_ui.verify, name) for name in ag_ui.verify.__all__)


def test_apply_all() -> None:
    assert ag_ui.apply.__all__ == [
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
    assert all(hasattr(ag_ui.apply, name) for name in ag_ui.apply.__all__)
