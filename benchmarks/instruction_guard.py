"""Instruction counts of the core workloads, for the CI guard (tests/benchmarks_guard).

Run: ``.venv/bin/python benchmarks/instruction_guard.py`` prints the counts beside the recorded
ones; ``--record`` writes them to ``benchmarks/instruction_counts.json`` (do that, and commit the
file, when a change makes a workload dearer on purpose or cheaper: the guard then holds the new
numbers). Needs valgrind (``scripts/test`` installs it).

One process under callgrind does everything: imports and warm-up first, then each workload,
with ``os.getppid()`` between them as a marker. ``--dump-before=getppid`` makes callgrind write
the counts gathered since the previous marker each time libc's ``getppid`` is entered, so each
workload's count is its own dump and start-up (most of the process) is left out. One process
instead of one per workload keeps the guard at about 10 s of CPU. Hash seeds are fixed and the
cyclic collector is off while counting, so the counts repeat to well under 1%.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
RECORD = HERE / "instruction_counts.json"
# A workload may cost this much more than recorded before the guard fails.
TOLERANCE = 0.10
HISTORY = 10_000
DELTAS = 200
SERVER_DELTAS = 1_000
SNAPSHOT_TURNS = 10  # 30 messages
SNAPSHOTS = 10


def workloads() -> dict[str, Callable[[], None]]:
    """The guarded workloads, each a fixed amount of work (the names are the JSON's keys)."""
    sys.path.insert(0, str(HERE))
    from workloads import stream_mix

    from ag_ui.apply import AgentState, EventPipeline, apply_event
    from ag_ui.core import (
        RunStartedEvent,
        TextMessageContentEvent,
        TextMessageStartEvent,
        parse_event,
    )
    from ag_ui.encoder import EventEncoder

    wire = stream_mix()
    events = [parse_event(json.dumps(d)) for d in wire]
    classes = [type(e) for e in events]
    kwargs = [e.model_dump() for e in events]
    payloads = [json.dumps(d, separators=(",", ":"), ensure_ascii=False).encode() for d in wire]
    encoder = EventEncoder()
    history = [{"id": f"h{i}", "role": "user", "content": "hello"} for i in range(HISTORY)]
    long_state = apply_event(AgentState(messages=history), TextMessageStartEvent(message_id="n"))
    delta = TextMessageContentEvent(message_id="n", delta="tok ")

    def sse_encode() -> None:
        for event in events:
            encoder.encode(event)

    # The server's protobuf sink is encode_binary with protobuf negotiated (server/_bound_run.py).
    proto_encoder = EventEncoder(accept="application/vnd.ag-ui.event+proto")
    snapshot = parse_event({"type": "MESSAGES_SNAPSHOT", "messages": _history(SNAPSHOT_TURNS)})

    def proto_encode() -> None:
        for event in events:
            proto_encoder.encode_binary(event)

    def proto_snapshot() -> None:
        for _ in range(SNAPSHOTS):
            proto_encoder.encode_binary(snapshot)

    def construct_encode() -> None:
        for cls, kw in zip(classes, kwargs, strict=True):
            encoder.encode(cls(**kw))

    def decode() -> None:
        for payload in payloads:
            parse_event(payload)

    def reducer_delta() -> None:
        state = long_state
        for _ in range(DELTAS):
            state = apply_event(state, delta)

    pipeline = EventPipeline(messages=history)
    pipeline.feed(RunStartedEvent(thread_id="t", run_id="r"))
    pipeline.feed(TextMessageStartEvent(message_id="n"))

    def pipeline_delta() -> None:
        for _ in range(DELTAS):
            pipeline.feed(delta)

    return {
        "sse_encode": sse_encode,
        "proto_encode": proto_encode,
        "proto_snapshot": proto_snapshot,
        "construct_encode": construct_encode,
        "decode": decode,
        "reducer_delta": reducer_delta,
        "pipeline_delta": pipeline_delta,
        "server_run": _server_run(),
        "server_paced": _server_run(paced=True),
        "floor_paced": _floor_paced_run(),
        "client_run": _client_run(encoder, events),
    }


def _history(turns: int) -> list[dict[str, Any]]:
    """``turns`` user / assistant-with-a-tool-call / tool message triples (bench_proto's)."""
    call = {"id": "c", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
    messages: list[dict[str, Any]] = []
    for i in range(turns):
        messages += [
            {"id": f"u{i}", "role": "user", "content": "What is the weather in Paris today?"},
            {"id": f"a{i}", "role": "assistant", "content": "Let me look.", "toolCalls": [call]},
            {"id": f"t{i}", "role": "tool", "toolCallId": "c", "content": "sunny, 21 °C"},
        ]
    return messages


def _client_run(encoder: Any, events: list[Any]) -> Callable[[], None]:
    """``HttpAgent.run_agent`` over the stream mix's SSE bytes from an in-memory httpx
    transport, with one ``on_event`` subscriber (bench_client.py's first table, its third row):
    decode, verify, subscribers and reducer, without a socket."""
    import asyncio

    import httpx

    from ag_ui.client import HttpAgent

    data = b"".join(encoder.encode_sse(event) for event in events)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=data, headers={"content-type": "text/event-stream"})

    async def call() -> None:
        seen: list[object] = []
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
            agent = HttpAgent("http://memory/agent", http_client=client)
            agent.subscribe({"on_event": lambda params: seen.append(params.event)})
            await agent.run_agent()
        if len(seen) != len(events):
            raise RuntimeError("client_run: the run did not see every event")

    return lambda: asyncio.run(call())


def _server_run(
    verify: bool = True,
    accept: bytes = b"text/event-stream",
    version: str | None = None,
    *,
    paced: bool = False,
) -> Callable[[], None]:
    """One streamed run through ``create_app``'s ASGI app, in process (no socket): the agent
    builds SERVER_DELTAS text deltas; the guard, verifier, downgrade sink and writer do the rest.

    ``paced``: the agent awaits ``asyncio.sleep(0)`` before each delta, as an agent relaying a
    model's tokens awaits between them, so nothing can be batched: each event is its own trip
    from the agent to ``send`` (``server_paced``, the shape users feel; ``server_run`` is the
    bulk shape, where the writer coalesces what the agent yields without awaiting).

    The guard's workloads take the defaults; ``bench_server.py --instructions`` varies them to
    tell the layers apart (``version="1.1"``: no downgrading sink).
    """
    import asyncio

    from ag_ui.core import TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent
    from ag_ui.server import create_app

    async def agent(run_input: Any, ctx: Any) -> Any:
        yield TextMessageStartEvent(message_id="m")
        for _ in range(SERVER_DELTAS):
            if paced:
                await asyncio.sleep(0)
            yield TextMessageContentEvent(message_id="m", delta="tok ")
        yield TextMessageEndEvent(message_id="m")

    app = create_app(agent, keepalive=None, verify=verify)
    run_input: dict[str, Any] = {"threadId": "t", "runId": "r", "messages": []}
    if version is not None:
        run_input["protocolVersion"] = version
    body = json.dumps(run_input).encode()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/agent",
        "raw_path": b"/agent",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"content-type", b"application/json"),
            (b"accept", accept),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }

    async def call() -> None:
        received = asyncio.Event()
        sent: list[bytes] = []

        async def receive() -> dict[str, Any]:
            if not received.is_set():
                received.set()
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client never disconnects
            raise AssertionError

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message.get("body", b""))

        await app(scope, receive, send)
        # The delta's text, which both transports carry as is (a protobuf frame names its type
        # by number).
        if b"".join(sent).count(b"tok ") != SERVER_DELTAS:
            raise RuntimeError("server_run: the run did not stream every delta")

    return lambda: asyncio.run(call())


def _floor_paced_run() -> Callable[[], None]:
    """``server_paced``'s floor: the same paced run from a bare ASGI app that builds each event,
    encodes it (``encode_sse``) and sends it, one ASGI message per event, nothing between (no
    guard, no verifier, no router). ``server_paced`` over this is what our layers cost."""
    import asyncio

    from ag_ui.core import (
        RunFinishedEvent,
        RunStartedEvent,
        TextMessageContentEvent,
        TextMessageEndEvent,
        TextMessageStartEvent,
    )
    from ag_ui.encoder import EventEncoder

    encode = EventEncoder().encode_sse
    body = json.dumps({"threadId": "t", "runId": "r", "messages": []}).encode()

    async def app(receive: Any, send: Any) -> None:
        run = json.loads((await receive())["body"])
        ids = {"thread_id": run["threadId"], "run_id": run["runId"]}
        await send({"type": "http.response.start", "status": 200, "headers": []})

        async def out(event: Any) -> None:
            await send({"type": "http.response.body", "body": encode(event), "more_body": True})

        await out(RunStartedEvent(**ids))
        await out(TextMessageStartEvent(message_id="m"))
        for _ in range(SERVER_DELTAS):
            await asyncio.sleep(0)
            await out(TextMessageContentEvent(message_id="m", delta="tok "))
        await out(TextMessageEndEvent(message_id="m"))
        await out(RunFinishedEvent(**ids))

    async def call() -> None:
        sent: list[bytes] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message.get("body", b""))

        await app(receive, send)
        if b"".join(sent).count(b"tok ") != SERVER_DELTAS:
            raise RuntimeError("floor_paced: the run did not stream every delta")

    return lambda: asyncio.run(call())


WORK = {
    "sse_encode": "one pass over the 558-event stream mix",
    "proto_encode": "EventEncoder.encode_binary (protobuf) over the stream mix",
    "proto_snapshot": f"encode_binary (protobuf) of a {SNAPSHOT_TURNS * 3}-message "
    f"MESSAGES_SNAPSHOT, {SNAPSHOTS} times",
    "construct_encode": "one pass over the stream mix, each event built from keyword arguments",
    "decode": "parse_event on the stream mix's 558 JSON payloads",
    "reducer_delta": f"{DELTAS} TEXT_MESSAGE_CONTENT through apply_event, {HISTORY:,} messages",
    "pipeline_delta": f"{DELTAS} TEXT_MESSAGE_CONTENT through EventPipeline, {HISTORY:,} messages",
    "server_run": f"a run of {SERVER_DELTAS:,} text deltas through create_app's app, in process",
    "server_paced": "the same run, the agent awaiting asyncio.sleep(0) before each delta",
    "floor_paced": "server_paced's floor: a bare ASGI app building, encoding, sending each event",
    "client_run": "HttpAgent.run_agent over the stream mix from an in-memory transport",
}


def between_markers(runs: dict[str, Callable[[], object]]) -> None:
    """Under callgrind: warm up every workload, then run each between two ``getppid``
    markers (``--dump-before=getppid`` makes each run its own dump)."""
    for run in runs.values():
        run()
    gc.collect()
    gc.disable()
    for run in runs.values():
        os.getppid()
        run()
    os.getppid()


def _worker() -> None:
    between_markers(workloads())


def callgrind_totals(
    script: str, worker_flag: str, workloads: int, python: str = sys.executable
) -> list[int]:
    """Instructions of each of ``workloads`` runs that ``script worker_flag`` makes between
    markers (``between_markers``), counted by callgrind in one fresh process of ``python``
    (``worker_flag`` may hold several arguments, split on spaces)."""
    if shutil.which("valgrind") is None:
        raise RuntimeError("valgrind is not installed (scripts/test installs it: apt-get)")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--dump-before=getppid",
                f"--callgrind-out-file={tmp}/cg.out",
                python,
                script,
                *worker_flag.split(),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        if out.returncode:
            raise RuntimeError(f"callgrind failed: {out.stderr[-2000:]}")
        counts = []
        # Dump 1 is start-up and warm-up; dump k + 1 is workload k.
        for number in range(2, workloads + 2):
            text = Path(tmp, f"cg.out.{number}").read_text()
            match = re.search(r"^totals: (\d+)", text, re.MULTILINE)
            if match is None:
                raise RuntimeError(f"no totals in callgrind dump {number}")
            counts.append(int(match.group(1)))
    return counts


def measure() -> dict[str, int]:
    """Instructions of each workload, counted by callgrind in one fresh process."""
    names = list(WORK)
    return dict(zip(names, callgrind_totals(__file__, "--worker", len(names)), strict=True))


def environment() -> dict[str, str]:
    """What the counts depend on besides the code (recorded beside them)."""
    import pydantic_core

    return {
        "python": platform.python_version(),
        "pydantic_core": pydantic_core.__version__,
        "machine": platform.machine(),
    }


def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORD.read_text())
    return data


def main() -> None:
    counts = measure()
    if "--record" in sys.argv:
        data = {
            "note": "instructions per workload (callgrind); re-record with "
            "`.venv/bin/python benchmarks/instruction_guard.py --record`",
            "environment": environment(),
            "work": WORK,
            "instructions": counts,
        }
        RECORD.write_text(json.dumps(data, indent=2) + "\n")
        print(f"recorded in {RECORD}")
    old = recorded()["instructions"] if RECORD.exists() else {}
    print(f"{'workload':<18}{'now':>14}{'recorded':>14}{'change':>9}")
    for name, count in counts.items():
        before = old.get(name)
        change = f"{count / before - 1:+.1%}" if before else ""
        print(f"{name:<18}{count:>14,}{before or 0:>14,}{change:>9}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        _worker()
    else:
        main()
