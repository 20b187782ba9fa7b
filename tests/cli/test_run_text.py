"""``agui run``'s live text output: empty messages print nothing, a closed pipe stops writing."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

from ag_ui.cli._run_text import TextReporter
from ag_ui.core import (
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)


def feed(reporter: TextReporter, *events: Any) -> None:
    names = {
        TextMessageStartEvent: "on_text_message_start_event",
        TextMessageContentEvent: "on_text_message_content_event",
        TextMessageEndEvent: "on_text_message_end_event",
        ToolCallStartEvent: "on_tool_call_start_event",
        ToolCallArgsEvent: "on_tool_call_args_event",
        ToolCallEndEvent: "on_tool_call_end_event",
    }
    for event in events:
        getattr(reporter, names[type(event)])(SimpleNamespace(event=event))


def test_an_empty_text_message_around_a_tool_call_prints_no_blank_line() -> None:
    out = io.StringIO()
    feed(
        TextReporter(out),
        TextMessageStartEvent(message_id="m0"),  # what pydantic-ai opens around a tool call
        TextMessageContentEvent.model_construct(message_id="m0", delta=""),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="lookup", parent_message_id="m0"),
        ToolCallArgsEvent(tool_call_id="c1", delta='{"q": 1}'),
        ToolCallEndEvent(tool_call_id="c1"),
        TextMessageEndEvent(message_id="m0"),
        TextMessageStartEvent(message_id="m1"),
        TextMessageContentEvent(message_id="m1", delta="Found "),
        TextMessageContentEvent(message_id="m1", delta="it."),
        TextMessageEndEvent(message_id="m1"),
    )
    assert out.getvalue() == 'tool call lookup({"q": 1})\nassistant: Found it.\n'


class ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError


def test_a_reader_that_goes_away_stops_the_output_once() -> None:
    calls: list[str] = []
    reporter = TextReporter(ClosedPipe())
    reporter.on_reader_gone = lambda: calls.append("abort")
    feed(
        reporter,
        TextMessageStartEvent(message_id="m1"),
        TextMessageContentEvent(message_id="m1", delta="a"),
        TextMessageContentEvent(message_id="m1", delta="b"),
    )
    assert reporter.reader_gone
    assert calls == ["abort"]
