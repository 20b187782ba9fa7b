"""Stage-level differential tests: our ``ChunkExpander`` and ``compact_events`` produce the same
event lists as the TypeScript ``transformChunks`` and ``compactEvents`` on the same streams.

Both sides' events are normalised by parsing them into our models and dumping the wire form
(so a default our models write, such as ``role: "assistant"``, compares equal to its absence).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import warnings
from typing import Any

import pytest

from ag_ui.core import parse_event
from ag_ui.core.errors import ChunkExpansionError, UnknownEventTypeError
from ag_ui.verify import ChunkExpander, compact_events
from tests.verify.corpus import CASES, PIPELINE_STREAMS
from tests.verify.random_streams import legal_stream
from tests.verify.test_differential import INTEROP

STREAMS = [case.events for case in CASES] + list(PIPELINE_STREAMS.values())
STREAMS += [legal_stream(seed) for seed in range(150)]


def _parseable(events: list[dict[str, Any]]) -> list[Any] | None:
    parsed = []
    for event in events:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # legacy binary parts
                parsed.append(parse_event(event))
        except UnknownEventTypeError:
            continue
        except Exception:
            return None  # THINKING_* or a rejected null: not a case for these stages
    return parsed


def _normalise(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [parse_event(e).model_dump(by_alias=True, mode="json") for e in events]


def _wire(events: list[Any]) -> list[dict[str, Any]]:
    return [e.model_dump(by_alias=True, mode="json") for e in events]


def _typescript(mode: str, streams: list[list[dict[str, Any]]]) -> list[Any]:
    node = shutil.which("node")
    if node is None or not (INTEROP / "node_modules" / "@ag-ui" / "client").is_dir():
        pytest.fail("node and tests/interop/node_modules are required (run scripts/test)")
    done = subprocess.run(
        [node, "ts_pipeline.mjs"],
        cwd=INTEROP,
        input=json.dumps({"mode": mode, "streams": streams}),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return list(json.loads(done.stdout))


def test_chunk_expansion_matches_transform_chunks() -> None:
    cases = [(events, parsed) for events in STREAMS if (parsed := _parseable(events)) is not None]
    theirs = _typescript(
        "transform", [[e for e in ev if e["type"] != "FUTURE_EVENT"] for ev, _ in cases]
    )
    compared = 0
    for (_, parsed), result in zip(cases, theirs, strict=True):
        expander = ChunkExpander()
        try:
            mine = [out for event in parsed for out in expander.feed(event)]
        except ChunkExpansionError:
            assert "error" in result
            continue
        assert "events" in result
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _wire(mine) == _normalise(result["events"])
        compared += 1
    assert compared > 150


def test_compaction_matches_compact_events() -> None:
    cases = [(events, parsed) for events in STREAMS if (parsed := _parseable(events)) is not None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = [_wire(compact_events(parsed)) for _, parsed in cases]
        theirs = _typescript("compact", [_wire(parsed) for _, parsed in cases])
        assert mine == [_normalise(events) for events in theirs]
