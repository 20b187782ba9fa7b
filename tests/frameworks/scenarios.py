"""The conversations every framework app answers the same way (see each app's docstring).

Each scenario is a first request body and, for the two that pause (a frontend tool, an
interrupt), how to build the second one from what the first run left. Shared by the drop-in
tests here and by anyone driving the apps (a conformance grader).
"""

from __future__ import annotations

from typing import Any

FRONTEND_TOOL: dict[str, Any] = {
    "name": "change_color",
    "description": "Changes the page colour (runs in the client).",
    "parameters": {
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "required": ["value"],
    },
}

SCENARIOS: dict[str, dict[str, Any]] = {
    "text": {"text": "hello"},
    "backend_tool": {"text": "weather in Paris"},
    "frontend_tool": {"text": "frontend: change the colour", "tools": [FRONTEND_TOOL]},
    "state": {"text": "state: bump the counter", "state": {"counter": 0}},
    "interrupt": {"text": "book a table for two"},
}
"""name -> user text, plus the tools and state the first request carries."""

FRONTEND_RESULT = "the colour is now blue"
APPROVAL = {"approved": True}


def first_body(name: str, thread_id: str) -> dict[str, Any]:
    scenario = SCENARIOS[name]
    return {
        "threadId": thread_id,
        "runId": f"{thread_id}-r1",
        "messages": [{"id": "u1", "role": "user", "content": scenario["text"]}],
        "tools": scenario.get("tools", []),
        "context": [],
        "state": scenario.get("state", {}),
        "forwardedProps": {},
    }
