"""Recorded wire streams, one legal and one violating per rule of PROTOCOL.md §5.

Shared by the rule tests (``test_rules.py``) and the differential test against the real
TypeScript client (``tests/interop/test_differential_verify.py``). Each violating case names the
rule, the event type and the ids our ``EventSequenceError`` must carry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

Event = dict[str, Any]


def rs(run: str = "r1") -> Event:
    return {"type": "RUN_STARTED", "threadId": "t", "runId": run}


def rf(run: str = "r1", **extra: Any) -> Event:
    return {"type": "RUN_FINISHED", "threadId": "t", "runId": run, **extra}


def re(message: str = "boom") -> Event:
    return {"type": "RUN_ERROR", "message": message}


def ev(kind: str, **fields: Any) -> Event:
    return {"type": kind, **fields}


def text(message_id: str, delta: str = "hi", **tag: Any) -> list[Event]:
    return [
        ev("TEXT_MESSAGE_START", messageId=message_id, **tag),
        ev("TEXT_MESSAGE_CONTENT", messageId=message_id, delta=delta, **tag),
        ev("TEXT_MESSAGE_END", messageId=message_id, **tag),
    ]


def tool(call_id: str, name: str = "search", args: str = "{}", **extra: Any) -> list[Event]:
    return [
        ev("TOOL_CALL_START", toolCallId=call_id, toolCallName=name, **extra),
        ev("TOOL_CALL_ARGS", toolCallId=call_id, delta=args),
        ev("TOOL_CALL_END", toolCallId=call_id),
    ]


@dataclass
class Case:
    name: str
    events: list[Event]
    rule: Optional[str] = None  # None: the stream is legal
    event_type: Optional[str] = None
    ids: dict[str, Any] = field(default_factory=dict)
    truncated: bool = False  # legal for the TS client and our lenient mode; strict rejects


SUB_START = ev("SUBAGENT_STARTED", subagentRunId="s1", name="helper")
SUB_DONE = ev("SUBAGENT_FINISHED", subagentRunId="s1")

CASES: list[Case] = [
    # -- R: run framing ---------------------------------------------------------------
    Case("R1 legal: new run after RUN_ERROR", [rs(), re(), rs("r2"), rf("r2")]),
    Case("R1 event after RUN_ERROR", [rs(), re(), ev("CUSTOM", name="x", value=1)], "R1", "CUSTOM"),
    Case("R2 legal: RUN_ERROR after RUN_FINISHED", [rs(), rf(), re()]),
    Case(
        "R2 event after RUN_FINISHED",
        [rs(), rf(), ev("STEP_STARTED", stepName="s")],
        "R2",
        "STEP_STARTED",
    ),
    Case("R3 legal: RUN_ERROR first", [re()]),
    Case("R3 first event not RUN_STARTED", [text("m1")[0]], "R3", "TEXT_MESSAGE_START"),
    Case("R4 legal: sequential runs", [rs(), *text("m1"), rf(), rs("r2"), *text("m2"), rf("r2")]),
    Case("R4 RUN_STARTED inside a run", [rs(), rs("r2")], "R4", "RUN_STARTED"),
    Case(
        "R5 legal: RUN_ERROR with open entities",
        [rs(), ev("TEXT_MESSAGE_START", messageId="m1"), ev("STEP_STARTED", stepName="s"), re()],
    ),
    Case("R6 legal: empty stream", []),
    Case("R6 truncated stream", [rs(), *text("m1")], truncated=True),
    Case(
        "R7 legal: unchecked events",
        [
            rs(),
            ev("CUSTOM", name="c", value=None),
            ev("RAW", event={"x": 1}),
            ev("STATE_SNAPSHOT", snapshot={"a": 1}, subagentRunId="s9"),
            ev("STATE_DELTA", delta=[{"op": "replace", "path": "/a", "value": 2}]),
            rf(),
        ],
    ),
    # -- N: nulls on the subagent surface -----------------------------------------------
    Case("N1 legal: tag absent", [rs(), *text("m1"), rf()]),
    Case(
        "N1 subagentRunId null",
        [rs(), ev("TEXT_MESSAGE_START", messageId="m1", subagentRunId=None)],
        "N1",
        "TEXT_MESSAGE_START",
    ),
    Case(
        "N2 SUBAGENT_STARTED description null",
        [rs(), ev("SUBAGENT_STARTED", subagentRunId="s1", name="h", description=None)],
        "N2",
        "SUBAGENT_STARTED",
        {"subagent_run_id": "s1"},
    ),
    Case(
        "N2 SUBAGENT_FINISHED outcome null",
        [rs(), SUB_START, ev("SUBAGENT_FINISHED", subagentRunId="s1", outcome=None)],
        "N2",
        "SUBAGENT_FINISHED",
        {"subagent_run_id": "s1"},
    ),
    Case(
        "N4 legal: suspended with ids",
        [
            rs(),
            SUB_START,
            ev(
                "SUBAGENT_FINISHED",
                subagentRunId="s1",
                outcome={"type": "suspended", "interruptIds": ["i1"]},
            ),
            rf(),
        ],
    ),
    Case(
        "N4 interruptIds null",
        [
            rs(),
            SUB_START,
            ev(
                "SUBAGENT_FINISHED",
                subagentRunId="s1",
                outcome={"type": "suspended", "interruptIds": None},
            ),
        ],
        "N4",
        "SUBAGENT_FINISHED",
    ),
    Case(
        "N6 interrupt with null tag",
        [
            rs(),
            rf(
                outcome={
                    "type": "interrupt",
                    "interrupts": [{"id": "i1", "reason": "ok", "subagentRunId": None}],
                }
            ),
        ],
        "N6",
        "RUN_FINISHED",
        {"interrupt_id": "i1"},
    ),
    Case(
        "N7 snapshot message with null tag",
        [
            rs(),
            ev(
                "MESSAGES_SNAPSHOT",
                messages=[{"id": "u1", "role": "user", "content": "x", "subagentRunId": None}],
            ),
        ],
        "N7",
        "MESSAGES_SNAPSHOT",
        {"message_id": "u1"},
    ),
    Case(
        "N7 run input message with null tag",
        [
            {
                **rs(),
                "input": {
                    "threadId": "t",
                    "runId": "r1",
                    "messages": [
                        {"id": "u1", "role": "user", "content": "x", "subagentRunId": None}
                    ],
                },
            }
        ],
        "N7",
        "RUN_STARTED",
        {"message_id": "u1"},
    ),
    # -- T: text --------------------------------------------------------------------------
    Case(
        "T4 legal: interleaved and reopened text",
        [
            rs(),
            ev("TEXT_MESSAGE_START", messageId="a"),
            ev("TEXT_MESSAGE_START", messageId="b"),
            ev("TEXT_MESSAGE_CONTENT", messageId="a", delta="1"),
            ev("TEXT_MESSAGE_CONTENT", messageId="b", delta="2"),
            ev("TEXT_MESSAGE_END", messageId="a"),
            ev("TEXT_MESSAGE_END", messageId="b"),
            *text("a", "3"),
            rf(),
        ],
    ),
    Case(
        "T1 start while open",
        [rs(), ev("TEXT_MESSAGE_START", messageId="m1"), ev("TEXT_MESSAGE_START", messageId="m1")],
        "T1",
        "TEXT_MESSAGE_START",
        {"message_id": "m1"},
    ),
    Case(
        "T2 content without start",
        [rs(), ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="x")],
        "T2",
        "TEXT_MESSAGE_CONTENT",
        {"message_id": "m1"},
    ),
    Case(
        "T3 end without start",
        [rs(), *text("m1"), ev("TEXT_MESSAGE_END", messageId="m1")],
        "T3",
        "TEXT_MESSAGE_END",
        {"message_id": "m1"},
    ),
    # -- C: tool calls --------------------------------------------------------------------
    Case(
        "C4 legal: result without a call, nested text and tools",
        [
            rs(),
            ev("TEXT_MESSAGE_START", messageId="m1"),
            *tool("c1", parentMessageId="m1"),
            ev("TEXT_MESSAGE_END", messageId="m1"),
            ev("TOOL_CALL_RESULT", messageId="t1", toolCallId="zz", content="r"),
            rf(),
        ],
    ),
    Case(
        "C1 start while open",
        [rs(), *tool("c1")[:1], *tool("c1")[:1]],
        "C1",
        "TOOL_CALL_START",
        {"tool_call_id": "c1"},
    ),
    Case(
        "C2 args without start",
        [rs(), tool("c1")[1]],
        "C2",
        "TOOL_CALL_ARGS",
        {"tool_call_id": "c1"},
    ),
    Case(
        "C3 end without start", [rs(), tool("c1")[2]], "C3", "TOOL_CALL_END", {"tool_call_id": "c1"}
    ),
    # -- S: steps -------------------------------------------------------------------------
    Case(
        "S legal: same step name for parent and subagent",
        [
            rs(),
            ev("STEP_STARTED", stepName="tools"),
            ev("STEP_STARTED", stepName="tools", subagentRunId="s1"),
            ev("STEP_FINISHED", stepName="tools", subagentRunId="s1"),
            ev("STEP_FINISHED", stepName="tools"),
            rf(),
        ],
    ),
    Case(
        "S1 step already active",
        [rs(), ev("STEP_STARTED", stepName="a"), ev("STEP_STARTED", stepName="a")],
        "S1",
        "STEP_STARTED",
        {"step_name": "a", "subagent_run_id": None},
    ),
    Case(
        "S2 step finished by another owner",
        [
            rs(),
            ev("STEP_STARTED", stepName="a"),
            ev("STEP_FINISHED", stepName="a", subagentRunId="s1"),
        ],
        "S2",
        "STEP_FINISHED",
        {"step_name": "a", "subagent_run_id": "s1", "owner": None},
    ),
    Case(
        "S3 step never started",
        [rs(), ev("STEP_FINISHED", stepName="a")],
        "S3",
        "STEP_FINISHED",
        {"step_name": "a", "subagent_run_id": None},
    ),
    # -- G: reasoning ---------------------------------------------------------------------
    Case(
        "G5 legal: span and message share an id, encrypted value",
        [
            rs(),
            ev("REASONING_START", messageId="r1"),
            ev("REASONING_MESSAGE_START", messageId="r1", role="reasoning"),
            ev("REASONING_MESSAGE_CONTENT", messageId="r1", delta="think"),
            ev("REASONING_MESSAGE_END", messageId="r1"),
            ev("REASONING_END", messageId="r1"),
            ev("REASONING_ENCRYPTED_VALUE", subtype="message", entityId="r1", encryptedValue="enc"),
            rf(),
        ],
    ),
    Case(
        "G1 span already open",
        [rs(), ev("REASONING_START", messageId="r1"), ev("REASONING_START", messageId="r1")],
        "G1",
        "REASONING_START",
        {"message_id": "r1"},
    ),
    Case(
        "G2 message already open",
        [
            rs(),
            ev("REASONING_MESSAGE_START", messageId="r1", role="reasoning"),
            ev("REASONING_MESSAGE_START", messageId="r1", role="reasoning"),
        ],
        "G2",
        "REASONING_MESSAGE_START",
        {"message_id": "r1"},
    ),
    Case(
        "G3 content without start",
        [rs(), ev("REASONING_MESSAGE_CONTENT", messageId="r1", delta="x")],
        "G3",
        "REASONING_MESSAGE_CONTENT",
        {"message_id": "r1"},
    ),
    Case(
        "G3 end without start",
        [rs(), ev("REASONING_MESSAGE_END", messageId="r1")],
        "G3",
        "REASONING_MESSAGE_END",
        {"message_id": "r1"},
    ),
    Case(
        "G4 span end without start",
        [rs(), ev("REASONING_END", messageId="r1")],
        "G4",
        "REASONING_END",
        {"message_id": "r1"},
    ),
    # -- A: subagents ---------------------------------------------------------------------
    Case(
        "A legal: nested subagents, attribution-only tags",
        [
            rs(),
            SUB_START,
            ev("SUBAGENT_STARTED", subagentRunId="s2", name="n", parentSubagentRunId="s1"),
            ev("SUBAGENT_ERROR", subagentRunId="s2", message="x"),
            SUB_DONE,
            *text("m9", subagentRunId="s7"),
            rf(),
        ],
    ),
    Case(
        "A2 subagent already active",
        [rs(), SUB_START, SUB_START],
        "A2",
        "SUBAGENT_STARTED",
        {"subagent_run_id": "s1"},
    ),
    Case(
        "A3 subagent id reused",
        [rs(), SUB_START, SUB_DONE, SUB_START],
        "A3",
        "SUBAGENT_STARTED",
        {"subagent_run_id": "s1"},
    ),
    Case(
        "A4 unknown parent subagent",
        [rs(), ev("SUBAGENT_STARTED", subagentRunId="s2", name="n", parentSubagentRunId="s1")],
        "A4",
        "SUBAGENT_STARTED",
        {"subagent_run_id": "s2", "parent_subagent_run_id": "s1"},
    ),
    Case(
        "A6 finish unknown subagent",
        [rs(), SUB_DONE],
        "A6",
        "SUBAGENT_FINISHED",
        {"subagent_run_id": "s1"},
    ),
    Case(
        "A6 error for unknown subagent",
        [rs(), ev("SUBAGENT_ERROR", subagentRunId="s1", message="x")],
        "A6",
        "SUBAGENT_ERROR",
        {"subagent_run_id": "s1"},
    ),
    # -- O: ownership ---------------------------------------------------------------------
    Case(
        "O legal: untagged continuations and inherited tool owner",
        [
            rs(),
            ev("TEXT_MESSAGE_START", messageId="m1", subagentRunId="s1"),
            ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="x"),
            ev("TEXT_MESSAGE_END", messageId="m1", subagentRunId="s1"),
            *tool("c1", parentMessageId="m1"),
            ev(
                "REASONING_ENCRYPTED_VALUE",
                subtype="tool-call",
                entityId="c1",
                encryptedValue="e",
                subagentRunId="s1",
            ),
            rf(),
        ],
    ),
    Case(
        "O1 tagged content on a parent message",
        [
            rs(),
            ev("TEXT_MESSAGE_START", messageId="m1"),
            ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="x", subagentRunId="s1"),
        ],
        "O1",
        "TEXT_MESSAGE_CONTENT",
        {"entity_id": "m1", "subagent_run_id": "s1", "owner": None},
    ),
    Case(
        "O1 reopen under another subagent",
        [
            rs(),
            *text("m1", subagentRunId="s1"),
            ev("TEXT_MESSAGE_START", messageId="m1", subagentRunId="s2"),
        ],
        "O1",
        "TEXT_MESSAGE_START",
        {"entity_id": "m1", "subagent_run_id": "s2", "owner": "s1"},
    ),
    Case(
        "O1 encrypted value for another owner's tool call",
        [
            rs(),
            *tool("c1", subagentRunId="s1"),
            ev(
                "REASONING_ENCRYPTED_VALUE",
                subtype="tool-call",
                entityId="c1",
                encryptedValue="e",
                subagentRunId="s2",
            ),
        ],
        "O1",
        "REASONING_ENCRYPTED_VALUE",
        {"entity_id": "c1", "subagent_run_id": "s2", "owner": "s1"},
    ),
    Case(
        "O1 activity delta from another owner",
        [
            rs(),
            ev("ACTIVITY_SNAPSHOT", messageId="a1", activityType="plan", content={"x": 1}),
            ev(
                "ACTIVITY_DELTA",
                messageId="a1",
                activityType="plan",
                subagentRunId="s1",
                patch=[{"op": "replace", "path": "/x", "value": 2}],
            ),
        ],
        "O1",
        "ACTIVITY_DELTA",
        {"entity_id": "a1", "subagent_run_id": "s1", "owner": None},
    ),
    Case(
        "O1 seeded snapshot owner",
        [
            rs(),
            ev(
                "MESSAGES_SNAPSHOT",
                messages=[{"id": "m1", "role": "assistant", "content": "x", "subagentRunId": "s1"}],
            ),
            ev("TEXT_MESSAGE_START", messageId="m1", subagentRunId="s2"),
        ],
        "O1",
        "TEXT_MESSAGE_START",
        {"entity_id": "m1", "subagent_run_id": "s2", "owner": "s1"},
    ),
    Case(
        "O2 tool call tag differs from its parent message",
        [
            rs(),
            ev("TEXT_MESSAGE_START", messageId="m1", subagentRunId="s1"),
            ev(
                "TOOL_CALL_START",
                toolCallId="c1",
                toolCallName="f",
                parentMessageId="m1",
                subagentRunId="s2",
            ),
        ],
        "O2",
        "TOOL_CALL_START",
        {"tool_call_id": "c1", "parent_message_id": "m1", "subagent_run_id": "s2", "owner": "s1"},
    ),
    Case(
        "O3 untagged reopen under a differently-owned parent",
        [
            rs(),
            *tool("c1", subagentRunId="s1"),
            *text("m2"),
            ev("TOOL_CALL_START", toolCallId="c1", toolCallName="search", parentMessageId="m2"),
        ],
        "O3",
        "TOOL_CALL_START",
        {"tool_call_id": "c1", "parent_message_id": "m2", "owner": "s1", "parent_owner": None},
    ),
    # -- F: RUN_FINISHED preconditions ----------------------------------------------------
    Case(
        "F1 open step",
        [
            rs(),
            ev("STEP_STARTED", stepName="a"),
            ev("STEP_STARTED", stepName="b", subagentRunId="s1"),
            rf(),
        ],
        "F1",
        "RUN_FINISHED",
        {"open": ["a", "b (subagent 's1')"]},
    ),
    Case(
        "F2 open text",
        [rs(), ev("TEXT_MESSAGE_START", messageId="m1"), rf()],
        "F2",
        "RUN_FINISHED",
        {"open": ["m1"]},
    ),
    Case(
        "F3 open reasoning message",
        [rs(), ev("REASONING_MESSAGE_START", messageId="r1", role="reasoning"), rf()],
        "F3",
        "RUN_FINISHED",
        {"open": ["r1"]},
    ),
    Case(
        "F4 open reasoning span",
        [rs(), ev("REASONING_START", messageId="r1"), rf()],
        "F4",
        "RUN_FINISHED",
        {"open": ["r1"]},
    ),
    Case("F5 open tool call", [rs(), tool("c1")[0], rf()], "F5", "RUN_FINISHED", {"open": ["c1"]}),
    Case("F6 active subagent", [rs(), SUB_START, rf()], "F6", "RUN_FINISHED", {"open": ["s1"]}),
]


def _user(message_id: str, content: Any = "hi", **extra: Any) -> Event:
    return {"id": message_id, "role": "user", "content": content, **extra}


# Streams for the reducer, chunk expansion and compatibility stages: run through our pipeline
# and the TypeScript client, which must agree on acceptance, messages and state.
PIPELINE_STREAMS: dict[str, list[Event]] = {
    "tool results go after their assistant message, in order": [
        rs(),
        *text("m1"),
        *tool("c1", parentMessageId="m1"),
        *tool("c2", parentMessageId="m1"),
        *text("m2"),
        ev("TOOL_CALL_RESULT", messageId="t1", toolCallId="c1", content="one"),
        ev(
            "TOOL_CALL_RESULT",
            messageId="t2",
            toolCallId="c2",
            content=[{"type": "text", "text": "two"}],
            metadata={"k": 1},
        ),
        ev("TOOL_CALL_RESULT", messageId="t3", toolCallId="nobody", content="orphan"),
        rf(),
    ],
    "tool call start is idempotent and renames": [
        rs(),
        *tool("c1", name="a", metadata={"x": 1}),
        ev("TOOL_CALL_START", toolCallId="c1", toolCallName="b", metadata={"y": 2}),
        ev("TOOL_CALL_ARGS", toolCallId="c1", delta="[1]", metadata={"z": 3}),
        ev("TOOL_CALL_END", toolCallId="c1"),
        rf(),
    ],
    "tool call parents: missing, non-assistant": [
        rs(),
        *text("u1"),
        ev("MESSAGES_SNAPSHOT", messages=[_user("u1")]),
        *tool("c1", parentMessageId="u1"),
        *tool("c2", parentMessageId="new", subagentRunId="s1"),
        rf(),
    ],
    "text start reuses a message and merges metadata": [
        rs(),
        *tool("c1", parentMessageId="m1"),
        ev("TEXT_MESSAGE_START", messageId="m1", metadata={"a": 1}),
        ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="x", metadata={"b": 2}),
        ev("TEXT_MESSAGE_END", messageId="m1", metadata={"a": 3}),
        rf(),
    ],
    "text roles and names": [
        rs(),
        ev("TEXT_MESSAGE_START", messageId="m1", role="user", name="bob"),
        ev("TEXT_MESSAGE_END", messageId="m1"),
        ev("TEXT_MESSAGE_START", messageId="m2", subagentRunId="s1"),
        ev("TEXT_MESSAGE_END", messageId="m2"),
        rf(),
    ],
    "state snapshot and deltas, failing patch skipped": [
        rs(),
        ev("STATE_SNAPSHOT", snapshot={"a": {"b": [1, 2]}, "n": None}),
        ev(
            "STATE_DELTA",
            delta=[
                {"op": "add", "path": "/a/b/-", "value": 3},
                {"op": "move", "from": "/n", "path": "/m"},
                {"op": "copy", "from": "/a", "path": "/c"},
                {"op": "test", "path": "/a/b/0", "value": 1},
            ],
        ),
        ev(
            "STATE_DELTA",
            delta=[{"op": "remove", "path": "/a/b/0"}, {"op": "test", "path": "/c", "value": 5}],
        ),
        ev("STATE_DELTA", delta=[{"op": "replace", "path": "/missing", "value": 1}]),
        ev("STATE_DELTA", delta=[{"op": "replace", "path": "/c/b/1", "value": "two"}]),
        rf(),
    ],
    "state snapshot of a non-object": [
        rs(),
        ev("STATE_SNAPSHOT", snapshot=[1, 2]),
        ev("STATE_DELTA", delta=[{"op": "add", "path": "/0", "value": 0}]),
        ev("STATE_SNAPSHOT", snapshot=None),
        rf(),
    ],
    "messages snapshot merge keeps client-only messages": [
        rs(),
        ev("ACTIVITY_SNAPSHOT", messageId="a1", activityType="plan", content={"s": 1}),
        ev("REASONING_MESSAGE_START", messageId="r1", role="reasoning"),
        ev("REASONING_MESSAGE_CONTENT", messageId="r1", delta="hm"),
        ev("REASONING_MESSAGE_END", messageId="r1"),
        *text("m1"),
        *text("m2"),
        ev(
            "MESSAGES_SNAPSHOT",
            messages=[_user("u0"), {"id": "m2", "role": "assistant", "content": "new"}],
        ),
        rf(),
    ],
    # 1.1's strip-with-warning rule: the message goes, the stream stays (TypeScript: "Removed
    # unrecognised material at '/messages/1'"); a role missing or not a string counts too.
    "messages snapshot with messages of unknown roles": [
        rs(),
        ev(
            "MESSAGES_SNAPSHOT",
            messages=[
                _user("u0"),
                {"id": "b1", "role": "bot", "content": "from a newer protocol"},
                {"id": "b2", "content": "no role"},
                {"id": "b3", "role": 5},
                {"id": "m1", "role": "assistant", "content": "kept"},
            ],
        ),
        rf(),
    ],
    "run input with a message of an unknown role": [
        ev(
            "RUN_STARTED",
            threadId="t",
            runId="r1",
            input={
                "threadId": "t",
                "runId": "r1",
                "messages": [{"id": "b1", "role": "bot", "content": "x"}, _user("u0")],
                "tools": [],
                "context": [],
                "state": {},
                "forwardedProps": {},
            },
        ),
        rf(),
    ],
    "messages snapshot with a known role and wrong fields fails": [
        rs(),
        ev("MESSAGES_SNAPSHOT", messages=[{"id": "u1", "role": "user"}]),
        rf(),
    ],
    "messages snapshot owning activity types": [
        rs(),
        ev("ACTIVITY_SNAPSHOT", messageId="a1", activityType="plan", content={}),
        ev("ACTIVITY_SNAPSHOT", messageId="a2", activityType="search", content={}),
        ev(
            "MESSAGES_SNAPSHOT",
            messages=[],
            metadata={"@ag-ui/client": {"authoritativeActivityTypes": ["plan"]}},
        ),
        ev("ACTIVITY_SNAPSHOT", messageId="a3", activityType="x", content={}),
        ev(
            "MESSAGES_SNAPSHOT",
            messages=[{"id": "a4", "role": "activity", "activityType": "y", "content": {}}],
        ),
        rf(),
    ],
    "messages snapshot authority null and invalid": [
        rs(),
        ev("ACTIVITY_SNAPSHOT", messageId="a1", activityType="plan", content={}),
        ev("MESSAGES_SNAPSHOT", messages=[], metadata={"@ag-ui/client": "bad"}),
        ev(
            "MESSAGES_SNAPSHOT",
            messages=[],
            metadata={"@ag-ui/client": {"authoritativeActivityTypes": None}},
        ),
        rf(),
    ],
    "activity snapshot and delta rows": [
        rs(),
        ev(
            "ACTIVITY_SNAPSHOT",
            messageId="a1",
            activityType="plan",
            content={"steps": [1]},
            subagentRunId="s1",
            metadata={"m": 1},
        ),
        ev(
            "ACTIVITY_SNAPSHOT",
            messageId="a1",
            activityType="plan2",
            content={"x": 1},
            replace=False,
            metadata={"n": 2},
        ),
        ev(
            "ACTIVITY_DELTA",
            messageId="a1",
            activityType="plan3",
            patch=[{"op": "add", "path": "/steps/-", "value": 2}],
            metadata={"o": 3},
        ),
        ev(
            "ACTIVITY_DELTA",
            messageId="a1",
            activityType="plan4",
            patch=[{"op": "remove", "path": "/nope"}],
            metadata={"p": 4},
        ),
        ev("ACTIVITY_DELTA", messageId="zz", activityType="plan", patch=[]),
        ev("ACTIVITY_SNAPSHOT", messageId="a1", activityType="plan5", content={"y": 1}),
        *text("m1"),
        ev("ACTIVITY_SNAPSHOT", messageId="m1", activityType="p", content={}, replace=False),
        ev("ACTIVITY_SNAPSHOT", messageId="m1", activityType="p", content={"over": 1}),
        rf(),
    ],
    "reasoning messages and encrypted values": [
        rs(),
        ev("REASONING_START", messageId="rs"),
        ev(
            "REASONING_MESSAGE_START",
            messageId="r1",
            role="reasoning",
            subagentRunId="s1",
            metadata={"a": 1},
        ),
        ev("REASONING_MESSAGE_CONTENT", messageId="r1", delta="a"),
        ev("REASONING_MESSAGE_CONTENT", messageId="r1", delta="b"),
        ev("REASONING_MESSAGE_END", messageId="r1"),
        ev("REASONING_END", messageId="rs"),
        ev("REASONING_ENCRYPTED_VALUE", subtype="message", entityId="r1", encryptedValue="E1"),
        *tool("c1"),
        ev("REASONING_ENCRYPTED_VALUE", subtype="tool-call", entityId="c1", encryptedValue="E2"),
        ev("REASONING_ENCRYPTED_VALUE", subtype="message", entityId="none", encryptedValue="E3"),
        rf(),
    ],
    "run input messages are appended once": [
        {
            **rs(),
            "input": {
                "threadId": "t",
                "runId": "r1",
                "messages": [
                    _user("u1"),
                    {
                        "id": "a1",
                        "role": "assistant",
                        "toolCalls": [
                            {
                                "id": "c9",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    },
                    _user("u1", "dup"),
                ],
            },
        },
        *text("m1"),
        rf(),
        {
            **rs("r2"),
            "input": {"threadId": "t", "runId": "r2", "messages": [_user("u1", "x"), _user("u2")]},
        },
        rf("r2"),
    ],
    "run finished outcomes": [
        rs(),
        *tool("c1"),
        *tool("c2"),
        ev("TOOL_CALL_RESULT", messageId="t1", toolCallId="c1", content="ok"),
        rf(result={"answer": 42}),
        rs("r2"),
        rf("r2", outcome={"type": "interrupt", "interrupts": [{"id": "i1", "reason": "ask"}]}),
        rs("r3"),
        rf("r3", outcome={"type": "cancelled"}),
    ],
    "text chunks open, continue and close": [
        rs(),
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="He", metadata={"a": 1}),
        ev("TEXT_MESSAGE_CHUNK", delta="llo", role="assistant"),
        ev("TEXT_MESSAGE_CHUNK", metadata={"usage": 3}),
        ev("TEXT_MESSAGE_CHUNK", messageId="m2", role="user", name="bob"),
        ev("TEXT_MESSAGE_CHUNK", delta="!"),
        ev("STATE_SNAPSHOT", snapshot={"after": "m2 closed"}),
        ev("TEXT_MESSAGE_CHUNK", messageId="m3", rawEvent={"p": 1}),
        rf(),
    ],
    "tool and reasoning chunks": [
        rs(),
        ev(
            "TOOL_CALL_CHUNK", toolCallId="c1", toolCallName="f", parentMessageId="m0", delta='{"a"'
        ),
        ev("TOOL_CALL_CHUNK", delta=":1}"),
        ev("REASONING_MESSAGE_CHUNK", messageId="r1", delta="think"),
        ev("REASONING_MESSAGE_CHUNK", delta="ing"),
        ev("TOOL_CALL_CHUNK", toolCallId="c2", toolCallName="g"),
        rf(),
    ],
    "chunk lanes per subagent": [
        rs(),
        ev("TEXT_MESSAGE_CHUNK", messageId="p1", delta="parent "),
        ev("TEXT_MESSAGE_CHUNK", messageId="s1m", delta="sub ", subagentRunId="s1"),
        ev("TEXT_MESSAGE_CHUNK", delta="more"),
        ev("TEXT_MESSAGE_CHUNK", delta="too", subagentRunId="s1"),
        ev("STEP_STARTED", stepName="x", subagentRunId="s1"),
        ev("TEXT_MESSAGE_CHUNK", messageId="p1", delta="!"),
        ev("STEP_FINISHED", stepName="x", subagentRunId="s1"),
        rf(),
    ],
    "chunk errors: first chunk without id": [rs(), ev("TEXT_MESSAGE_CHUNK", delta="x")],
    "chunk errors: tool chunk without name": [rs(), ev("TOOL_CALL_CHUNK", toolCallId="c1")],
    "chunk errors: role disagrees": [
        rs(),
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="x"),
        ev("TEXT_MESSAGE_CHUNK", role="user", delta="y"),
    ],
    "chunk errors: tag disagrees with the open stream": [
        rs(),
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="x", subagentRunId="s1"),
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="y", subagentRunId="s2"),
    ],
    "chunk errors: ambiguous lane": [
        rs(),
        ev("TEXT_MESSAGE_CHUNK", messageId="a", delta="x", subagentRunId="s1"),
        ev("TEXT_MESSAGE_CHUNK", messageId="b", delta="x", subagentRunId="s2"),
        ev("TEXT_MESSAGE_CHUNK", delta="?"),
    ],
    "chunk left open at the end of the stream": [
        rs(),
        ev("TEXT_MESSAGE_CHUNK", messageId="m1", delta="x"),
    ],
    "legacy nulls are read as absent": [
        {**rs(), "rawEvent": None},
        ev("TOOL_CALL_START", toolCallId="c1", toolCallName="f", parentMessageId=None),
        ev("TOOL_CALL_END", toolCallId="c1"),
        rf(result=None, outcome=None),
    ],
    "legacy binary parts become media parts": [
        rs(),
        ev(
            "MESSAGES_SNAPSHOT",
            messages=[
                _user(
                    "u1",
                    [
                        {"type": "text", "text": "look"},
                        {
                            "type": "binary",
                            "mimeType": "image/png",
                            "data": "AAA",
                            "filename": "a.png",
                        },
                        {"type": "binary", "mimeType": "application/pdf", "url": "https://x/y.pdf"},
                        {
                            "type": "image",
                            "source": {"type": "data", "value": "BBB", "mimeType": "image/png"},
                        },
                        {"type": "binary", "mimeType": "image/png", "data": "BBB"},
                    ],
                )
            ],
        ),
        rf(),
    ],
    "unknown event types and fields are skipped": [
        rs(),
        ev("FUTURE_EVENT", payload=1),
        ev("TEXT_MESSAGE_START", messageId="m1", futureField=True),
        ev("TEXT_MESSAGE_CONTENT", messageId="m1", delta="x", extra={"a": 1}),
        ev("TEXT_MESSAGE_END", messageId="m1"),
        rf(),
    ],
    "legacy run input: nulls and binary parts": [
        {
            **rs(),
            "input": {
                "threadId": "t",
                "runId": "r1",
                "forwardedProps": None,
                "tools": [{"name": "f", "description": "d", "parameters": None}],
                "messages": [
                    _user(
                        "u1",
                        [
                            {"type": "binary", "mimeType": "audio/wav", "data": "QQ"},
                            {
                                "type": "image",
                                "source": {"type": "url", "value": "https://i"},
                                "metadata": None,
                            },
                        ],
                    )
                ],
            },
        },
        rf(),
    ],
    "null on an optional field is rejected": [
        rs(),
        ev("TEXT_MESSAGE_START", messageId="m1", metadata=None),
    ],
    "null name is rejected": [rs(), ev("TEXT_MESSAGE_START", messageId="m1", name=None)],
}
