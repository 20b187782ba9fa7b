"""Core benchmarks: this package vs the official ``ag-ui-protocol`` 1.0.0 vs the orjson limit.

Run: ``.venv/bin/python benchmarks/bench_core.py`` (after ``scripts/test`` made .venv-official);
``--instructions`` counts instructions with callgrind instead of timing (steady under load).
The same workload code runs in both venvs (both import as ``ag_ui``), each in its own process;
ratios are what count, absolute times drift on shared machines.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OFFICIAL_PYTHON = REPO / ".venv-official" / "bin" / "python"
SIZES = (10, 100, 1_000, 10_000)
ROUNDS = 3


def _best(fn: Callable[[], Any], number: int, repeat: int = 5) -> float:
    """Best time of one call of ``fn``, in seconds."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def stream_workloads() -> dict[str, Callable[[], None]]:
    """The stream-mix workloads, each one pass over the 558 events, in this interpreter's
    ``ag_ui``."""
    sys.path.insert(0, str(HERE))
    from pydantic import TypeAdapter
    from workloads import stream_mix

    from ag_ui.core import Event
    from ag_ui.encoder import EventEncoder

    wire = stream_mix()
    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    events = [adapter.validate_python(d) for d in wire]
    classes = [type(e) for e in events]
    kwargs = [e.model_dump() for e in events]
    encoder = EventEncoder()
    payloads = [json.dumps(d, separators=(",", ":"), ensure_ascii=False).encode() for d in wire]

    def encode_all() -> None:
        for event in events:
            encoder.encode(event)

    def construct_and_encode() -> None:
        for cls, kw in zip(classes, kwargs, strict=True):
            encoder.encode(cls(**kw))

    # Each package's own decode API: ``parse_event`` here, a TypeAdapter in the official one
    # (it ships no parse helper).
    import ag_ui.core

    decode: Callable[[bytes], Any] = getattr(ag_ui.core, "parse_event", adapter.validate_json)

    def decode_all() -> None:
        for payload in payloads:
            decode(payload)

    return {
        "sse_encode": encode_all,
        "construct_encode": construct_and_encode,
        "decode": decode_all,
    }


def measure() -> dict[str, float]:
    """Seconds per workload in this interpreter's ``ag_ui``."""
    import ag_ui.core
    from ag_ui.core import RunAgentInput

    sys.path.insert(0, str(HERE))
    from workloads import run_agent_input_body

    workloads = stream_workloads()
    parse_input: Callable[[bytes], Any] = getattr(
        ag_ui.core, "parse_run_agent_input", RunAgentInput.model_validate_json
    )
    results = {
        "sse_encode": _best(workloads["sse_encode"], 20),
        "construct_encode": _best(workloads["construct_encode"], 10),
        "decode": _best(workloads["decode"], 10),
    }
    for size in SIZES:
        body = run_agent_input_body(size)
        number = max(1, 2000 // size)
        results[f"run_input_{size}"] = _best(lambda body=body: parse_input(body), number)
    return results


def measure_orjson_limit() -> float:
    """Seconds to SSE-frame the same events as dicts with orjson: the practical floor."""
    import orjson

    sys.path.insert(0, str(HERE))
    from workloads import stream_mix

    wire = stream_mix()

    def frames() -> None:
        for d in wire:
            b"data: " + orjson.dumps(d) + b"\n\n"

    return _best(frames, 50)


def _same_bytes() -> bool:
    """Both encoders produce identical frames for the whole mix."""
    script = (
        f"import sys, json; sys.path.insert(0, {str(HERE)!r})\n"
        "from pydantic import TypeAdapter\nfrom ag_ui.core import Event\n"
        "from ag_ui.encoder import EventEncoder\nfrom workloads import stream_mix\n"
        "a = TypeAdapter(Event); e = EventEncoder()\n"
        "print(json.dumps([e.encode(a.validate_python(d)) for d in stream_mix()]))\n"
    )
    outputs = [
        subprocess.run([py, "-c", script], capture_output=True, text=True, check=True).stdout
        for py in (sys.executable, str(OFFICIAL_PYTHON))
    ]
    return outputs[0] == outputs[1]


INSTRUCTION_LOOPS = 5


def _instruction_worker(workload: str, loops: int) -> None:
    """Run one stream workload ``loops`` times (under callgrind, for ``--instructions``)."""
    run = stream_workloads()[workload]
    for _ in range(loops):
        run()


def _instructions(python: str, workload: str, loops: int) -> int:
    """Instructions callgrind counts for the whole process of ``_instruction_worker``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/callgrind.out",
                python,
                __file__,
                "--instruction-worker",
                workload,
                str(loops),
            ],
            capture_output=True,
            text=True,
        )
    match = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode or match is None:
        sys.exit(f"callgrind failed for {python} {workload}: {out.stderr[-2000:]}")
    return int(match.group(1))


def main_instructions() -> None:
    """Instructions per pass over the stream mix, ours and the official package's: counts do
    not move with the machine's load, unlike seconds. Each figure is the difference between a
    process making 1 + INSTRUCTION_LOOPS passes and one making 1, so start-up and set-up cancel.
    """
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (apt-get install valgrind)")
    print(f"instructions per pass over the stream mix (callgrind, {INSTRUCTION_LOOPS} passes)")
    print(f"{'workload':<26}{'ours':>14}{'official':>14}{'speed-up':>10}")
    for workload in ("sse_encode", "construct_encode", "decode"):
        counts = []
        for python in (sys.executable, str(OFFICIAL_PYTHON)):
            many = _instructions(python, workload, 1 + INSTRUCTION_LOOPS)
            one = _instructions(python, workload, 1)
            counts.append((many - one) / INSTRUCTION_LOOPS)
        ours, official = counts
        ratio = official / ours
        print(f"{workload:<26}{ours / 1e6:>12.2f}M {official / 1e6:>12.2f}M {ratio:>9.2f}x")


def main() -> None:
    if "--worker" in sys.argv:
        print(json.dumps(measure()))
        return
    if "--instruction-worker" in sys.argv:
        workload, loops = sys.argv[sys.argv.index("--instruction-worker") + 1 :][:2]
        _instruction_worker(workload, int(loops))
        return
    if not OFFICIAL_PYTHON.exists():
        sys.exit("run scripts/test first: it creates .venv-official with ag-ui-protocol 1.0.0")
    if "--instructions" in sys.argv:
        main_instructions()
        return
    if not OFFICIAL_PYTHON.exists():
        sys.exit("run scripts/test first: it creates .venv-official with ag-ui-protocol 1.0.0")

    def run(python: str) -> dict[str, float]:
        out = subprocess.run([python, __file__, "--worker"], capture_output=True, text=True)
        if out.returncode:
            sys.exit(out.stderr)
        return dict(json.loads(out.stdout))

    # Alternate the two processes and keep each workload's best: on a shared machine the
    # load changes minute to minute, and the minimum is the least disturbed measurement.
    ours: dict[str, float] = {}
    official: dict[str, float] = {}
    for _ in range(ROUNDS):
        for python, best in ((sys.executable, ours), (str(OFFICIAL_PYTHON), official)):
            for key, seconds in run(python).items():
                best[key] = min(seconds, best.get(key, seconds))
    limit = measure_orjson_limit()
    n_events = 558
    print(f"stream mix: {n_events} events; identical SSE bytes: {_same_bytes()}")
    print(f"{'workload':<26}{'ours':>12}{'official':>12}{'speed-up':>10}")
    for key in ours:
        speedup = official[key] / ours[key]
        print(f"{key:<26}{ours[key] * 1e3:>10.3f}ms{official[key] * 1e3:>10.3f}ms{speedup:>9.2f}x")
    print(
        f"orjson limit (dict -> SSE): {limit * 1e3:.3f}ms; "
        f"ours is {ours['sse_encode'] / limit:.2f}x the limit"
    )


if __name__ == "__main__":
    main()
