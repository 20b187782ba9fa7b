"""Chat Completions streams written in code, for the fake provider to replay: a tool call
(arguments in fragments) or a text answer; and a frontend tool as a page offers it."""

from __future__ import annotations

import json
from typing import Any

from tests.providers.fake_provider import Reply


def _frame(delta: dict[str, Any], finish: Any = None) -> str:
    chunk = {
        "id": "chatcmpl-dojo",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(chunk)}\n\n"


def tool_call_reply(name: str, *fragments: str) -> Reply:
    """A Chat Completions stream calling ``name`` with its arguments in ``fragments``."""
    first = {"index": 0, "id": f"call_{name}", "type": "function"}
    frames = [_frame({"role": "assistant", "content": None})]
    for index, fragment in enumerate(fragments):
        call = (
            {**first, "function": {"name": name, "arguments": fragment}}
            if index == 0
            else {
                "index": 0,
                "function": {"arguments": fragment},
            }
        )
        frames.append(_frame({"tool_calls": [call]}))
    frames.append(_frame({}, "tool_calls"))
    return Reply(("".join(frames) + "data: [DONE]\n\n").encode())


def text_reply(*fragments: str) -> Reply:
    frames = [_frame({"role": "assistant", "content": ""})]
    frames += [_frame({"content": fragment}) for fragment in fragments]
    frames.append(_frame({}, "stop"))
    return Reply(("".join(frames) + "data: [DONE]\n\n").encode())


def tool(name: str, **properties: Any) -> dict[str, Any]:
    """A frontend tool as the page offers it."""
    schema = {"type": "object", "properties": properties}
    return {"name": name, "description": f"The page's {name}", "parameters": schema}
