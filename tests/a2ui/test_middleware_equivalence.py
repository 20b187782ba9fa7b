"""What ``Surface`` paints equals what the official ``@ag-ui/a2ui-middleware`` (npm, in Node,
over ``@ag-ui/client`` 1.0.0) paints from the same operations in a tool result: the
fixed-schema path of issue 40, one surface per call and several."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ag_ui.a2ui import Surface, component, operations_result, recovery_exhausted_result
from ag_ui.core import ActivitySnapshotEvent, RunAgentInput
from ag_ui.server import RunContext, create_app
from tests.support.servers import serve

INTEROP = Path(__file__).resolve().parents[1] / "interop"
CALL_ID = "call-book-1"


def booking(surface_id: str, *, shared_call: bool = False) -> list[ActivitySnapshotEvent]:
    """The snapshots a Python agent sends for one surface, with ``Surface``."""
    surface = Surface(surface_id, CALL_ID, shared_call=shared_call)
    return [
        surface.components(
            [
                component("root", "Column", children=["title", "go"]),
                component("title", "Text", text={"path": "/title"}),
                component("go", "Button", child="go-label", action={"event": {"name": "book"}}),
                component("go-label", "Text", text="Book"),
            ]
        ),
        surface.data({"title": f"Table at {surface_id}"}),
    ]


def upstream(surface_ids: list[str]) -> Any:
    """An agent whose tool returns ``{"a2ui_operations": [...]}`` and paints nothing itself."""

    async def agent(run_input: RunAgentInput, ctx: RunContext) -> None:
        reply = await ctx.say("Booking.")
        await ctx.call_tool("book_table", {}, tool_call_id=CALL_ID, parent_message_id=reply)
        operations = [
            operation
            for surface_id in surface_ids
            for operation in booking(surface_id)[-1].content["a2ui_operations"]
        ]
        await ctx.tool_result(CALL_ID, operations_result(operations))

    return agent


ATTEMPTS = [{"attempt": 1, "errors": ["no root"]}, {"attempt": 2, "errors": ["no root"]}]


async def gives_up(run_input: RunAgentInput, ctx: RunContext) -> None:
    """A tool whose UI generation failed every attempt."""
    await ctx.call_tool("book_table", {}, tool_call_id=CALL_ID)
    await ctx.tool_result(CALL_ID, recovery_exhausted_result("no valid UI", ATTEMPTS))


def through_middleware(url: str) -> list[dict[str, Any]]:
    node = shutil.which("node")
    assert node is not None, "node is required for the TypeScript peer tests"
    done = subprocess.run(
        [node, str(INTEROP / "ts_a2ui_middleware.mjs"), url],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=INTEROP,
    )
    assert done.returncode == 0, done.stderr
    events: list[dict[str, Any]] = json.loads(done.stdout)
    return [event for event in events if event["type"] == "ACTIVITY_SNAPSHOT"]


def wire(event: ActivitySnapshotEvent) -> dict[str, Any]:
    return event.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.fixture
def one_surface() -> Iterator[str]:
    with serve(create_app(upstream(["booking"]))) as url:
        yield url + "/agent"


@pytest.fixture
def two_surfaces() -> Iterator[str]:
    with serve(create_app(upstream(["paris", "oslo"]))) as url:
        yield url + "/agent"


def test_one_surface_matches_the_middleware(one_surface: str) -> None:
    (theirs,) = through_middleware(one_surface)
    assert theirs["replace"] is True
    assert [next(iter(set(op) - {"version"})) for op in theirs["content"]["a2ui_operations"]] == [
        "createSurface",
        "updateComponents",
        "updateDataModel",
    ]
    ours = wire(booking("booking")[-1])
    assert theirs == ours
    assert ours["messageId"] == f"a2ui-surface-{CALL_ID}"


def test_several_surfaces_in_one_call_match_the_middleware(two_surfaces: str) -> None:
    theirs = through_middleware(two_surfaces)
    ours = [wire(booking(name, shared_call=True)[-1]) for name in ("paris", "oslo")]
    assert theirs == ours
    assert [event["messageId"] for event in ours] == [
        f"a2ui-surface-paris-{CALL_ID}",
        f"a2ui-surface-oslo-{CALL_ID}",
    ]


def test_recovery_exhausted_matches_the_middleware() -> None:
    with serve(create_app(gives_up)) as url:
        (theirs,) = through_middleware(url + "/agent")
    ours = wire(Surface("booking", CALL_ID).failed("no valid UI", attempts=ATTEMPTS))
    assert theirs == ours
    assert ours["content"]["status"] == "failed"
    assert ours["content"]["maxAttempts"] == 2
