"""Export a session as a ready pytest module built on the test kit (``ag_ui.testing``).

The module embeds the session as a timed recording. Its test has the kit's scripted agent
serve each recorded run again to the kit's in-process client, and asserts what the inspector
saw: the same event types in order, the stream legal (or refused with the same rule, for a
broken capture), and, for a run whose request was recorded, the same conversation and state.
It needs no network and nothing but this SDK and pytest.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from ag_ui.apply import EventPipeline
from ag_ui.core.decoding import parse_any_event, parse_run_agent_input
from ag_ui.core.errors import AGUIError
from ag_ui.inspect._session import Session

__all__ = ["pytest_module"]

_TEMPLATE = '''"""A regression test made by `agui inspect` from {title!r}:
{events} events in {runs} run(s).

The test kit's scripted agent serves each recorded run again and its in-process client
receives it. Each stream must be judged as it was when it was captured, with the same events,
and a run whose request was recorded must build the same conversation and state. To hold a
live agent to this capture instead, give AgentClient your ASGI app (or url=).
"""

import json
import re

import pytest

from ag_ui.recording import read_recording
from ag_ui.testing import AgentClient, ScriptedAgent, assert_conversation, assert_legal_stream

RECORDING = (
{recording}
)
EXPECTED = json.loads(
    {expected}
)


def test_the_capture_replays_as_it_was_recorded() -> None:
    recording = read_recording(RECORDING)
    runs = [run for run in recording.runs if run.events]
    assert len(runs) == len(EXPECTED)
    client = AgentClient(ScriptedAgent.from_recording(recording, pacing="instant").app())
    for number, (run, expected) in enumerate(zip(runs, EXPECTED), start=1):
        result = client.run_sync(input=run.input) if run.input is not None else client.run_sync()
        types = [str(event.type.value) for event in result.events]
        assert types == expected["types"], f"run {{number}}: other events than recorded"
        if expected["rule"] is not None:
            with pytest.raises(AssertionError, match=re.escape("[" + expected["rule"] + "]")):
                assert_legal_stream(result)
            continue
        assert_legal_stream(result)
        if expected["messages"] is not None:
            assert_conversation(result, expected["messages"])
            assert result.agent_state.state == expected["state"], f"run {{number}}: state"
'''


def _expected_run(session: Session, number: int) -> Optional[dict[str, Any]]:
    run = session.runs[number]
    end = (
        session.runs[number + 1].first_row if number + 1 < len(session.runs) else len(session.rows)
    )
    rows = session.rows[run.first_row : end]
    if not rows:
        return None
    errors = [f for row in rows for f in row.findings if f.severity == "error"]
    rule = next((f.rule or "" for f in errors), None) if errors else None
    messages: Optional[list[Any]] = None
    state: Any = None
    if run.input is not None and rule is None:
        # What the kit's client builds: the request's conversation, then this run's events.
        request = parse_run_agent_input(run.input)
        pipeline = EventPipeline(
            messages=run.input.get("messages", []), state=request.state, strict_end=False
        )
        try:
            for row in rows:
                pipeline.feed(parse_any_event(row.wire_json))
        except AGUIError:
            return {"types": [r.type for r in rows], "rule": rule, "messages": None, "state": None}
        messages = list(pipeline.agent_state.messages)
        state = pipeline.agent_state.state
    return {"types": [row.type for row in rows], "rule": rule, "messages": messages, "state": state}


def pytest_module(session: Session, recording: bytes) -> bytes:
    """The test module for ``session`` (``recording``: its timed JSON Lines export)."""
    expected = [e for n in range(len(session.runs)) if (e := _expected_run(session, n))]
    if any(e["rule"] == "" for e in expected):
        raise ValueError(
            "this capture fails for a reason without a rule id; export it as a recording"
        )
    lines = "\n".join(f"    {line!r}" for line in recording.splitlines(keepends=True))
    text = _TEMPLATE.format(
        title=session.title,
        events=len(session.rows),
        runs=len(expected),
        recording=lines,
        expected=repr(json.dumps(expected, ensure_ascii=False)),
    )
    return text.encode()
