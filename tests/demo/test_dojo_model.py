"""The dojo feature server with ``--model``: each feature is a ``ModelAgent`` over an
OpenAI-compatible endpoint (here the fake provider, on uvicorn like the feature server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ag_ui.demo import DOJO_FEATURES, create_dojo_app
from ag_ui.demo.dojo_model import FEATURE_INSTRUCTIONS
from tests.providers.agui_server import UvicornThread
from tests.providers.fake_provider import CHAT, FakeProvider, Reply
from tests.providers.runs import client, run_once

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


@pytest.fixture
def base(fake: FakeProvider) -> Iterator[str]:
    app = create_dojo_app(model="openai:gpt-4o-mini", base_url=fake.openai_url, api_key="k")
    server = UvicornThread(app)
    server.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.stop()


def user(text: str) -> dict[str, Any]:
    return {"id": "user-1", "role": "user", "content": text}


def system_prompt(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"])


def tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


async def test_the_index_says_which_mode(base: str) -> None:
    async with httpx.AsyncClient() as http:
        index = (await http.get(base + "/")).json()
    assert index == {"mode": "model", "features": [f"/{name}" for name in DOJO_FEATURES]}


async def test_backend_tool_rendering_runs_get_weather_on_the_server(
    base: str, fake: FakeProvider
) -> None:
    fake.queue(
        CHAT, Reply.sse("openai_chat_parallel_tools.sse"), Reply.sse("openai_chat_after_tools.sse")
    )
    run = await run_once(client(f"{base}/backend_tool_rendering", user("Weather in Paris?")))
    assert run.error is None
    results = [json.loads(r["content"]) for r in run.of("TOOL_CALL_RESULT")]
    assert [r["conditions"] for r in results] == ["sunny", "sunny"]
    first, second = fake.bodies(CHAT)
    assert system_prompt(first).startswith(FEATURE_INSTRUCTIONS["backend_tool_rendering"])
    assert tool_names(first) == ["get_weather"]
    assert [m["role"] for m in second["messages"]][-2:] == ["tool", "tool"]


async def test_a_frontend_tool_of_the_page_reaches_the_model(base: str, fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    background = {
        "name": "change_background",
        "description": "Change the page's background",
        "parameters": {"type": "object", "properties": {"background": {"type": "string"}}},
    }
    run = await run_once(client(f"{base}/agentic_chat", user("Make it blue")), tools=[background])
    assert run.error is None
    (body,) = fake.bodies(CHAT)
    assert tool_names(body) == ["change_background"]
    assert system_prompt(body).startswith(FEATURE_INSTRUCTIONS["agentic_chat"])


async def test_shared_state_shows_the_recipe_and_offers_update_state(
    base: str, fake: FakeProvider
) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    recipe = {"recipe": {"title": "Soup", "ingredients": [{"name": "Leek", "amount": "2"}]}}
    run = await run_once(client(f"{base}/shared_state", user("Improve it"), state=recipe))
    assert run.error is None
    (body,) = fake.bodies(CHAT)
    assert "update_state" in tool_names(body)
    assert "Leek" in system_prompt(body)


async def test_predictive_state_updates_announce_the_document_first(
    base: str, fake: FakeProvider
) -> None:
    fake.queue(CHAT, Reply.sse("openai_chat_text.sse"))
    run = await run_once(client(f"{base}/predictive_state_updates", user("Write a story")))
    assert run.error is None
    assert run.types[1] == "CUSTOM"
    assert run.of("CUSTOM")[0]["value"] == [
        {"state_key": "document", "tool": "write_document_local", "tool_argument": "document"}
    ]
    assert "TEXT_MESSAGE_CONTENT" in run.types
