"""A large run input is freed a slice at a time by its last holder, and never taken from anyone.

Freeing 150,000 parsed messages at once stalled the worker for 55-68 ms when their run ended.
``release`` takes a list apart from its end, with a turn of the event loop between slices, but
only when its reference count shows nobody else holds it: an agent that kept the messages, or
the whole input, finds them whole after the run, bound to its request or detached.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import httpx
import pytest

from ag_ui.core import RunAgentInput
from ag_ui.server import RunContext, create_app
from ag_ui.server._release import RELEASED_IN_SLICES_ABOVE, SLICE_ITEMS, release
from ag_ui.store import InMemoryRunStore
from tests.support.servers import serve

COUNT = RELEASED_IN_SLICES_ABOVE + 5 * SLICE_ITEMS


async def turns_during_release(items: list[Any]) -> int:
    """Turns a concurrent task got while ``release`` let go of ``items`` (the only holder)."""
    turns = 0
    done = False

    async def count() -> None:
        nonlocal turns
        while not done:
            await anyio.sleep(0)
            turns += 1

    held = [items]
    del items
    async with anyio.create_task_group() as group:
        group.start_soon(count)
        await anyio.sleep(0)
        before = turns
        await release(held)
        after = turns
        done = True
    return after - before


@pytest.mark.anyio
async def test_the_last_holder_of_a_long_list_frees_it_in_slices() -> None:
    turns = await turns_during_release([object() for _ in range(COUNT)])
    assert turns >= COUNT // SLICE_ITEMS - 1  # one turn between two slices


@pytest.mark.anyio
async def test_a_list_someone_else_holds_is_left_whole() -> None:
    kept = [object() for _ in range(COUNT)]
    assert await turns_during_release(kept) == 0
    assert len(kept) == COUNT


@pytest.mark.anyio
async def test_a_short_list_is_let_go_of_at_once() -> None:
    assert await turns_during_release([object() for _ in range(100)]) == 0


def big_body() -> bytes:
    messages = [{"id": f"m{i}", "role": "user", "content": "hi"} for i in range(COUNT)]
    return json.dumps({"threadId": "t", "runId": "r", "messages": messages}).encode()


@pytest.mark.parametrize("detached", [False, True], ids=["request-bound", "detached"])
@pytest.mark.parametrize("keeps", ["messages", "input"])
def test_what_an_agent_keeps_of_a_large_input_stays_whole(detached: bool, keeps: str) -> None:
    kept: list[Any] = []

    async def keeper(run_input: RunAgentInput, ctx: RunContext) -> None:
        kept.append(run_input.messages if keeps == "messages" else run_input)
        await ctx.say("kept")

    store = InMemoryRunStore() if detached else None
    with serve(create_app(keeper, store=store)) as url:
        response = httpx.post(
            f"{url}/agent",
            content=big_body(),
            headers={"content-type": "application/json"},
            timeout=30,
        )
        assert response.status_code == 200
        assert "RUN_FINISHED" in response.text
        time.sleep(0.5)  # a detached run's task ends after the response's last event
    (what,) = kept
    messages = what if keeps == "messages" else what.messages
    assert len(messages) == COUNT
    assert messages[-1].id == f"m{COUNT - 1}"
