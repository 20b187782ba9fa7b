"""The server's run spans on a real uvicorn server: steps and tool calls, an interrupt, a
failure, the trace id header, a detached run whose reconnecting reader continues its trace,
and the inspector showing each run's trace id."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest
from opentelemetry.trace import StatusCode

from ag_ui.core import (
    Interrupt,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.inspect import Inspector, TurnOptions
from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.telemetry import TRACE_ID_HEADER
from tests.support.servers import serve
from tests.telemetry.conftest import Otel

pytestmark = pytest.mark.anyio

BODY = {
    "threadId": "thread-1",
    "runId": "run-1",
    "messages": [{"id": "u1", "role": "user", "content": "Book it"}],
    "tools": [],
    "context": [],
    "state": {},
}


async def booking(run_input: Any, ctx: Any) -> Any:
    yield RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id)
    yield StepStartedEvent(step_name="plan")
    yield ToolCallStartEvent(tool_call_id="call-1", tool_call_name="book_table")
    yield ToolCallArgsEvent(tool_call_id="call-1", delta='{"people": 2}')
    yield ToolCallEndEvent(tool_call_id="call-1")
    yield StepFinishedEvent(step_name="plan")
    yield RunFinishedEvent(
        thread_id=run_input.thread_id,
        run_id=run_input.run_id,
        outcome=RunFinishedInterruptOutcome(
            interrupts=[Interrupt(id="approve-1", reason="confirmation", tool_call_id="call-1")]
        ),
    )


async def failing(run_input: Any, ctx: Any) -> None:
    await ctx.say("Looking")
    raise RuntimeError("the database is down")


def events_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


async def test_an_interrupted_run_has_step_and_tool_call_spans_and_an_interrupt_event(
    otel: Otel,
) -> None:
    with serve(create_app(booking)) as base:
        async with httpx.AsyncClient() as http:
            response = await http.post(f"{base}/agent", json=BODY)
    assert otel.tree() == [
        ("invoke_agent booking", [("step plan", [("tool_call book_table", [])])])
    ]
    [run] = otel.named("invoke_agent booking")
    assert run.context is not None
    assert response.headers[TRACE_ID_HEADER] == format(run.context.trace_id, "032x")
    assert run.attributes is not None
    assert run.attributes["ag_ui.outcome"] == "interrupt"
    assert run.status.status_code is StatusCode.UNSET
    [interrupt] = run.events
    assert interrupt.name == "ag_ui.interrupt"
    assert dict(interrupt.attributes or {}) == {
        "ag_ui.interrupt.ids": ("approve-1",),
        "ag_ui.interrupt.reasons": ("confirmation",),
    }
    [call] = otel.named("tool_call book_table")
    assert dict(call.attributes or {}) == {
        "gen_ai.tool.name": "book_table",
        "gen_ai.tool.call.id": "call-1",
    }


async def test_a_failed_run_is_an_error_span_with_its_code(otel: Otel) -> None:
    with serve(create_app(failing)) as base:
        async with httpx.AsyncClient() as http:
            response = await http.post(f"{base}/agent", json=BODY)
    assert events_of(response.text)[-1]["code"] == "agent_error"
    [run] = otel.named("invoke_agent failing")
    assert run.status.status_code is StatusCode.ERROR
    assert run.attributes is not None
    assert run.attributes["error.type"] == "agent_error"
    assert run.attributes["ag_ui.outcome"] == "error"
    [error] = run.events
    assert error.name == "ag_ui.run_error"
    assert error.attributes is not None
    assert error.attributes["error.type"] == "agent_error"
    [errors] = otel.points("ag_ui.run.errors")
    assert (errors.value, dict(errors.attributes)) == (1, {"error.type": "agent_error"})
    [duration] = otel.points("ag_ui.run.duration")
    assert dict(duration.attributes) == {
        "gen_ai.agent.name": "failing",
        "ag_ui.outcome": "error",
        "error.type": "agent_error",
    }


async def test_a_reconnecting_reader_continues_the_detached_runs_trace(otel: Otel) -> None:
    store = InMemoryRunStore()
    with serve(create_app(booking, store=store)) as base:
        async with httpx.AsyncClient() as http:
            started = await http.post(f"{base}/agent", json=BODY)
            key = started.headers["ag-ui-resume-key"]
            resumed = await http.get(
                f"{base}/agent/connect",
                params={"runKey": key},
                headers={"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
            )
    assert events_of(resumed.text) == events_of(started.text)
    [run] = otel.named("invoke_agent booking")
    [reader] = otel.named("ag_ui.connect")
    assert run.context is not None
    assert reader.parent is not None
    assert reader.context is not None
    assert reader.attributes is not None
    # One trace: the reader is the run span's child, whichever worker serves it...
    assert reader.parent.span_id == run.context.span_id
    assert reader.context.trace_id == run.context.trace_id
    trace_id = format(run.context.trace_id, "032x")
    assert started.headers[TRACE_ID_HEADER] == resumed.headers[TRACE_ID_HEADER] == trace_id
    # ... linked to the reconnecting caller's own trace.
    [link] = reader.links
    assert format(link.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert run.attributes is not None
    assert run.attributes["ag_ui.detached"] is True
    assert [name for name, _ in otel.tree()] == ["invoke_agent booking"]
    assert sum(point.count for point in otel.points("ag_ui.store.duration")) >= 1


async def test_a_run_continues_a_traceparent_sent_by_any_client(otel: Otel) -> None:
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    with serve(create_app(booking)) as base:
        async with httpx.AsyncClient() as http:
            response = await http.post(f"{base}/agent", json=BODY, headers={"traceparent": parent})
    assert response.headers[TRACE_ID_HEADER] == "4bf92f3577b34da6a3ce929d0e0e4736"
    [run] = otel.named("invoke_agent booking")
    assert run.parent is not None
    assert format(run.parent.span_id, "016x") == "00f067aa0ba902b7"


async def test_the_inspector_shows_each_runs_trace_id(otel: Otel) -> None:
    with serve(create_app(booking)) as base:
        inspector = Inspector(url=f"{base}/agent")
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(inspector.run)
            await anyio.sleep(0)
            session = inspector.new_thread()
            inspector.turn(session.id, TurnOptions(message="Book it"))
            with anyio.fail_after(10):
                while not any(row.type == "RUN_FINISHED" for row in session.rows):
                    await anyio.sleep(0.01)
            tasks.cancel_scope.cancel()
    [run] = otel.named("invoke_agent booking")
    assert run.context is not None
    [info] = session.runs
    assert info.trace_id == format(run.context.trace_id, "032x")
    assert session.detail(0)["traceId"] == info.trace_id
    assert session.detail(1)["traceId"] is None  # shown once, with the run's first event


async def test_a_client_leaving_ends_the_run_span_as_cancelled_and_counts(otel: Otel) -> None:
    async def slow(run_input: Any, ctx: Any) -> None:
        await ctx.say("Thinking")
        await anyio.sleep(30)

    with serve(create_app(slow)) as base:
        async with (
            httpx.AsyncClient() as http,
            http.stream("POST", f"{base}/agent", json=BODY) as response,
        ):
            async for line in response.aiter_lines():
                if "TEXT_MESSAGE_CONTENT" in line:
                    break  # leave mid-run
        with anyio.fail_after(10):
            while not otel.named("invoke_agent slow"):
                await anyio.sleep(0.01)
    [run] = otel.named("invoke_agent slow")
    assert run.attributes is not None
    assert run.attributes["ag_ui.outcome"] == "cancelled"
    assert [event.name for event in run.events] == ["ag_ui.client_disconnected"]
    [left] = otel.points("ag_ui.client.disconnects")
    assert left.value == 1
    assert [point.value for point in otel.points("ag_ui.runs.active")] == [0]


def test_store_latency_is_measured_for_the_run_and_thread_stores(otel: Any, tmp_path: Any) -> None:
    from ag_ui.store import InMemoryRunStore, SqliteThreadStore

    async def agent(run_input: Any, ctx: Any) -> None:
        await ctx.say("kept")

    app = create_app(
        agent,
        store=InMemoryRunStore(),
        threads=SqliteThreadStore(tmp_path / "threads.db"),
        public_thread_history=True,
    )
    with serve(app) as url:
        body = {
            "threadId": "t-store",
            "runId": "r1",
            "messages": [{"id": "u1", "role": "user", "content": "hi"}],
        }
        assert '"RUN_FINISHED"' in httpx.post(url + "/agent", json=body, timeout=20).text
    operations = {
        point.attributes["ag_ui.store.operation"]: point.count
        for point in otel.points("ag_ui.store.duration")
    }
    assert operations["thread_load"] == 1
    assert operations["thread_save"] == 1
    assert operations["append"] >= 1
