"""Telemetry's cost on the server: events/s of a long run and runs/s of short ones, with
OpenTelemetry not installed, installed but off, and on (``instrument()`` with the real SDK).

"On" is what an application pays: the SDK's ``TracerProvider`` with a ``BatchSpanProcessor``
(spans handed to an exporter that drops them, so no network is timed) and a ``MeterProvider``
whose reader collects at the end. "Not installed" hides every ``opentelemetry`` module from the
server process (an import hook refuses them), as on a machine without the ``otel`` extra.

Each server is a uvicorn subprocess; the client is ``bench_server``'s raw socket reader. The
modes alternate for ``--rounds`` rounds and the best of each is kept.

    .venv/bin/python benchmarks/bench_telemetry.py [--events 20000] [--runs 300] [--rounds 5]

``--instructions`` counts instructions with callgrind instead (valgrind): the run path in one
process (``run_agent``, the guard and verifier, SSE encoding, telemetry wired as the endpoint
wires it, no socket), which the machine's load does not change.

``--paced`` counts, with callgrind, whole requests through ``create_app``'s ASGI app in process
(uvloop, no socket), telemetry off and on, for issue 38's two shapes: the paced run (the agent
awaits before each of 200 deltas, as a model's tokens arrive) and the demo's "weather in Paris"
run (39 events: reasoning, two steps, a backend tool call, activity, a state delta, an answer).
It prints instructions per run and the ratio on / off (target: <= 1.05).

    .venv/bin/python benchmarks/bench_telemetry.py --paced
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.abc
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_server import WORDS, complete, free_port, one_run

REPO = Path(__file__).resolve().parent.parent
MODES = ("not-installed", "off", "on")


class _NoOpenTelemetry(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def make_app(mode: str) -> Any:
    """The benchmark's app, with OpenTelemetry hidden, off or on (see the module docstring)."""
    switch_telemetry(mode)
    from ag_ui.core import TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent
    from ag_ui.server import create_app

    async def agent(run_input: Any, ctx: Any) -> Any:
        count = int((run_input.forwarded_props or {}).get("events", 100))
        yield TextMessageStartEvent(message_id="msg-1", role="assistant")
        for index in range(count):
            yield TextMessageContentEvent(message_id="msg-1", delta=WORDS[index % len(WORDS)])
        yield TextMessageEndEvent(message_id="msg-1")

    return create_app(agent, keepalive=None)


def switch_telemetry(mode: str) -> None:
    """OpenTelemetry hidden from this process, left off, or on with the real SDK exporting
    (see the module docstring)."""
    if mode == "not-installed":
        sys.meta_path.insert(0, _NoOpenTelemetry())
    if mode == "on":
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )

        from ag_ui import telemetry

        class Dropping(SpanExporter):
            def export(self, spans: Any) -> SpanExportResult:
                return SpanExportResult.SUCCESS

        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(BatchSpanProcessor(Dropping()))
        meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
        telemetry.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)


def serve(mode: str, port: int) -> None:
    import uvicorn

    uvicorn.run(make_app(mode), host="127.0.0.1", port=port, log_level="error")


def instruction_worker(mode: str, events: int, loops: int) -> None:
    """``loops`` runs of ``events`` events through ``run_agent`` (guard, verifier) into an SSE
    encoding sink, wired as ``AgentEndpoint`` wires a 1.0 client's run: with telemetry on, the
    run span is current and the sink observes each batch. No socket and no response task: the
    full ASGI path batches by timing (the writer takes what is queued), which callgrind's
    slowness changes, so its counts are not steady."""
    import anyio

    app = make_app(mode)
    endpoint = app.state.endpoint
    from ag_ui.core import RunAgentInput
    from ag_ui.encoder import EventEncoder
    from ag_ui.server import run_agent
    from ag_ui.telemetry import _switch

    encode = EventEncoder().encode_sse
    frames: list[bytes] = []
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[],
        tools=[],
        context=[],
        forwarded_props={"events": events},
    )

    async def encoding_sink(batch: list[Any]) -> None:
        for event in batch:
            frames.append(encode(event))

    async def one() -> None:
        telemetry = _switch.current
        if telemetry is None:
            await run_agent(endpoint.agent, run_input, encoding_sink)
            return
        spans = telemetry.start_run(
            agent_name=endpoint.agent_name, thread_id="t", run_id="r", headers={}
        )
        observe = spans.observe

        async def observed_encoding_sink(batch: list[Any]) -> None:
            observe(batch)
            for event in batch:
                frames.append(encode(event))

        with spans.activate():
            await run_agent(endpoint.agent, run_input, observed_encoding_sink)
        spans.close()

    async def main() -> None:
        for _ in range(loops):
            await one()
            frames.clear()

    anyio.run(main)


def instructions(mode: str, events: int, loops: int) -> int:
    """Instructions callgrind counts for the whole process of ``instruction_worker``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/callgrind.out",
                sys.executable,
                __file__,
                "--instruction-worker",
                mode,
                str(events),
                str(loops),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO / "benchmarks")},
        )
    match = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode or match is None:
        sys.exit(f"callgrind failed for {mode}: {out.stderr[-2000:]}")
    return int(match.group(1))


PACED_RUNS = 10
SHAPES = {"paced-200": "paced run, 200 deltas", "demo-39": "demo, weather in Paris"}


def paced_workload(mode: str, shape: str) -> Any:
    """``PACED_RUNS`` requests of ``shape`` through the app's ASGI callable, one after another
    on one uvloop loop, telemetry ``mode`` (``off`` or ``on``)."""
    import json

    import uvloop
    from bench_server import _SCOPE, ours_app

    switch_telemetry(mode)
    if shape == "paced-200":
        app = ours_app()
        props = {"events": 200, "hold": 0, "paced": True}
        messages: list[Any] = []
    else:
        from ag_ui.demo import create_demo_app

        app = create_demo_app(delay=0.0, keepalive=None)
        props = {}
        messages = [{"id": "u-1", "role": "user", "content": "weather in Paris"}]
    events: list[int] = []

    async def one(run_id: str) -> None:
        body = json.dumps(
            {"threadId": "thread-1", "runId": run_id, "messages": messages, "forwardedProps": props}
        ).encode()
        done = asyncio.Event()
        received: list[bytes] = []
        sent: list[bytes] = []

        async def receive() -> dict[str, Any]:
            if not received:
                received.append(body)
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message.get("body", b""))

        await app(_SCOPE, receive, send)
        done.set()
        response = b"".join(sent)
        if b"RUN_FINISHED" not in response:
            raise RuntimeError(f"{shape}: an incomplete run: {response[-300:]!r}")
        events.append(response.count(b"\ndata: ") + response.startswith(b"data: "))

    async def runs() -> None:
        for index in range(PACED_RUNS):
            await one(f"r{index}")

    def run() -> None:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(runs())

    run.events = events  # type: ignore[attr-defined]
    return run


def main_paced() -> None:
    """Instructions per request of each shape, telemetry off and on (callgrind, one process
    each), and the ratio on / off."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import instruction_guard

    print(
        f"instructions per run (callgrind, {PACED_RUNS} runs through create_app's ASGI app in"
        " process, uvloop;\ntelemetry on: the SDK's TracerProvider + BatchSpanProcessor, a"
        " MeterProvider + reader)"
    )
    print(f"{'shape':<28} {'off':>12} {'on':>12} {'on / off':>9}")
    for shape, label in SHAPES.items():
        counts = {}
        for mode in ("off", "on"):
            flag = f"--paced-worker {mode} {shape}"
            (total,) = instruction_guard.callgrind_totals(__file__, flag, 1)
            counts[mode] = total / PACED_RUNS
        print(
            f"{label:<28} {counts['off']:>12,.0f} {counts['on']:>12,.0f}"
            f" {counts['on'] / counts['off']:>9.3f}"
        )
    print("target (issue 38): on / off <= 1.05 for both")


def main_instructions(events: int) -> None:
    """Instructions per event and per 20-event run, each the difference between a process
    making 3 runs and one making 1 (start-up and set-up cancel); steady under load."""
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (apt-get install valgrind)")
    per_event: dict[str, float] = {}
    per_run: dict[str, float] = {}
    for mode in MODES:
        per_event[mode] = (instructions(mode, events, 3) - instructions(mode, events, 1)) / (
            2 * (events + 4)
        )
        per_run[mode] = (instructions(mode, 20, 41) - instructions(mode, 20, 1)) / 40
    print("instructions (callgrind): run_agent into an SSE encoding sink, in process")
    print(f"{'mode':<14} {'per event':>10} {'vs off':>7} {'per 20-event run':>17} {'vs off':>7}")
    for mode in MODES:
        print(
            f"{mode:<14} {per_event[mode]:>10,.0f} {per_event['off'] / per_event[mode]:>7.3f}"
            f" {per_run[mode]:>17,.0f} {per_run['off'] / per_run[mode]:>7.3f}"
        )


class Server:
    def __init__(self, mode: str) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", mode, "--port", str(self.port)],
            env={**os.environ, "PYTHONPATH": str(REPO / "benchmarks")},
        )

    def __enter__(self) -> Server:
        import socket

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.process.kill()
        raise RuntimeError("the server did not start")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

    def cpu_ns(self) -> int:
        """CPU time the server process has used, all its threads (the span processor's too),
        in nanoseconds (``schedstat``: what other jobs on the machine do not change)."""
        total = 0
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])
        return total


async def measure(server: Server, events: int, runs: int) -> tuple[float, float]:
    """Server CPU per event: (ns per event of one long run, µs per short run of 20 events)."""
    port = server.port
    await one_run(port, 100, 0, "warm-up")
    before = server.cpu_ns()
    _, _, response = await one_run(port, events, 0, "long")
    long_ns = (server.cpu_ns() - before) / (events + 4)
    assert complete(response, events), "an incomplete run"
    before = server.cpu_ns()
    for index in range(runs):
        _, _, response = await one_run(port, 20, 0, f"short-{index}")
        assert complete(response, 20), "an incomplete run"
    return long_ns, (server.cpu_ns() - before) / runs / 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve", choices=MODES)
    parser.add_argument("--port", type=int)
    parser.add_argument("--instructions", action="store_true", help="count with callgrind")
    parser.add_argument("--instruction-worker", nargs=3, metavar=("MODE", "EVENTS", "LOOPS"))
    parser.add_argument("--paced", action="store_true", help="issue 38's shapes, callgrind")
    parser.add_argument("--paced-worker", nargs=2, metavar=("MODE", "SHAPE"))
    args = parser.parse_args()
    if args.paced_worker:
        import instruction_guard

        instruction_guard.between_markers({"run": paced_workload(*args.paced_worker)})
        return
    if args.paced:
        main_paced()
        return
    if args.instruction_worker:
        mode, events, loops = args.instruction_worker
        instruction_worker(mode, int(events), int(loops))
        return
    if args.instructions:
        main_instructions(args.events)
        return
    if args.serve:
        serve(args.serve, args.port)
        return
    best: dict[str, tuple[float, float]] = dict.fromkeys(MODES, (1e12, 1e12))
    for _ in range(args.rounds):
        for mode in MODES:
            with Server(mode) as server:
                per_event, per_run = asyncio.run(measure(server, args.events, args.runs))
            best[mode] = (min(best[mode][0], per_event), min(best[mode][1], per_run))
    base_event, base_run = best["off"]
    print("server CPU time (best of rounds); events/s = 1 / CPU per event")
    print(
        f"{'mode':<14} {'ns/event':>9} {'events/s':>10} {'vs off':>7}"
        f" {'µs per 20-event run':>20} {'vs off':>7}"
    )
    for mode in MODES:
        per_event, per_run = best[mode]
        print(
            f"{mode:<14} {per_event:>9,.0f} {1e9 / per_event:>10,.0f} "
            f"{base_event / per_event:>7.3f} {per_run:>20,.0f} {base_run / per_run:>7.3f}"
        )


if __name__ == "__main__":
    main()
