"""A client pinned to a 1.0 agent (``max_protocol_version="1.0"``) never sends
``encryptedValueType`` (new in 1.1), and says so once; the encrypted values themselves go as
they are. Against a real uvicorn server that keeps what it was sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ag_ui.client import HttpAgent
from ag_ui.client.downgrade import PeerDowngradeWarning
from tests.support.servers import serve

pytestmark = pytest.mark.anyio

RECEIVED: list[dict[str, Any]] = []

HISTORY = [
    {"id": "u1", "role": "user", "content": "think hard"},
    {
        "id": "r1",
        "role": "reasoning",
        "content": "",
        "encryptedValue": "opaque-1",
        "encryptedValueType": "anthropic.redacted_thinking",
    },
    {
        "id": "a1",
        "role": "assistant",
        "toolCalls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "f", "arguments": "{}"},
                "encryptedValue": "opaque-2",
                "encryptedValueType": "openai.encrypted_content",
            }
        ],
    },
    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "ok"},
]


async def keep(request: Request) -> Response:
    body = json.loads(await request.body())
    RECEIVED.append(body)
    frames = [
        {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
        {"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]},
    ]
    text = "".join(f"data: {json.dumps(frame)}\n\n" for frame in frames)
    return Response(text, media_type="text/event-stream")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(Starlette(routes=[Route("/agent", keep, methods=["POST"])])) as base:
        yield base + "/agent"


async def test_a_1_0_agent_gets_the_values_without_their_types(url: str) -> None:
    RECEIVED.clear()
    agent = HttpAgent(url, max_protocol_version="1.0", initial_messages=HISTORY)
    with pytest.warns(PeerDowngradeWarning, match="removing encryptedValueType"):
        await agent.run_agent()
    [sent] = RECEIVED
    assert "encryptedValueType" not in json.dumps(sent)
    assert sent["messages"][1]["encryptedValue"] == "opaque-1"
    assert sent["messages"][2]["toolCalls"][0]["encryptedValue"] == "opaque-2"
    # The client's own conversation keeps the types (only the request is downgraded).
    assert agent.messages[1].encrypted_value_type == "anthropic.redacted_thinking"


async def test_a_1_1_agent_gets_them(url: str) -> None:
    RECEIVED.clear()
    await HttpAgent(url, initial_messages=HISTORY).run_agent()
    [sent] = RECEIVED
    assert sent["messages"][1]["encryptedValueType"] == "anthropic.redacted_thinking"
    assert sent["messages"][2]["toolCalls"][0]["encryptedValueType"] == "openai.encrypted_content"
