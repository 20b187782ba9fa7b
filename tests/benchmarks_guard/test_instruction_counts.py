"""The CI guard: no core workload's instruction count grows more than 10% over the recorded one.

Counts come from callgrind (``benchmarks/instruction_guard.py``), which the machine's load does
not move, unlike seconds. A deliberate change in cost is re-recorded with
``.venv/bin/python benchmarks/instruction_guard.py --record`` and the JSON committed with it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import instruction_guard as guard  # noqa: E402  (a benchmarks/ module, found by the path above)

# The fixture runs every workload under callgrind in one go: about a minute on a quiet machine,
# more than the suite's 120 s hang guard on a loaded one. Instruction counts do not depend on
# the load, so only the hang guard is widened here.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def counts() -> dict[str, int]:
    return guard.measure()


def test_every_workload_is_recorded(counts: dict[str, int]) -> None:
    assert set(counts) == set(guard.recorded()["instructions"])


@pytest.mark.parametrize("workload", list(guard.WORK))
def test_no_workload_grew_more_than_the_tolerance(counts: dict[str, int], workload: str) -> None:
    record = guard.recorded()
    before = record["instructions"][workload]
    now = counts[workload]
    assert now <= before * (1 + guard.TOLERANCE), (
        f"{workload} ({guard.WORK[workload]}): {now:,} instructions against {before:,} recorded "
        f"({now / before - 1:+.1%}, limit +{guard.TOLERANCE:.0%}); recorded on "
        f"{record['environment']}, now {guard.environment()}. If the cost is intended, re-record: "
        ".venv/bin/python benchmarks/instruction_guard.py --record"
    )
