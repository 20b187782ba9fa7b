"""``verify_events``: the async wrapper (runs under anyio's asyncio and trio-less backends)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from ag_ui.core import RunFinishedEvent, RunStartedEvent, TextMessageEndEvent
from ag_ui.core.errors import EventSequenceError, UnterminatedRunError
from ag_ui.verify import verify_events


class Source:
    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.closed = False

    async def stream(self) -> AsyncIterator[Any]:
        try:
            for event in self.events:
                await anyio.sleep(0)
                yield event
        finally:
            self.closed = True


async def collect(source: Source, **options: Any) -> list[Any]:
    return [event async for event in verify_events(source.stream(), **options)]


RS = RunStartedEvent(thread_id="t", run_id="r")
RF = RunFinishedEvent(thread_id="t", run_id="r")


def test_passes_events_through() -> None:
    source = Source([RS, RF])
    assert anyio.run(collect, source) == [RS, RF]
    assert source.closed


def test_raises_at_the_first_violation_and_closes_the_source() -> None:
    source = Source([RS, TextMessageEndEvent(message_id="m"), RF])

    async def first_two() -> tuple[list[Any], EventSequenceError]:
        seen: list[Any] = []
        try:
            async for event in verify_events(source.stream()):
                seen.append(event)
        except EventSequenceError as error:
            return seen, error
        raise AssertionError("the violation was not reported")

    seen, error = anyio.run(first_two)
    assert (seen, error.rule) == ([RS], "T3")
    assert source.closed


def test_truncated_stream_is_strict_by_default() -> None:
    with pytest.raises(UnterminatedRunError):
        anyio.run(collect, Source([RS]))
    assert anyio.run(lambda: collect(Source([RS]), strict_end=False)) == [RS]
