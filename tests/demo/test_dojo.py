"""The dojo feature server, scripted: each feature's events as our ``HttpAgent`` receives them
from a real uvicorn on 127.0.0.1 (every stream also passes the verifier with a strict end)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ag_ui.demo import DOJO_FEATURES, create_dojo_app, scripted_dojo_agents
from ag_ui.demo.dojo import DEFAULT_RECIPE, HAIKU
from tests.providers.agui_server import UvicornThread
from tests.providers.runs import Run, client, run_once

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = UvicornThread(create_dojo_app())
    server.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.stop()


def user(text: str) -> dict[str, Any]:
    return {"id": "user-1", "role": "user", "content": text}


def answer(run: Run, content: Any) -> None:
    """The page's answer to the run's (one pending) frontend tool call, as a tool message."""
    call = run.of("TOOL_CALL_START")[-1]
    text = content if isinstance(content, str) else json.dumps(content)
    run.agent.add_message(
        {"id": "tool-1", "role": "tool", "toolCallId": call["toolCallId"], "content": text}
    )


def text(run: Run) -> str:
    return "".join(event["delta"] for event in run.of("TEXT_MESSAGE_CONTENT"))


def arguments(run: Run, name: str) -> Any:
    (call,) = [c for c in run.of("TOOL_CALL_START") if c["toolCallName"] == name]
    deltas = [a["delta"] for a in run.of("TOOL_CALL_ARGS") if a["toolCallId"] == call["toolCallId"]]
    return json.loads("".join(deltas))


def test_every_feature_is_served_at_the_dojo_path(base: str) -> None:
    index = httpx.get(base + "/").json()
    assert index == {"mode": "scripted", "features": [f"/{name}" for name in DOJO_FEATURES]}
    for feature in DOJO_FEATURES:
        capabilities = httpx.get(f"{base}/{feature}/capabilities").json()
        assert capabilities["identity"]["name"] == feature


async def test_agentic_chat_counts_down(base: str) -> None:
    run = await run_once(client(f"{base}/agentic_chat", user("Hey there")))
    assert run.types[0] == "RUN_STARTED"
    assert run.types[-1] == "RUN_FINISHED"
    assert text(run) == "counting down: 10  9  8  7  6  5  4  3  2  1  ✓"


async def test_agentic_chat_changes_the_background_with_the_frontend_tool(base: str) -> None:
    agent = client(f"{base}/agentic_chat", user("Change the background to blue"))
    run = await run_once(agent)
    assert arguments(run, "change_background") == {"background": "blue"}
    assert "TEXT_MESSAGE_START" not in run.types  # the run waits for the page's tool result
    answer(run, "background changed")
    follow_up = await run_once(agent, run_id="run-2")
    assert text(follow_up) == "background changed ✓"


async def test_backend_tool_rendering_streams_the_call_and_its_result(base: str) -> None:
    run = await run_once(client(f"{base}/backend_tool_rendering", user("Weather in Tokyo?")))
    assert arguments(run, "get_weather") == {"city": "Tokyo"}
    (result,) = run.of("TOOL_CALL_RESULT")
    assert json.loads(result["content"])["conditions"] == "sunny"
    assert text(run).startswith("It is sunny in Tokyo")
    assert run.types.index("TOOL_CALL_RESULT") < run.types.index("TEXT_MESSAGE_START")


async def test_human_in_the_loop_carries_on_with_the_steps_the_user_kept(base: str) -> None:
    agent = client(f"{base}/human_in_the_loop", user("Plan a trip to Mars"))
    run = await run_once(agent)
    steps = arguments(run, "generate_task_steps")["steps"]
    assert [s["description"] for s in steps] == [f"Step {n}" for n in range(1, 11)]
    assert {s["status"] for s in steps} == {"enabled"}
    assert len(run.of("TOOL_CALL_ARGS")) == 12  # streamed: opening, ten steps, closing
    steps[1]["status"] = steps[4]["status"] = "disabled"
    answer(run, {"accepted": True, "steps": steps})  # what the dojo's page answers
    follow_up = await run_once(agent, run_id="run-2")
    assert "8 steps" in text(follow_up)
    assert "Step 2," not in text(follow_up)
    assert "Step 1, Step 3" in text(follow_up)


async def test_human_in_the_loop_stops_when_the_plan_is_rejected(base: str) -> None:
    agent = client(f"{base}/human_in_the_loop", user("Plan a trip to Mars"))
    answer(await run_once(agent), {"accepted": False})
    assert "not carry out" in text(await run_once(agent, run_id="run-2"))
    answer(await run_once(agent, run_id="run-3"), "The user rejected the plan")
    assert "not carry out" in text(await run_once(agent, run_id="run-4"))


async def test_agentic_generative_ui_streams_the_plan_as_state(base: str) -> None:
    agent = client(f"{base}/agentic_generative_ui", user("Go to Mars"))
    run = await run_once(agent)
    (snapshot,) = run.of("STATE_SNAPSHOT")
    assert [s["status"] for s in snapshot["snapshot"]["steps"]] == ["pending"] * 10
    deltas = run.of("STATE_DELTA")
    assert [d["delta"] for d in deltas] == [
        [{"op": "replace", "path": f"/steps/{n}/status", "value": "completed"}] for n in range(10)
    ]
    assert [s["status"] for s in agent.state["steps"]] == ["completed"] * 10


async def test_tool_based_generative_ui_writes_a_haiku(base: str) -> None:
    agent = client(f"{base}/tool_based_generative_ui", user("A haiku about frogs"))
    run = await run_once(agent)
    assert arguments(run, "generate_haiku") == HAIKU
    assert len(run.of("TOOL_CALL_ARGS")) == 2
    answer(run, "rendered")
    assert text(await run_once(agent, run_id="run-2")) == "Haiku created"


async def test_shared_state_sends_a_recipe_when_the_page_has_none(base: str) -> None:
    agent = client(f"{base}/shared_state", user("A recipe, please"))
    run = await run_once(agent)
    assert run.of("STATE_SNAPSHOT")[0]["snapshot"] == {"recipe": DEFAULT_RECIPE}
    assert "Lettuce leaves" in text(run)


async def test_shared_state_keeps_what_the_user_edited(base: str) -> None:
    mine = {
        "title": "My wraps",
        "ingredients": [{"icon": "🥔", "name": "Potatoes", "amount": "12"}],
    }
    agent = client(
        f"{base}/shared_state", user("Give me all the ingredients"), state={"recipe": mine}
    )
    run = await run_once(agent)
    # A snapshot, not a delta: the CopilotKit runtime's compaction (dojo._commit).
    assert "STATE_DELTA" not in run.types
    assert len(run.of("STATE_SNAPSHOT")) == 1
    recipe = agent.state["recipe"]
    assert recipe["title"] == "My wraps"
    names = [item["name"] for item in recipe["ingredients"]]
    assert names == ["Potatoes", "chicken breast", "chili powder", "Salt", "Lettuce leaves"]
    assert len(recipe["instructions"]) == 3
    assert "5 ingredients: Potatoes, chicken breast" in text(run)


async def test_predictive_state_updates_stream_the_document_then_ask(base: str) -> None:
    agent = client(f"{base}/predictive_state_updates", user("Write a story about a dog"))
    run = await run_once(agent)
    (predict,) = run.of("CUSTOM")
    assert predict["name"] == "PredictState"
    assert predict["value"] == [
        {"state_key": "document", "tool": "write_document_local", "tool_argument": "document"}
    ]
    document = arguments(run, "write_document_local")["document"]
    assert document.startswith("Once upon a time, there was a dog named ")
    assert len(run.of("TOOL_CALL_ARGS")) > 10  # word by word
    assert arguments(run, "confirm_changes") == {}
    assert run.types.index("CUSTOM") < run.types.index("TOOL_CALL_START")
    answer(run, {"accepted": True})
    follow_up = await run_once(agent, run_id="run-2")
    assert agent.state == {"document": document}
    assert "saved" in text(follow_up)


async def test_predictive_state_updates_leave_a_rejected_document(base: str) -> None:
    agent = client(f"{base}/predictive_state_updates", user("Write a story about a dog"))
    answer(await run_once(agent), {"accepted": False})
    follow_up = await run_once(agent, run_id="run-2")
    assert "STATE_SNAPSHOT" not in follow_up.types
    assert "STATE_DELTA" not in follow_up.types
    assert not agent.state


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(ValueError, match="delay must be at least 0 seconds, got -1"):
        scripted_dojo_agents(delay=-1)


async def test_the_confirmation_is_found_by_its_call_id(base: str) -> None:
    agent = client(f"{base}/predictive_state_updates", user("Write a story about a dog"))
    run = await run_once(agent)
    confirm, document = run.of("TOOL_CALL_START")[1], run.of("TOOL_CALL_START")[0]
    for message_id, call, content in (
        ("tool-1", confirm, {"accepted": True}),
        ("tool-2", document, "closed by the client"),
    ):
        agent.add_message(
            {
                "id": message_id,
                "role": "tool",
                "toolCallId": call["toolCallId"],
                "content": json.dumps(content),
            }
        )
    await run_once(agent, run_id="run-2")
    assert agent.state["document"].startswith("Once upon a time")


async def test_a_second_story_changes_the_dog(base: str) -> None:
    agent = client(f"{base}/predictive_state_updates", user("Write a story about a dog"))
    answer(await run_once(agent), {"accepted": True})
    await run_once(agent, run_id="run-2")
    first = agent.state["document"]
    agent.add_message({"id": "user-2", "role": "user", "content": "Change the dog name"})
    run = await run_once(agent, run_id="run-3")
    second = arguments(run, "write_document_local")["document"]
    dog = re.compile(r"a dog named (\w+)")
    first_dog, second_dog = dog.search(first), dog.search(second)
    assert first_dog is not None
    assert second_dog is not None
    assert first_dog.group(1) != second_dog.group(1)


async def test_an_unchanged_recipe_sends_no_state(base: str) -> None:
    agent = client(f"{base}/shared_state", user("A recipe"), state={"recipe": DEFAULT_RECIPE})
    run = await run_once(agent)
    assert "STATE_SNAPSHOT" not in run.types
    assert "STATE_DELTA" not in run.types
    assert "4 ingredients" in text(run)
