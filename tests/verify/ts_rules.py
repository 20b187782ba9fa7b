"""Which PROTOCOL.md §5/§6.3 rule a TypeScript client error message reports.

Lets the differential tests check that both clients reject a stream *for the same reason*, not
only that both reject it. Patterns follow the messages in ``@ag-ui/client@1.0.0``.
"""

from __future__ import annotations

import re
from typing import Any

from ag_ui.core.errors import AGUIValidationError, ProtocolError

_PATTERNS = [
    ("R1", r"The run has already errored"),
    ("R2", r"The run has already finished"),
    ("R3", r"First event must be 'RUN_STARTED'"),
    ("R4", r"while a run is still active"),
    ("N7", r"Cannot send a message \(id '.*'\) with 'subagentRunId: null'"),
    ("N6", r"with an interrupt \(id"),
    ("N4", r"'outcome\.interruptIds: null'"),
    (
        "N2",
        r"with '(description|parentSubagentRunId|parentToolCallId|parentMessageId|outcome"
        r"|code): null'",
    ),
    ("N1", r"with 'subagentRunId: null'"),
    ("T1", r"A text message with ID .* is already in progress"),
    ("T2", r"'TEXT_MESSAGE_CONTENT' event: No active text message"),
    ("T3", r"'TEXT_MESSAGE_END' event: No active text message"),
    ("C1", r"A tool call with ID .* is already in progress"),
    ("C2", r"'TOOL_CALL_ARGS' event: No active tool call"),
    ("C3", r"'TOOL_CALL_END' event: No active tool call"),
    ("S1", r"is already active for 'STEP_STARTED'"),
    ("S2", r"A step must be finished by whoever started it"),
    ("S3", r"that was not started"),
    ("G1", r"A reasoning span with ID .* is already in progress"),
    ("G2", r"A reasoning message with ID .* is already in progress"),
    ("G3", r"No active reasoning message found"),
    ("G4", r"No active reasoning span found"),
    ("A2", r"is already active\. Finish it"),
    ("A3", r"has already finished in this run"),
    ("A4", r"parentSubagentRunId '.*' has not been started"),
    ("A6", r"no active subagent found"),
    ("O2", r"does not match its parent message"),
    ("O3", r"but its parent message"),
    ("O1", r"does not match the .* opener's subagent"),
    ("F1", r"while steps are still active"),
    ("F2", r"while text messages are still active"),
    ("F3", r"while reasoning messages are still active"),
    ("F4", r"while reasoning spans are still active"),
    ("F5", r"while tool calls are still active"),
    ("F6", r"while subagents are still active"),
    ("X1", r"^First (TEXT_MESSAGE|TOOL_CALL|REASONING_MESSAGE)_CHUNK must have"),
    ("X2", r"^Cannot continue"),
    ("X3", r"^Ambiguous"),
    ("validation", r"^\[\s*\{"),  # a zod error: the schema rejected a field
]


def ts_rule(message: str) -> str:
    for rule, pattern in _PATTERNS:
        if re.search(pattern, message, re.DOTALL):
            return rule
    return f"unknown: {message[:80]}"


def our_rule(error: Any) -> str:
    if isinstance(error, ProtocolError):
        return error.rule
    if isinstance(error, AGUIValidationError):
        return "validation"
    return f"unknown: {error!r}"


def same_reason(ours_error: Any, ts_message: str) -> bool:
    """Both rejected for the same rule. In the full TS pipeline the schema (zod) rejects a wire
    ``null`` before the verifier sees it (PROTOCOL.md §5.2); we report the verifier's N rule."""
    mine, theirs = our_rule(ours_error), ts_rule(ts_message)
    return mine == theirs or (mine.startswith("N") and theirs == "validation")
