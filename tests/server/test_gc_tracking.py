"""A request's plain models are left out of CPython's cyclic collector, until they stop being plain.

``parse_run_input`` untracks every parsed model whose fields are all plain values (strings,
numbers, booleans, ``None``) and every model's fields-set: that is what keeps a full GC pass
short while a large body is held (``benchmarks/bench_big_body.py``). A model holding a list,
a dict or another model stays tracked, and putting such a value in a plain model tracks it
again, so a reference cycle through a parsed message is still collected.
"""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Iterator
from typing import Any, Optional

import httpx
import pytest
from pydantic import BaseModel

from ag_ui.core import AssistantMessage, CustomEvent, RunAgentInput, UserMessage
from ag_ui.core.decoding import parse_run_agent_input
from ag_ui.server import RunContext, create_app
from ag_ui.server._sliced_parse import SLICED_ABOVE, parse_run_input
from tests.support.servers import serve
from tests.support.sse import sse_events

pytestmark = pytest.mark.anyio


def body(count: int) -> bytes:
    messages: list[dict[str, Any]] = []
    for i in range(count):
        messages.append({"id": f"u{i}", "role": "user", "content": "hi"})
        messages.append(
            {
                "id": f"a{i}",
                "role": "assistant",
                "toolCalls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                    }
                ],
            }
        )
        messages.append(
            {"id": f"p{i}", "role": "user", "content": [{"type": "text", "text": "look"}]}
        )
        messages.append({"id": f"s{i}", "role": "system", "content": "be brief", "note": "x"})
        messages.append({"id": f"d{i}", "role": "user", "content": "hi", "metadata": {"k": 1}})
    return json.dumps({"threadId": "t", "runId": "r", "messages": messages}).encode()


SIZES = pytest.mark.parametrize("count", [1, 300], ids=["one-call", "sliced"])


def models_in(value: Any) -> Iterator[BaseModel]:
    if isinstance(value, BaseModel):
        yield value
        for field in value.__dict__.values():
            yield from models_in(field)
    elif isinstance(value, list):
        for item in value:
            yield from models_in(item)


@SIZES
async def test_plain_models_and_every_fields_set_are_untracked_the_rest_stays_tracked(
    count: int,
) -> None:
    data = body(count)
    assert (len(data) > SLICED_ABOVE) == (count > 1)
    run_input = await parse_run_input(data)
    models = list(models_in(run_input.messages))
    assert len(models) == 8 * count  # 5 messages, a tool call, its function, a text part
    assert not any(gc.is_tracked(model.__pydantic_fields_set__) for model in models)
    tracked = {type(m).__name__ for m in models if gc.is_tracked(m)}
    assert {type(m).__name__ for m in models if not gc.is_tracked(m)} == {
        "UserMessage",  # "hi" only; the one with metadata and the one with parts stay tracked
        "SystemMessage",  # its extra field is a string
        "FunctionCall",
        "TextPart",
    }
    assert tracked == {"UserMessage", "AssistantMessage", "ToolCall"}
    first, _, with_parts, _, with_metadata = run_input.messages[:5]
    assert not gc.is_tracked(first)
    assert gc.is_tracked(with_parts)
    assert gc.is_tracked(with_metadata)
    assert gc.is_tracked(run_input)


@SIZES
def test_the_agent_behind_uvicorn_gets_the_untracked_models(count: int) -> None:
    async def report(run_input: RunAgentInput, ctx: RunContext) -> None:
        first, assistant = run_input.messages[0], run_input.messages[1]
        await ctx.emit(
            CustomEvent(
                name="tracked",
                value={
                    "plain": gc.is_tracked(first),
                    "fieldsSet": gc.is_tracked(first.__pydantic_fields_set__),
                    "withToolCalls": gc.is_tracked(assistant),
                },
            )
        )

    with serve(create_app(report)) as url:
        response = httpx.post(
            f"{url}/agent",
            content=body(count),
            headers={"content-type": "application/json"},
            timeout=30,
        )
    assert response.status_code == 200
    (tracked,) = [e["value"] for e in sse_events(response.text) if e.get("name") == "tracked"]
    assert tracked == {"plain": False, "fieldsSet": False, "withToolCalls": True}


async def test_a_large_body_of_plain_messages_adds_next_to_nothing_to_the_collectors_lists() -> (
    None
):
    count = 20_000
    data = json.dumps(
        {
            "threadId": "t",
            "runId": "r",
            "messages": [{"id": f"m{i}", "role": "user", "content": "hi"} for i in range(count)],
        }
    ).encode()
    gc.collect()
    before = len(gc.get_objects())
    run_input = await parse_run_input(data)
    gc.collect()
    added = len(gc.get_objects()) - before
    assert len(run_input.messages) == count
    assert added < 0.01 * count, added  # the plain parse adds 2 per message


@SIZES
async def test_the_models_are_those_of_the_plain_parse_and_still_record_assignments(
    count: int,
) -> None:
    data = body(count)
    ours, plain = await parse_run_input(data), parse_run_agent_input(data)
    assert ours == plain
    assert ours.model_dump(exclude_unset=True) == plain.model_dump(exclude_unset=True)
    first = ours.messages[0]
    assert isinstance(first, UserMessage)
    assert "name" not in first.model_fields_set
    first.name = "ada"
    assert "name" in first.model_fields_set
    assert first.model_dump(exclude_unset=True, by_alias=True)["name"] == "ada"
    assert not gc.is_tracked(first)  # a string keeps it plain
    assistant = ours.messages[1]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.tool_calls
    assistant.tool_calls[0].function.arguments = '{"a": 1}'
    dumped = assistant.model_dump(exclude_unset=True, by_alias=True)
    assert dumped["toolCalls"][0]["function"]["arguments"] == '{"a": 1}'


@SIZES
@pytest.mark.parametrize("how", ["field", "extra field"])
async def test_a_cycle_put_in_a_plain_parsed_message_is_still_collected(
    count: int, how: str
) -> None:
    run_input: Optional[RunAgentInput] = await parse_run_input(body(count))
    assert run_input is not None
    message = run_input.messages[0]
    assert not gc.is_tracked(message)
    if how == "field":
        message.metadata = {"self": message}  # what an agent might do: a cycle through it
    else:
        message.seen_by = [message]  # type: ignore[attr-defined]  # extras are allowed
    assert gc.is_tracked(message)
    alive = weakref.ref(message)
    del message, run_input
    gc.collect()
    assert alive() is None


@SIZES
async def test_parsed_models_are_freed_when_the_request_lets_them_go(count: int) -> None:
    run_input: Optional[RunAgentInput] = await parse_run_input(body(count))
    assert run_input is not None
    alive = [weakref.ref(model) for model in models_in(run_input.messages)]
    del run_input  # no collection: reference counting frees them, tracked or not
    assert all(ref() is None for ref in alive)


async def test_threads_putting_containers_in_the_same_plain_message_at_once_do_not_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Tracking an object twice aborts the process, so "is it tracked? then track it" must be
    # one step when several threads assign to the same untracked model. The check is slowed
    # down (it lets the GIL go) so that, without that, the threads would all see it untracked.
    import threading
    import time
    import types

    from ag_ui.core import _gc_tracking

    def slow_is_tracked(value: Any) -> bool:
        tracked = gc.is_tracked(value)
        time.sleep(0.002)
        return tracked

    monkeypatch.setattr(_gc_tracking, "gc", types.SimpleNamespace(is_tracked=slow_is_tracked))
    run_input = await parse_run_input(body(1))
    plain = [m for m in run_input.messages if not gc.is_tracked(m)]
    assert len(plain) == 2
    start = threading.Barrier(4)

    def assign(worker: int) -> None:
        start.wait()
        for message in plain:
            message.metadata = {"worker": [worker]}

    threads = [threading.Thread(target=assign, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(gc.is_tracked(m) for m in plain)
