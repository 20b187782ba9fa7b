"""One event stream per stream rule of the catalogue, each breaking exactly that rule.

Used by the grading tests (every rule can fail) and the ``agui validate`` tests (a scripted
server sends each stream and the report names the rule).
"""

from __future__ import annotations

from typing import Any

S = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
F = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
E = {"type": "RUN_ERROR", "message": "boom"}


def tm(kind: str, message_id: str = "m", **extra: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": f"TEXT_MESSAGE_{kind}", "messageId": message_id}
    if kind == "CONTENT":
        event["delta"] = "x"
    event.update(extra)
    return event


def tc(kind: str, call_id: str = "c", **extra: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": f"TOOL_CALL_{kind}", "toolCallId": call_id}
    if kind == "START":
        event["toolCallName"] = "f"
    if kind == "ARGS":
        event["delta"] = "{}"
    event.update(extra)
    return event


def sub(kind: str, run_id: str = "s", **extra: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": f"SUBAGENT_{kind}", "subagentRunId": run_id}
    if kind == "STARTED":
        event["name"] = "helper"
    if kind == "ERROR":
        event["message"] = "failed"
    event.update(extra)
    return event


STEP = {"type": "STEP_STARTED", "stepName": "plan"}
STEP_END = {"type": "STEP_FINISHED", "stepName": "plan"}
R_START = {"type": "REASONING_START", "messageId": "g"}
R_END = {"type": "REASONING_END", "messageId": "g"}
RM_START = {"type": "REASONING_MESSAGE_START", "messageId": "gm", "role": "reasoning"}
RM_CONTENT = {"type": "REASONING_MESSAGE_CONTENT", "messageId": "gm", "delta": "hm"}
RM_END = {"type": "REASONING_MESSAGE_END", "messageId": "gm"}

# rule -> (events, index of the offending event, or None for the end of the stream)
RULE_CASES: dict[str, tuple[list[dict[str, Any]], Any]] = {
    "R1": ([S, E, tm("START")], 2),
    "R2": ([S, F, tm("START")], 2),
    "R3": ([tm("START"), S, F], 0),
    "R4": ([S, S], 1),
    "END": ([S, tm("START")], None),
    "N1": ([S, {"type": "CUSTOM", "name": "x", "value": 1, "subagentRunId": None}, F], 1),
    "N2": ([S, sub("STARTED", description=None), sub("FINISHED"), F], 1),
    "N4": (
        [
            S,
            sub("STARTED"),
            sub("FINISHED", outcome={"type": "suspended", "interruptIds": None}),
            F,
        ],
        2,
    ),
    "N6": (
        [
            S,
            {
                **F,
                "outcome": {
                    "type": "interrupt",
                    "interrupts": [{"id": "i", "reason": "confirmation", "subagentRunId": None}],
                },
            },
        ],
        1,
    ),
    "N7": (
        [
            {
                **S,
                "input": {
                    "threadId": "t",
                    "runId": "r",
                    "messages": [
                        {"id": "u", "role": "user", "content": "x", "subagentRunId": None}
                    ],
                },
            },
            F,
        ],
        0,
    ),
    "T1": ([S, tm("START"), tm("START"), tm("END"), F], 2),
    "T2": ([S, tm("CONTENT"), F], 1),
    "T3": ([S, tm("END"), F], 1),
    "C1": ([S, tc("START"), tc("START"), tc("END"), F], 2),
    "C2": ([S, tc("ARGS"), F], 1),
    "C3": ([S, tc("END"), F], 1),
    "S1": ([S, STEP, STEP, STEP_END, F], 2),
    "S2": ([S, sub("STARTED"), STEP, {**STEP_END, "subagentRunId": "s"}, F], 3),
    "S3": ([S, STEP_END, F], 1),
    "G1": ([S, R_START, R_START, R_END, F], 2),
    "G2": ([S, RM_START, RM_START, RM_END, F], 2),
    "G3": ([S, RM_CONTENT, F], 1),
    "G4": ([S, R_END, F], 1),
    "A2": ([S, sub("STARTED"), sub("STARTED"), sub("FINISHED"), F], 2),
    "A3": ([S, sub("STARTED"), sub("FINISHED"), sub("STARTED"), sub("FINISHED"), F], 3),
    "A4": ([S, sub("STARTED", parentSubagentRunId="nobody"), sub("FINISHED"), F], 1),
    "A6": ([S, sub("FINISHED"), F], 1),
    "O1": ([S, tm("START"), tm("CONTENT", subagentRunId="s"), tm("END"), F], 2),
    "O2": ([S, tm("START"), tc("START", parentMessageId="m", subagentRunId="s"), F], 2),
    "O3": (
        [
            S,
            sub("STARTED"),
            tc("START", subagentRunId="s"),
            tc("END"),
            tm("START"),
            tc("START", parentMessageId="m"),
            F,
        ],
        5,
    ),
    "F1": ([S, STEP, F], 2),
    "F2": ([S, tm("START"), F], 2),
    "F3": ([S, RM_START, F], 2),
    "F4": ([S, R_START, F], 2),
    "F5": ([S, tc("START"), F], 2),
    "F6": ([S, sub("STARTED"), F], 2),
    "X1": ([S, {"type": "TOOL_CALL_CHUNK", "delta": "{}"}, F], 1),
    "X2": (
        [
            S,
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "delta": "{"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "g", "delta": "}"},
            F,
        ],
        2,
    ),
    "wire.optional-null": ([S, tm("START", name=None), tm("END"), F], 1),
    "tool.args-json": ([S, tc("START"), tc("ARGS", delta='"city": "Paris"}'), tc("END"), F], 3),
    "state.patch": (
        [
            S,
            {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/missing", "value": 1}]},
            F,
        ],
        1,
    ),
}

UNREACHABLE_FROM_THE_WIRE = {
    "N3": "an unknown subagent outcome type is a schema error when parsed (wire.schema)",
    "N5": "a non-string interrupt id is a schema error when parsed (wire.schema)",
    "A1": "SUBAGENT_STARTED without subagentRunId/name is a schema error (wire.schema)",
    "A5": "SUBAGENT_FINISHED/ERROR without their fields are schema errors (wire.schema)",
    "X0": "the pipeline expands chunks before the reducer sees them",
    "X3": "needs several id-less chunk streams open at once, which X1 refuses first",
    "D1": "a draft rule: a finding only under strict_draft (tests/verify/test_draft_rules.py)",
    "D2": "a draft rule: a finding only under strict_draft (tests/verify/test_draft_rules.py)",
    "D3": "a draft rule: a finding only under strict_draft (tests/verify/test_draft_rules.py)",
}
"""Stream rules an event stream parsed from the wire cannot reach through the grader, and why
(they guard in-process producers that bypass the schemas)."""
