"""A Python agent paints an A2UI surface itself (``Surface`` + ``ctx.emit``), served by a real
uvicorn and read by ``HttpAgent``; the thread store keeps the surface so a reload restores it
(issue 40 item 4; in memory, SQLite, a real PostgreSQL), and the wire passes ``verify_a2ui``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ag_ui.a2ui import Surface, component, operations_result
from ag_ui.client import HttpAgent, SubscriberParams
from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.server import RunContext, create_app
from ag_ui.store import (
    InMemoryThreadStore,
    PostgresThreadStore,
    SqliteThreadStore,
    ThreadStore,
)
from ag_ui.verify import verify_a2ui
from tests.postgres_helpers import PostgresServer
from tests.support.servers import serve

pytestmark = pytest.mark.anyio

CATALOG = "example.com:booking"


async def booking_agent(run_input: RunAgentInput, ctx: RunContext) -> None:
    """Calls a render tool, fails validation once, paints, then streams the data in."""
    reply = await ctx.say("Here is a form.")
    call_id = await ctx.call_tool("render_a2ui", {"surfaceId": "booking"}, parent_message_id=reply)
    surface = Surface("booking", call_id, catalog_id=CATALOG)
    await ctx.emit(surface.building())
    await ctx.emit(surface.retrying(2, 3, errors=["component 'root' is missing"]))
    await ctx.emit(
        surface.components(
            [
                component("root", "Column", children=["name", "go"]),
                component("name", "TextField", label="Name", text={"path": "/form/name"}),
                component("go", "Button", child="go-label", action={"event": {"name": "book"}}),
                component("go-label", "Text", text="Book"),
            ]
        )
    )
    await ctx.emit(surface.data({"form": {"name": ""}}))
    await ctx.tool_result(call_id, operations_result(surface.operations))


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def threads(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ThreadStore]:
    if request.param == "memory":
        yield InMemoryThreadStore()
    elif request.param == "sqlite":
        yield SqliteThreadStore(tmp_path / "threads.db")
    else:
        postgres: PostgresServer = request.getfixturevalue("postgres_server")
        url = postgres.database()
        yield PostgresThreadStore(url)
        postgres.drop(url)


@pytest.fixture
def url(threads: ThreadStore) -> Iterator[str]:
    with serve(create_app(booking_agent, threads=threads, public_thread_history=True)) as base:
        yield base + "/agent"


async def test_the_agent_paints_and_a_reload_restores_the_surface(url: str) -> None:
    seen: list[BaseEvent] = []

    def record(params: SubscriberParams) -> None:
        assert params.event is not None
        seen.append(params.event)

    agent = HttpAgent(url, thread_id="book")
    agent.subscribe(on_event=record)
    agent.add_message({"id": "q1", "role": "user", "content": "book a table"})
    await agent.run_agent()

    snapshots = [event for event in seen if event.type.value == "ACTIVITY_SNAPSHOT"]
    assert [list(event.content) for event in snapshots] == [  # type: ignore[attr-defined]
        ["status"],
        ["status", "attempt", "maxAttempts", "errors"],
        ["a2ui_operations"],
        ["a2ui_operations"],
    ]
    assert verify_a2ui(seen) == []

    def surfaces(messages: list[Any]) -> list[dict[str, Any]]:
        return [
            {"id": m.id, "type": m.activity_type, "content": m.content}
            for m in messages
            if m.role == "activity"
        ]

    (painted,) = surfaces(agent.messages)  # one message, replaced in place
    assert painted["type"] == "a2ui-surface"
    assert painted["id"].startswith("a2ui-surface-")
    operations = painted["content"]["a2ui_operations"]
    assert operations[0]["createSurface"] == {"surfaceId": "booking", "catalogId": CATALOG}
    assert operations[-1]["updateDataModel"]["value"] == {"form": {"name": ""}}

    reloaded = HttpAgent(url)
    await reloaded.load_thread("book")
    assert surfaces(reloaded.messages) == [painted]  # with its catalog: the surface repaints
    ids = [m.id for m in reloaded.messages]
    assert ids == [m.id for m in agent.messages]
