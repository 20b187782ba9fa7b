"""Per-delta cost against conversation length: reducer, verifier, whole pipeline.

Run: ``.venv/bin/python benchmarks/bench_scaling.py [--sizes 100,1000,10000,100000]``

For each N, a conversation of N messages, then one more assistant message streamed; what is
timed is one TEXT_MESSAGE_CONTENT on the new message:

* ``apply_event``: the reducer alone, on an ``AgentState`` holding the N messages;
* ``EventVerifier.feed``: the verifier after a run that streamed the N messages itself (START,
  CONTENT, END each), so its bookkeeping holds N ids;
* ``EventPipeline.feed``: expansion, checks and reducer together, the N messages given as history.

Each figure is the best of several batches of 2,000 deltas, in microseconds per delta. A cost that
is constant in N prints the same column down the sizes; the last column is the ratio of the row's
pipeline cost to the first row's.
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any, Callable

from ag_ui.apply import AgentState, EventPipeline, apply_event
from ag_ui.core import (
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.verify import EventVerifier

DELTAS = 2_000
REPEAT = 5
DEFAULT_SIZES = (100, 1_000, 10_000, 100_000)


def history(size: int) -> list[dict[str, Any]]:
    """``size`` short user and assistant messages, alternating."""
    roles = ("user", "assistant")
    return [{"id": f"h{i}", "role": roles[i % 2], "content": "hello"} for i in range(size)]


def _best(setup: Callable[[], Callable[[], None]]) -> float:
    """Microseconds per delta: the best of REPEAT batches, each on a fresh ``setup()``."""
    samples = []
    for _ in range(REPEAT):
        run = setup()
        gc.collect()  # a pending full pass over the history would land in the timing
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return min(samples) / DELTAS * 1e6


DELTA = TextMessageContentEvent(message_id="new", delta="tok ")


def reducer_case(size: int) -> Callable[[], Callable[[], None]]:
    base = apply_event(AgentState(messages=history(size)), TextMessageStartEvent(message_id="new"))

    def setup() -> Callable[[], None]:
        def run() -> None:
            state = base
            for _ in range(DELTAS):
                state = apply_event(state, DELTA)

        return run

    return setup


def verifier_case(size: int) -> Callable[[], Callable[[], None]]:
    def setup() -> Callable[[], None]:
        verifier = EventVerifier()
        verifier.feed(RunStartedEvent(thread_id="t", run_id="r"))
        for i in range(size):
            verifier.feed(TextMessageStartEvent(message_id=f"h{i}"))
            verifier.feed(TextMessageContentEvent(message_id=f"h{i}", delta="hello"))
            verifier.feed(TextMessageEndEvent(message_id=f"h{i}"))
        verifier.feed(TextMessageStartEvent(message_id="new"))
        feed = verifier.feed

        def run() -> None:
            for _ in range(DELTAS):
                feed(DELTA)

        return run

    return setup


def pipeline_case(size: int) -> Callable[[], Callable[[], None]]:
    messages = history(size)

    def setup() -> Callable[[], None]:
        pipeline = EventPipeline(messages=messages)
        pipeline.feed(RunStartedEvent(thread_id="t", run_id="r"))
        pipeline.feed(TextMessageStartEvent(message_id="new"))
        feed = pipeline.feed

        def run() -> None:
            for _ in range(DELTAS):
                feed(DELTA)

        return run

    return setup


def main() -> None:
    sizes = DEFAULT_SIZES
    if "--sizes" in sys.argv:
        sizes = tuple(int(s) for s in sys.argv[sys.argv.index("--sizes") + 1].split(","))
    print(f"µs per TEXT_MESSAGE_CONTENT (best of {REPEAT} batches of {DELTAS:,})")
    print(f"{'N messages':>12}{'apply_event':>14}{'verifier':>12}{'pipeline':>12}{'vs first':>10}")
    first = None
    for size in sizes:
        reducer = _best(reducer_case(size))
        verifier = _best(verifier_case(size))
        pipeline = _best(pipeline_case(size))
        first = first or pipeline
        print(
            f"{size:>12,}{reducer:>14.2f}{verifier:>12.2f}{pipeline:>12.2f}"
            f"{pipeline / first:>9.2f}x"
        )


if __name__ == "__main__":
    main()
