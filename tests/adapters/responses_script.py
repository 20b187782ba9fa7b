"""OpenAI Responses streaming bodies, written in the API's documented wire format, for the fake
provider (``tests.providers.fake_provider``) to answer the Agents SDK's ``OpenAIResponsesModel``.

Each helper is one output item (its ``response.output_item.added`` ... ``done`` events);
``response(...)`` wraps items in ``response.created`` / ``response.completed`` (with usage) and
numbers the events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from tests.providers.fake_provider import Reply


@dataclass
class Item:
    """One output item: its streamed events (without ``output_index``/``sequence_number``)."""

    events: list[dict[str, Any]] = field(default_factory=list)
    done: dict[str, Any] = field(default_factory=dict)


def text(item_id: str, *pieces: str) -> Item:
    whole = "".join(pieces)
    events: list[dict[str, Any]] = [
        {
            "type": "response.output_item.added",
            "item": {
                "id": item_id,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            },
        },
        {
            "type": "response.content_part.added",
            "item_id": item_id,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    events += [
        {
            "type": "response.output_text.delta",
            "item_id": item_id,
            "content_index": 0,
            "delta": piece,
            "logprobs": [],
        }
        for piece in pieces
    ]
    events += [
        {
            "type": "response.output_text.done",
            "item_id": item_id,
            "content_index": 0,
            "text": whole,
            "logprobs": [],
        },
        {
            "type": "response.content_part.done",
            "item_id": item_id,
            "content_index": 0,
            "part": {"type": "output_text", "text": whole, "annotations": []},
        },
    ]
    done = {
        "id": item_id,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": whole, "annotations": []}],
    }
    return Item(events, done)


def call(item_id: str, call_id: str, name: str, *pieces: str) -> Item:
    """A function call whose arguments stream as ``pieces`` (none: they arrive whole, in
    ``response.function_call_arguments.done`` and the item's ``done``)."""
    return _call(item_id, call_id, name, list(pieces))


def whole_call(item_id: str, call_id: str, name: str, arguments: Any) -> Item:
    return _call(item_id, call_id, name, [], whole=json.dumps(arguments))


def _call(
    item_id: str, call_id: str, name: str, pieces: list[str], whole: Optional[str] = None
) -> Item:
    arguments = whole if whole is not None else "".join(pieces)
    item = {"id": item_id, "type": "function_call", "call_id": call_id, "name": name}
    events: list[dict[str, Any]] = [
        {
            "type": "response.output_item.added",
            "item": {**item, "status": "in_progress", "arguments": ""},
        }
    ]
    events += [
        {"type": "response.function_call_arguments.delta", "item_id": item_id, "delta": piece}
        for piece in pieces
    ]
    events.append(
        {
            "type": "response.function_call_arguments.done",
            "item_id": item_id,
            "arguments": arguments,
        }
    )
    return Item(events, {**item, "status": "completed", "arguments": arguments})


def reasoning(item_id: str, *pieces: str) -> Item:
    whole = "".join(pieces)
    events: list[dict[str, Any]] = [
        {
            "type": "response.output_item.added",
            "item": {"id": item_id, "type": "reasoning", "summary": []},
        },
        {
            "type": "response.reasoning_summary_part.added",
            "item_id": item_id,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": ""},
        },
    ]
    events += [
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": item_id,
            "summary_index": 0,
            "delta": piece,
        }
        for piece in pieces
    ]
    events.append(
        {
            "type": "response.reasoning_summary_part.done",
            "item_id": item_id,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": whole},
        }
    )
    done = {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": whole}],
    }
    return Item(events, done)


def _response(response_id: str, model: str, status: str, output: list[Any], usage: Any) -> Any:
    return {
        "id": response_id,
        "object": "response",
        "created_at": 1700000000,
        "model": model,
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage,
    }


def response(
    *items: Item,
    response_id: str = "resp_1",
    model: str = "gpt-5-mini",
    input_tokens: int = 50,
    output_tokens: int = 10,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> Reply:
    """The SSE body of one streamed response holding ``items``, as a fake provider ``Reply``."""
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached_tokens},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }
    events: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": _response(response_id, model, "in_progress", [], None),
        }
    ]
    for index, item in enumerate(items):
        for event in item.events:
            events.append({**event, "output_index": index})
        events.append(
            {"type": "response.output_item.done", "output_index": index, "item": item.done}
        )
    output = [item.done for item in items]
    events.append(
        {
            "type": "response.completed",
            "response": _response(response_id, model, "completed", output, usage),
        }
    )
    body = "".join(
        f"event: {event['type']}\ndata: {json.dumps({**event, 'sequence_number': n})}\n\n"
        for n, event in enumerate(events)
    )
    return Reply(body.encode())
