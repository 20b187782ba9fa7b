# ruff: noqa: E501  (the cases are one-line programs, easier to read unwrapped)
"""Where this SDK and ``ag-ui-protocol`` 1.0.0 must agree, run side by side in their own venvs.

Each case is a small program run by both interpreters (``.venv-official`` holds 1.0.0); it
prints one JSON value. Most must print the same; the rest are the documented differences,
where this SDK serves 0.x readers too (a readable default, subscriptable patch operations).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PRELUDE = """
import json
from ag_ui.core import *
from ag_ui.encoder import EventEncoder
def out(value): print(json.dumps(value))
"""

SAME = {
    # What frameworks put in RUN_STARTED.protocolVersion: the released official package's value
    # until it moves (this SDK's own server speaks ag_ui.core.version.SPOKEN_PROTOCOL_VERSION).
    "PROTOCOL_VERSION": "out(PROTOCOL_VERSION)",
    "text start without role": "out(TextMessageStartEvent(message_id='m').model_dump_json(by_alias=True))",
    "text start role=None": "out(TextMessageStartEvent(message_id='m', role=None).model_dump_json(by_alias=True))",
    "text start role given": "out(TextMessageStartEvent(message_id='m', role='user').model_dump_json(by_alias=True))",
    "activity without replace": "out(ActivitySnapshotEvent(message_id='m', activity_type='a', content={}).model_dump_json(by_alias=True))",
    "activity replace=None": "out(ActivitySnapshotEvent(message_id='m', activity_type='a', content={}, replace=None).model_dump_json(by_alias=True))",
    "activity replace=False": "out(ActivitySnapshotEvent(message_id='m', activity_type='a', content={}, replace=False).model_dump_json(by_alias=True))",
    "encoder bytes": "out(EventEncoder().encode(TextMessageStartEvent(message_id='m')))",
    "run input tools/context null accepted": "out(RunAgentInput.model_validate({'threadId': 't', 'runId': 'r', 'messages': [], 'tools': None, 'context': None, 'state': {}, 'forwardedProps': {}}).thread_id)",
    "patch op attributes": "e = StateDeltaEvent(delta=[{'op': 'move', 'from': '/a', 'path': '/b'}]); out([e.delta[0].op, e.delta[0].path, e.delta[0].from_])",
    "activity patch attributes": "e = ActivityDeltaEvent(message_id='m', activity_type='a', patch=[{'op': 'remove', 'path': '/a'}]); out(e.patch[0].op)",
    "every BaseEvent subclass is in the Event union": "import typing; union = set(typing.get_args(typing.get_args(Event)[0])); out(sorted(c.__name__ for c in BaseEvent.__subclasses__() if c not in union))",
    "BaseEvent subclasses": "out(sorted(c.__name__ for c in BaseEvent.__subclasses__()))",
    "_encode_sse": "out(EventEncoder()._encode_sse(TextMessageEndEvent(message_id='m')))",
    "model_dump_json override": (
        "class Mine(TextMessageEndEvent):\n"
        "    def model_dump_json(self, **kwargs): return '{\"mine\":true}'\n"
        "out(EventEncoder().encode(Mine(message_id='m')))"
    ),
    "content type of encode() asking for protobuf": "out(EventEncoder(accept='application/vnd.ag-ui.event+proto, text/event-stream;q=0.5').get_content_type())",
}

# Intended differences: (program, what 1.0.0 prints, what this SDK prints).
DIFFERENT = {
    "role reads its 0.x default": (
        "out(TextMessageStartEvent(message_id='m').role)",
        None,
        "assistant",
    ),
    "replace reads its 0.x default": (
        "out(ActivitySnapshotEvent(message_id='m', activity_type='a', content={}).replace)",
        None,
        True,
    ),
    "null tools read as an empty list": (
        "out(RunAgentInput.model_validate({'threadId': 't', 'runId': 'r', 'messages': [], 'tools': None, 'context': None, 'state': {}, 'forwardedProps': {}}).tools)",
        None,
        [],
    ),
    "patch ops subscript as 0.x did": (
        "e = StateDeltaEvent(delta=[{'op': 'add', 'path': '/a', 'value': 1}])\n"
        "try:\n    out(e.delta[0]['path'])\nexcept TypeError:\n    out('not subscriptable')",
        "not subscriptable",
        "/a",
    ),
    # 1.0.0 refuses a pointer without a leading "/" at construction (measured; 0.x took any
    # list). This SDK accepts it as 0.x did and leaves the judgement to the reducer (below).
    "pointer without slash accepted at construction": (
        "try:\n    out(StateDeltaEvent(delta=[{'op': 'add', 'path': 'x', 'value': 1}]).model_dump_json(by_alias=True))\n"
        "except ValueError:\n    out('refused')",
        "refused",
        '{"type":"STATE_DELTA","delta":[{"op":"add","path":"x","value":1}]}',
    ),
    "sub_agents readable": (
        "out(MultiAgentCapabilities(subagents=[]).model_dump() and hasattr(MultiAgentCapabilities(subagents=[]), 'sub_agents'))",
        False,
        True,
    ),
}


def _results(python: Path | str, programs: dict[str, str]) -> dict[str, object]:
    """Every case run by one interpreter (one process: each import of ag_ui.core costs ~0.3 s)."""
    cases = "\n".join(
        f"try:\n    exec({program!r}, dict(globals(), out=lambda v, name={name!r}: results.__setitem__(name, v)))\n"
        f"except Exception as exc:\n    results[{name!r}] = f'raised {{type(exc).__name__}}'"
        for name, program in programs.items()
    )
    program = PRELUDE + "results = {}\n" + cases + "\nprint(json.dumps(results))\n"
    done = subprocess.run(
        [str(python), "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    results: dict[str, object] = json.loads(done.stdout)
    return results


ALL = {**SAME, **{name: program for name, (program, _, _) in DIFFERENT.items()}}


@pytest.fixture(scope="module")
def both(official_python: Path) -> tuple[dict[str, object], dict[str, object]]:
    return _results(official_python, ALL), _results(sys.executable, ALL)


@pytest.mark.parametrize("case", list(SAME))
def test_same_as_the_official_package(
    both: tuple[dict[str, object], dict[str, object]], case: str
) -> None:
    official, ours = both
    assert case in ours
    assert ours[case] == official[case]


@pytest.mark.parametrize("case", list(DIFFERENT))
def test_documented_differences(
    both: tuple[dict[str, object], dict[str, object]], case: str
) -> None:
    _, official_expected, ours_expected = DIFFERENT[case]
    official, ours = both
    assert official[case] == official_expected
    assert ours[case] == ours_expected


def test_the_verifier_still_rejects_a_pointer_without_slash() -> None:
    # Construction accepts it (as 1.0.0 does); a consumer refuses the event, as the TypeScript
    # schema does (the 1.1 pointer pattern), and keeps the state it had.
    from ag_ui.apply import EventPipeline
    from ag_ui.core import AGUIValidationError, parse_event

    pipeline = EventPipeline(state={"a": 1})
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "x", "value": 1}]},
    ]
    pipeline.feed(parse_event(events[0]))
    with pytest.raises(AGUIValidationError, match=r"delta\[0\]\.path: 'x' is not a JSON Pointer"):
        pipeline.feed(parse_event(events[1]))
    assert pipeline.agent_state.state == {"a": 1}
