"""A Python agent relaying a provider's JSON gets a lone surrogate from ``json.loads`` (a string
cut inside an emoji); sending it must not fail the run (it once ended in ``agent_error``: UTF-8
has no form for it). It goes out as the escape ``\\ud83d`` on SSE and from a run store, and as
U+FFFD in protobuf (whose strings are UTF-8), as the TypeScript encoder writes it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from ag_ui.client import HttpAgent
from ag_ui.core import BaseEvent, CustomEvent
from ag_ui.server import RunContext, create_app
from ag_ui.store import InMemoryRunStore
from tests.support.servers import serve

from .conftest import user_body

pytestmark = pytest.mark.anyio

PROVIDER_TEXT = json.loads('"cut \\ud83d"')  # what json.loads gives: one lone surrogate


async def relay(run_input: Any, ctx: RunContext) -> AsyncIterator[BaseEvent]:
    async with ctx.text_message() as message:
        await message.send(PROVIDER_TEXT)
    yield CustomEvent(name="provider", value={"text": PROVIDER_TEXT})


@pytest.mark.parametrize("store", [False, True], ids=["bound", "stored"])
async def test_the_client_gets_the_string_back_over_sse(store: bool) -> None:
    app = create_app(relay, store=InMemoryRunStore() if store else None)
    with serve(app) as url:
        async with httpx.AsyncClient() as http:
            body = (await http.post(f"{url}/agent", json=user_body("hi"))).text
        agent = HttpAgent(f"{url}/agent")
        agent.add_message({"id": "u1", "role": "user", "content": "hi"})
        result = await agent.run_agent()
    assert '"delta":"cut \\ud83d"' in body
    assert "RUN_ERROR" not in body
    assert result.error is None
    assert agent.messages[-1].content == "cut \ud83d"


async def test_protobuf_carries_the_replacement_character() -> None:
    with serve(create_app(relay)) as url:
        agent = HttpAgent(f"{url}/agent", proto=True)
        agent.add_message({"id": "u1", "role": "user", "content": "hi"})
        events = []
        async with agent.stream() as stream:
            async for event in stream:
                events.append(event)
    assert [e.type.value for e in events][-1] == "RUN_FINISHED"
    assert agent.messages[-1].content == "cut \ufffd"
    (custom,) = [e for e in events if e.type.value == "CUSTOM"]
    assert custom.value == {"text": "cut \ufffd"}


async def test_a_conversation_holding_one_is_sent_again_as_the_escape() -> None:
    # The next run's body carries the assistant message with the lone surrogate.
    with serve(create_app(relay)) as url:
        agent = HttpAgent(f"{url}/agent")
        agent.add_message({"id": "u1", "role": "user", "content": "hi"})
        await agent.run_agent()
        agent.add_message({"id": "u2", "role": "user", "content": "again"})
        result = await agent.run_agent()
    assert result.error is None
    assert [m.content for m in agent.messages].count("cut \ud83d") == 2
