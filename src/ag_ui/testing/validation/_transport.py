"""The transport scenarios: cancellation, protobuf, reconnect, concurrency, malformed requests."""

from __future__ import annotations

import uuid
from typing import Optional

import anyio

from ag_ui.testing.assertions import describe_event
from ag_ui.testing.inputs import build_input
from ag_ui.testing.result import RunResult
from ag_ui.testing.validation._report import ScenarioResult
from ag_ui.testing.validation._session import Scenario, Session, same_content

__all__ = ["MALFORMED_REQUESTS", "cancel", "concurrent", "malformed", "proto", "reconnect"]


async def cancel(session: Session) -> ScenarioResult:
    scenario = Scenario("cancel")
    thread = f"thread-{uuid.uuid4().hex[:12]}"
    text = session.message_for("cancel")
    cut = await session.run("cancelled run", text, thread_id=thread, stop_after=1)
    scenario.graded("cancelled run", cut, expect_success=False)
    if cut.status >= 300:
        return scenario.done("the run to cancel was refused")
    early = cut.terminal is not None
    following = await session.run("next run", text, thread_id=thread)
    scenario.graded("next run", following, replace="cancel.next-run")
    if early:
        return scenario.not_exercised(
            "the whole run arrived with its first event, before the client could cancel it",
            f"the next run on the thread finished ({following.outcome})",
        )
    return scenario.done(
        f"closed the connection after {len(cut.events)} event(s); the next run on the same "
        f"thread finished ({following.outcome})"
    )


def _new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:12]}"


def _first_difference(first: RunResult, second: RunResult, index: int) -> str:
    def shown(result: RunResult) -> str:
        return describe_event(result.events[index]) if index < len(result.events) else "(end)"

    return f"event {index}: {shown(first)} / {shown(second)}"


async def proto(session: Session) -> ScenarioResult:
    scenario = Scenario("proto")
    base = build_input(session.message_for("proto"))
    runs: dict[str, RunResult] = {}
    for label, binary in (("SSE run 1", False), ("SSE run 2", False), ("protobuf run", True)):
        # A thread of its own for each run: on a server that keeps threads, a second run on
        # the first's thread continues it, and is not the same input.
        fresh = {"run_id": f"run-{uuid.uuid4().hex[:12]}", "thread_id": _new_thread()}
        run_input = base.model_copy(update=fresh)
        result = await session.run_input(label, run_input, proto=binary)
        scenario.graded(label, result)
        runs[label] = result
    binary_run = runs["protobuf run"]
    if binary_run.status < 300 and not binary_run.proto:
        session.proto_answered = False
        return scenario.not_exercised(
            f"the server answered {binary_run.content_type or 'nothing'} to an Accept that "
            "prefers application/vnd.ag-ui.event+proto (it does not offer protobuf)"
        )
    session.proto_answered = binary_run.status < 300
    sse_difference = same_content(runs["SSE run 1"], runs["SSE run 2"])
    session.deterministic = sse_difference is None
    if sse_difference is not None:
        return scenario.done(
            "protobuf stream graded; content not compared: two SSE runs of the same input "
            "differed ("
            + _first_difference(runs["SSE run 1"], runs["SSE run 2"], sse_difference)
            + "), "
            "the agent is not deterministic"
        )
    difference = same_content(runs["SSE run 1"], binary_run)
    if difference is not None:
        scenario.fail(
            "proto.differs",
            "the protobuf stream differs from the SSE stream of the same input at "
            + _first_difference(runs["SSE run 1"], binary_run, difference),
            run="protobuf run",
            index=difference,
        )
    return scenario.done(
        f"protobuf stream of {len(binary_run.events)} events, the same content as over SSE"
    )


async def reconnect(session: Session) -> ScenarioResult:
    scenario = Scenario("reconnect")
    text = session.message_for("reconnect")
    cut = await session.run("interrupted run", text, stop_after=2)
    scenario.graded("interrupted run", cut, expect_success=False)
    if cut.last_event_id is None:
        return scenario.not_exercised(
            "the server sends no SSE ids, so a client has nothing to resume from"
        )
    resumed = session.remember("reconnected", await session.client.reconnect(cut))
    if resumed.status >= 300:
        scenario.fail(
            "reconnect.refused",
            f"GET <url>/connect with Last-Event-ID {cut.last_event_id!r} answered HTTP "
            f"{resumed.status}: {resumed.body[:200].decode('utf-8', 'replace')}",
            run="reconnected",
        )
        return scenario.done("the reconnect was refused")
    scenario.graded("reconnected", resumed)
    before = {i for i in cut.sse_ids if i is not None}
    start = resumed.resumed_at or 0
    for index in range(start, len(resumed.events)):
        if resumed.sse_ids[index] in before:
            scenario.fail(
                "reconnect.duplicate",
                f"event {index} (id {resumed.sse_ids[index]!r}) was already received before the "
                "reconnect",
                run="reconnected",
                index=index,
                event_type=resumed.event_types[index],
            )
            break
    reference = await session.run("reference run", text)
    if session.deterministic is None:
        session.deterministic = (
            same_content(reference, await session.run("reference run 2", text)) is None
        )
    if session.deterministic:
        difference = same_content(resumed, reference)
        if difference is not None:
            rule = (
                "reconnect.duplicate"
                if len(resumed.events) > len(reference.events)
                else "reconnect.gap"
            )
            scenario.fail(
                rule,
                f"the resumed stream ({len(resumed.events)} events) differs from an "
                f"uninterrupted run ({len(reference.events)} events) at "
                + _first_difference(resumed, reference, difference),
                run="reconnected",
                index=difference,
            )
    compared = "compared with an uninterrupted run" if session.deterministic else "not compared"
    return scenario.done(
        f"cut after {start} events, reconnected from {cut.last_event_id!r}: "
        f"{len(resumed.events) - start} more events ({compared})"
    )


async def concurrent(session: Session) -> ScenarioResult:
    scenario = Scenario("concurrent")
    count = session.concurrency
    results: list[Optional[RunResult]] = [None] * count

    async def one(slot: int) -> None:
        label = f"concurrent run {slot + 1}"
        thread = f"thread-{uuid.uuid4().hex[:12]}"
        results[slot] = await session.run(
            label, session.message_for("concurrent"), thread_id=thread
        )

    async with anyio.create_task_group() as tasks:
        for slot in range(count):
            tasks.start_soon(one, slot)
    done = [r for r in results if r is not None]
    for slot, result in enumerate(done):
        label = f"concurrent run {slot + 1}"
        scenario.graded(label, result)
        assert result.input is not None
        own = (result.input.thread_id, result.input.run_id)
        for index, event in enumerate(result.events):
            ids = (getattr(event, "thread_id", None), getattr(event, "run_id", None))
            if ids[0] is not None and ids != own:
                scenario.fail(
                    "concurrent.crossed",
                    f"carries threadId/runId {ids[0]!r}/{ids[1]!r}, but this run is "
                    f"{own[0]!r}/{own[1]!r}",
                    run=label,
                    index=index,
                    event_type=result.event_types[index],
                )
                break
        if session.deterministic and slot:
            difference = same_content(done[0], result)
            if difference is not None:
                scenario.fail(
                    "concurrent.crossed",
                    "the content differs from concurrent run 1 (the agent is deterministic) at "
                    + _first_difference(done[0], result, difference),
                    run=label,
                    index=difference,
                )
    return scenario.done(f"{count} runs at once on separate threads")


MALFORMED_REQUESTS: list[tuple[str, bytes]] = [
    ("a body that is not JSON", b'{"threadId": '),
    ("a JSON array", b"[]"),
    ("an empty body", b""),
    ("no threadId", b'{"runId": "r", "messages": []}'),
    ("messages that is not a list", b'{"threadId": "t", "runId": "r", "messages": "hi"}'),
    # Not an unknown role: a server may skip roles from a newer protocol (pydantic-ai does).
    ("a message that is not an object", b'{"threadId": "t", "runId": "r", "messages": [42]}'),
]


async def malformed(session: Session) -> ScenarioResult:
    scenario = Scenario("malformed")
    statuses: list[str] = []
    for what, body in MALFORMED_REQUESTS:
        label = f"request with {what}"
        result = await session.client.post(body)
        scenario.note_run(label, result)
        statuses.append(str(result.status))
        detail = result.body[:160].decode("utf-8", "replace")
        if result.status >= 500:
            scenario.fail("request.5xx", f"answered HTTP {result.status}: {detail}", run=label)
        elif result.status < 400:
            kind = "an event stream" if result.is_stream else f"HTTP {result.status}"
            scenario.fail(
                "request.accepted",
                f"answered {kind} ({len(result.events)} events) instead of a 4xx",
                run=label,
            )
    return scenario.done(
        f"{len(MALFORMED_REQUESTS)} malformed requests answered {', '.join(statuses)}"
    )
