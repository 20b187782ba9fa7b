"""Seeded random AG-UI streams (mostly legal) and mutations of them, for differential fuzzing.

Deterministic (``random.Random(seed)``), so a failure reproduces; broad rather than deep: every
event type, subagent tags, chunks in several lanes, snapshots, patches that fail, several runs.
"""

from __future__ import annotations

import copy
import random
from typing import Any

Event = dict[str, Any]

_SUBAGENTS = [None, None, None, "s1", "s2"]


def _tag(tag: str | None) -> dict[str, Any]:
    return {} if tag is None else {"subagentRunId": tag}


class _Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = 0
        self.events: list[Event] = []
        self.tool_calls: list[str] = []
        self.messages: list[str] = []
        self.activities: list[str] = []

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def add(self, **event: Any) -> None:
        self.events.append(event)

    def block(self) -> None:
        rng = self.rng
        tag = rng.choice(_SUBAGENTS)
        kind = rng.choice(
            [
                "text",
                "text",
                "tool",
                "reasoning",
                "step",
                "result",
                "state",
                "activity",
                "chunks",
                "snapshot",
                "subagent",
                "custom",
                "encrypted",
            ]
        )
        if kind == "text":
            mid = self.fresh("m")
            self.add(
                type="TEXT_MESSAGE_START",
                messageId=mid,
                **rng.choice([{}, {"role": "user"}, {"name": "n"}]),
                **_tag(tag),
            )
            for _ in range(rng.randint(0, 3)):
                self.add(
                    type="TEXT_MESSAGE_CONTENT",
                    messageId=mid,
                    delta=rng.choice("ab c"),
                    **rng.choice([{}, _tag(tag), {"metadata": {"k": self.n}}]),
                )
            self.add(type="TEXT_MESSAGE_END", messageId=mid)
            self.messages.append(mid)
        elif kind == "tool":
            cid = self.fresh("c")
            parent = rng.choice([{}, {"parentMessageId": rng.choice(self.messages or ["px"])}])
            self.add(type="TOOL_CALL_START", toolCallId=cid, toolCallName="f", **parent)
            for _ in range(rng.randint(0, 3)):
                self.add(type="TOOL_CALL_ARGS", toolCallId=cid, delta=rng.choice(['{"', "1", "}"]))
            self.add(type="TOOL_CALL_END", toolCallId=cid)
            self.tool_calls.append(cid)
        elif kind == "reasoning":
            rid = self.fresh("r")
            self.add(type="REASONING_START", messageId=rid, **_tag(tag))
            self.add(type="REASONING_MESSAGE_START", messageId=rid, role="reasoning")
            self.add(type="REASONING_MESSAGE_CONTENT", messageId=rid, delta="think")
            self.add(type="REASONING_MESSAGE_END", messageId=rid)
            self.add(type="REASONING_END", messageId=rid)
        elif kind == "step":
            name = rng.choice(["plan", "act"])
            self.add(type="STEP_STARTED", stepName=name, **_tag(tag))
            self.add(type="STEP_FINISHED", stepName=name, **_tag(tag))
        elif kind == "result" and self.tool_calls:
            self.add(
                type="TOOL_CALL_RESULT",
                messageId=self.fresh("t"),
                toolCallId=rng.choice(self.tool_calls),
                content="ok",
                **_tag(tag),
            )
        elif kind == "state":
            if rng.random() < 0.4:
                self.add(type="STATE_SNAPSHOT", snapshot={"n": self.n, "items": []})
            op = rng.choice(
                [
                    {"op": "add", "path": f"/k{self.n}", "value": self.n},
                    {"op": "add", "path": "/items/-", "value": self.n},
                    {"op": "replace", "path": "/n", "value": -1},
                    {"op": "remove", "path": "/nope"},
                    {"op": "test", "path": "/n", "value": 0},
                ]
            )
            self.add(type="STATE_DELTA", delta=[op])
        elif kind == "activity":
            if self.activities and rng.random() < 0.5:
                self.add(
                    type="ACTIVITY_DELTA",
                    messageId=rng.choice(self.activities),
                    activityType="plan",
                    patch=[
                        rng.choice(
                            [
                                {"op": "add", "path": "/x", "value": 1},
                                {"op": "remove", "path": "/gone"},
                            ]
                        )
                    ],
                )
            else:
                aid = self.fresh("a")
                self.add(
                    type="ACTIVITY_SNAPSHOT",
                    messageId=aid,
                    activityType="plan",
                    content={"v": self.n},
                    **rng.choice([{}, {"replace": False}]),
                    **_tag(tag),
                )
                self.activities.append(aid)
        elif kind == "chunks":
            lanes = [None, "s1"] if rng.random() < 0.3 else [tag]
            for lane in lanes:
                chunk = rng.choice(
                    ["TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK", "REASONING_MESSAGE_CHUNK"]
                )
                first = {"type": chunk, **_tag(lane)}
                if chunk == "TOOL_CALL_CHUNK":
                    first.update(toolCallId=self.fresh("c"), toolCallName="g", delta="{")
                else:
                    first.update(messageId=self.fresh("m"), delta="x")
                self.add(**first)
                self.add(type=chunk, delta="y", **_tag(lane))
        elif kind == "snapshot":
            self.add(
                type="MESSAGES_SNAPSHOT",
                messages=[
                    {"id": rng.choice(self.messages or ["u0"]), "role": "user", "content": "s"},
                    {"id": self.fresh("u"), "role": "user", "content": "new"},
                ],
            )
        elif kind == "subagent":
            sid = self.fresh("sub")
            self.add(type="SUBAGENT_STARTED", subagentRunId=sid, name="helper")
            mid = self.fresh("m")
            self.add(type="TEXT_MESSAGE_START", messageId=mid, subagentRunId=sid)
            self.add(type="TEXT_MESSAGE_END", messageId=mid, subagentRunId=sid)
            self.add(type="SUBAGENT_FINISHED", subagentRunId=sid)
        elif kind == "encrypted":
            target = rng.choice([("tool-call", self.tool_calls), ("message", self.messages)])
            if target[1]:
                self.add(
                    type="REASONING_ENCRYPTED_VALUE",
                    subtype=target[0],
                    entityId=rng.choice(target[1]),
                    encryptedValue="E",
                )
        else:
            self.add(type="CUSTOM", name="c", value=self.n)


def legal_stream(seed: int) -> list[Event]:
    rng = random.Random(seed)
    builder = _Builder(rng)
    for run in range(rng.randint(1, 2)):
        builder.add(type="RUN_STARTED", threadId="t", runId=f"r{run}")
        for _ in range(rng.randint(0, 8)):
            builder.block()
        if rng.random() < 0.1:
            builder.add(type="RUN_ERROR", message="boom")
        else:
            builder.add(type="RUN_FINISHED", threadId="t", runId=f"r{run}")
    return builder.events


def mutate(events: list[Event], seed: int) -> list[Event]:
    """A copy with one random change: drop, duplicate, swap, retag or truncate."""
    rng = random.Random(seed)
    out = copy.deepcopy(events)
    if not out:
        return out
    index = rng.randrange(len(out))
    kind = rng.choice(["drop", "duplicate", "swap", "retag", "truncate"])
    if kind == "drop":
        del out[index]
    elif kind == "duplicate":
        out.insert(index, copy.deepcopy(out[index]))
    elif kind == "swap" and index + 1 < len(out):
        out[index], out[index + 1] = out[index + 1], out[index]
    elif kind == "retag" and out[index]["type"] not in (
        "RUN_STARTED",
        "RUN_FINISHED",
        "RUN_ERROR",
        "MESSAGES_SNAPSHOT",
        "SUBAGENT_STARTED",
        "SUBAGENT_FINISHED",
        "SUBAGENT_ERROR",
    ):
        out[index]["subagentRunId"] = rng.choice(["s1", "s2", "s9"])
    else:
        del out[index:]
    return out
