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
from tests.demo.chat_replies import text_reply, tool, tool_call_reply
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


def arguments(run: Any, name: str) -> Any:
    (call,) = [c for c in run.of("TOOL_CALL_START") if c["toolCallName"] == name]
    deltas = [a["delta"] for a in run.of("TOOL_CALL_ARGS") if a["toolCallId"] == call["toolCallId"]]
    return json.loads("".join(deltas))


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


async def test_agentic_chat_leaves_change_background_to_the_page(
    base: str, fake: FakeProvider
) -> None:
    fake.queue(CHAT, tool_call_reply("change_background", '{"background":', ' "blue"}'))
    agent = client(f"{base}/agentic_chat", user("Make the background blue"))
    run = await run_once(agent, tools=[tool("change_background", background={"type": "string"})])
    assert run.error is None
    assert arguments(run, "change_background") == {"background": "blue"}
    assert "TOOL_CALL_RESULT" not in run.types  # the page runs it
    assert len(fake.bodies(CHAT)) == 1


async def test_human_in_the_loop_sends_the_steps_kept_back_to_the_model(
    base: str, fake: FakeProvider
) -> None:
    steps = [{"description": f"Step {n}", "status": "enabled"} for n in (1, 2, 3)]
    plan = json.dumps({"steps": steps})
    fake.queue(
        CHAT,
        tool_call_reply("generate_task_steps", plan[:20], plan[20:]),
        text_reply("Doing steps 1 and 3."),
    )
    steps_tool = tool("generate_task_steps", steps={"type": "array"})
    agent = client(f"{base}/human_in_the_loop", user("Plan a trip to Mars"))
    run = await run_once(agent, tools=[steps_tool])
    assert arguments(run, "generate_task_steps") == {"steps": steps}
    call_id = run.of("TOOL_CALL_START")[0]["toolCallId"]
    kept = {"accepted": True, "steps": [steps[0], steps[2]]}
    agent.add_message(
        {"id": "tool-1", "role": "tool", "toolCallId": call_id, "content": json.dumps(kept)}
    )
    follow_up = await run_once(agent, run_id="run-2", tools=[steps_tool])
    assert "".join(e["delta"] for e in follow_up.of("TEXT_MESSAGE_CONTENT")) == (
        "Doing steps 1 and 3."
    )
    answer = fake.bodies(CHAT)[1]["messages"][-1]
    assert answer["role"] == "tool"
    assert json.loads(answer["content"]) == kept


async def test_agentic_generative_ui_writes_the_plan_into_the_state(
    base: str, fake: FakeProvider
) -> None:
    plan = {"steps": [{"description": "Pack", "status": "pending"}]}
    fake.queue(
        CHAT,
        tool_call_reply("update_state", json.dumps({"changes": plan})),
        tool_call_reply(
            "update_state",
            json.dumps({"changes": {"steps": [{**plan["steps"][0], "status": "completed"}]}}),
        ),
        text_reply("Packed."),
    )
    agent = client(f"{base}/agentic_generative_ui", user("Go to Mars"))
    run = await run_once(agent)
    assert run.error is None
    assert len(run.of("STATE_DELTA")) == 2
    assert agent.state == {"steps": [{"description": "Pack", "status": "completed"}]}
    assert "update_state" in tool_names(fake.bodies(CHAT)[0])  # offered with an empty state too


async def test_tool_based_generative_ui_leaves_the_haiku_to_the_page(
    base: str, fake: FakeProvider
) -> None:
    haiku = {
        "japanese": ["古池や", "蛙飛び込む", "水の音"],
        "english": ["An old pond", "A frog", "Splash"],
    }
    fake.queue(CHAT, tool_call_reply("generate_haiku", json.dumps(haiku, ensure_ascii=False)))
    haiku_tool = tool("generate_haiku", japanese={"type": "array"}, english={"type": "array"})
    run = await run_once(
        client(f"{base}/tool_based_generative_ui", user("A haiku")), tools=[haiku_tool]
    )
    assert arguments(run, "generate_haiku") == haiku
    assert system_prompt(fake.bodies(CHAT)[0]).startswith(
        FEATURE_INSTRUCTIONS["tool_based_generative_ui"]
    )


async def test_predictive_state_updates_stream_the_model_s_document(
    base: str, fake: FakeProvider
) -> None:
    fake.queue(
        CHAT,
        tool_call_reply("write_document_local", '{"document": "Once', " upon", ' a time"}'),
    )
    document_tool = tool("write_document_local", document={"type": "string"})
    run = await run_once(
        client(f"{base}/predictive_state_updates", user("Write a story")), tools=[document_tool]
    )
    assert run.types.index("CUSTOM") < run.types.index("TOOL_CALL_START")
    assert arguments(run, "write_document_local") == {"document": "Once upon a time"}
    assert len(run.of("TOOL_CALL_ARGS")) == 3
