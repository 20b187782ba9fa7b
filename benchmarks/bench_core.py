"""Core benchmarks: this package vs the official ``ag-ui-protocol`` 1.0.0 vs the orjson limit.

Run: ``.venv/bin/python benchmarks/bench_core.py`` (after ``scripts/test`` made .venv-official).
The same workload code runs in both venvs (both import as ``ag_ui``), each in its own process;
ratios are what count, absolute times drift on shared machines.
"""

from __future__ import annotations

import json
import subprocess
import sys
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


def measure() -> dict[str, float]:
    """Seconds per workload in this interpreter's ``ag_ui``."""
    sys.path.insert(0, str(HERE))
    from pydantic import TypeAdapter
    from workloads import run_agent_input_body, stream_mix

    from ag_ui.core import Event, RunAgentInput
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
    parse_input: Callable[[bytes], Any] = getattr(
        ag_ui.core, "parse_run_agent_input", RunAgentInput.model_validate_json
    )

    def decode_all() -> None:
        for payload in payloads:
            decode(payload)

    results = {
        "sse_encode": _best(encode_all, 20),
        "construct_encode": _best(construct_and_encode, 10),
        "decode": _best(decode_all, 10),
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


def main() -> None:
    if "--worker" in sys.argv:
        print(json.dumps(measure()))
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
