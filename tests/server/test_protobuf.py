"""Negotiated protobuf responses: length-prefixed frames, no SSE keepalive comments."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ag_ui.core import TextMessageContentEvent
from ag_ui.proto import AGUI_MEDIA_TYPE, FrameDecoder
from ag_ui.server import RunContext, create_app

from .conftest import run_body

pytestmark = pytest.mark.anyio


async def hello(run_input: Any, ctx: RunContext) -> None:
    await ctx.say(["Hel", "lo"], message_id="m1")


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        (AGUI_MEDIA_TYPE, AGUI_MEDIA_TYPE),
        (f"{AGUI_MEDIA_TYPE}, text/event-stream;q=0.5", AGUI_MEDIA_TYPE),
        ("text/event-stream", "text/event-stream"),
        ("*/*", "text/event-stream"),
        (None, "text/event-stream"),
    ],
)
async def test_accept_negotiation(accept: str | None, content_type: str) -> None:
    headers = {"accept": accept} if accept else {}
    app = create_app(hello, keepalive=0.001)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://localhost"
    ) as http:
        response = await http.post("/agent", json=run_body(), headers=headers)
    assert response.headers["content-type"] == content_type
    if content_type != AGUI_MEDIA_TYPE:
        assert response.text.endswith(
            'data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}\n\n'
        )
        return
    # The frame decoder would fail on any SSE comment bytes: keepalives are SSE-only.
    events = FrameDecoder().feed(response.content)
    assert [e.model_dump(by_alias=True, mode="json") for e in events] == [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.0"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        TextMessageContentEvent(message_id="m1", delta="Hel").model_dump(by_alias=True),
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "lo"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]
