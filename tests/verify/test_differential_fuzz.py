"""Differential fuzzing against the real TypeScript client: 600 seeded random streams (300 legal,
300 with one mutation) must get the same verdict, and legal ones the same messages and state.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from tests.verify.random_streams import legal_stream, mutate
from tests.verify.test_differential import INTEROP, ours

SEEDS = range(300)


@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    streams = [(f"legal {s}", legal_stream(s)) for s in SEEDS]
    streams += [(f"mutated {s}", mutate(legal_stream(s), s)) for s in SEEDS]
    node = shutil.which("node")
    if node is None or not (INTEROP / "node_modules" / "@ag-ui" / "client").is_dir():
        pytest.fail("node and tests/interop/node_modules are required (run scripts/test)")
    done = subprocess.run(
        [node, "ts_pipeline.mjs"],
        cwd=INTEROP,
        input=json.dumps({"streams": [events for _, events in streams], "initialState": {}}),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    results = json.loads(done.stdout)
    return [(name, events, theirs) for (name, events), theirs in zip(streams, results, strict=True)]


def test_generated_streams_are_mostly_legal(
    corpus: list[tuple[str, list[dict[str, Any]], dict[str, Any]]],
) -> None:
    legal = [theirs["ok"] for name, _, theirs in corpus if name.startswith("legal")]
    mutated = [theirs["ok"] for name, _, theirs in corpus if name.startswith("mutated")]
    assert sum(legal) == len(legal)  # the generator only makes legal streams
    assert 0 < sum(mutated) < len(mutated)  # mutations break some, not all


def test_same_verdict_messages_and_state(
    corpus: list[tuple[str, list[dict[str, Any]], dict[str, Any]]],
) -> None:
    mismatches = []
    for name, events, theirs in corpus:
        mine = ours(events, strict_end=False)
        if mine["ok"] != theirs["ok"]:
            mismatches.append((name, "verdict", theirs["error"], str(mine["error"])))
        elif theirs["ok"] and (mine["messages"], mine["state"]) != (
            theirs["messages"],
            theirs["state"],
        ):
            mismatches.append((name, "result", theirs["messages"], mine["messages"]))
    assert mismatches == []
