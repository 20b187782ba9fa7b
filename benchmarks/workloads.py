"""Workloads shared by the benchmarks. Imports only ``ag_ui.core``/``ag_ui.encoder`` names that
the official package also has, so the same code runs in both venvs."""

from __future__ import annotations

import json
from typing import Any


def stream_mix() -> list[dict[str, Any]]:
    """The realistic stream mix as wire dicts: a run with text, a tool call and state."""
    words = ["Hello", " wörld", ", ", "this", " is", " a", " tést", " 🚀", " of", " streaming"]
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-1", "role": "assistant"},
    ]
    events += [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-1", "delta": words[i % len(words)]}
        for i in range(500)
    ]
    events.append({"type": "TEXT_MESSAGE_END", "messageId": "msg-1"})
    events.append(
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "call-1",
            "toolCallName": "get_weather",
            "parentMessageId": "msg-1",
        }
    )
    events += [
        {
            "type": "TOOL_CALL_ARGS",
            "toolCallId": "call-1",
            # 50 short pieces of one JSON object (the client checks the joined arguments)
            "delta": ("{" if i == 0 else "") + f'"c{i}":"Zür"' + ("," if i < 49 else "}"),
        }
        for i in range(50)
    ]
    events.append({"type": "TOOL_CALL_END", "toolCallId": "call-1"})
    snapshot = {
        "items": [
            {"id": i, "title": f"item {i} ✓", "done": i % 2 == 0, "note": None} for i in range(30)
        ],
        "cursor": "abc",
    }
    assert 1800 < len(json.dumps(snapshot)) < 2600
    events.append({"type": "STATE_SNAPSHOT", "snapshot": snapshot})
    events.append(
        {
            "type": "STATE_DELTA",
            "delta": [
                {"op": "replace", "path": "/cursor", "value": "abd"},
                {
                    "op": "add",
                    "path": "/items/-",
                    "value": {"id": 30, "title": "new", "done": False},
                },
            ],
        }
    )
    events.append({"type": "RUN_FINISHED", "threadId": "thread-1", "runId": "run-1"})
    return events


def run_agent_input_body(n_messages: int) -> bytes:
    """A RunAgentInput request body with ``n_messages`` mixed messages."""
    messages: list[dict[str, Any]] = []
    for i in range(n_messages):
        kind = i % 4
        if kind == 0:
            messages.append({"id": f"u{i}", "role": "user", "content": f"question {i} ü"})
        elif kind == 1:
            messages.append(
                {
                    "id": f"a{i}",
                    "role": "assistant",
                    "content": f"answer {i}",
                    "toolCalls": [
                        {
                            "id": f"c{i}",
                            "type": "function",
                            "function": {"name": "search", "arguments": '{"q": "x"}'},
                        }
                    ],
                }
            )
        elif kind == 2:
            messages.append(
                {"id": f"t{i}", "role": "tool", "content": "result", "toolCallId": f"c{i - 1}"}
            )
        else:
            messages.append({"id": f"s{i}", "role": "system", "content": "be brief"})
    body = {
        "threadId": "thread-1",
        "runId": "run-1",
        "state": {"count": 1},
        "messages": messages,
        "tools": [{"name": "search", "description": "Search", "parameters": {"type": "object"}}],
        "context": [{"description": "locale", "value": "en"}],
        "forwardedProps": {},
    }
    return json.dumps(body).encode()
