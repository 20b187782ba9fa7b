"""Draw docs/images/trace.svg: the trace of one demo run, from the spans the real SDK exported.

A browser-side span ("send message") makes the request through ``HttpAgent``, which sends its
``traceparent``; the demo agent on uvicorn answers "weather in Paris" (a step, a backend tool
call, a second step). Every span is caught by the SDK's in-memory exporter and drawn as a
waterfall: one row per span, indented under its parent, its bar where it ran.

    .venv/bin/python scripts/trace_picture.py [docs/images/trace.svg]
"""

from __future__ import annotations

import html
import socket
import sys
from pathlib import Path

import anyio
import uvicorn
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ag_ui import telemetry
from ag_ui.client import HttpAgent
from ag_ui.demo import create_demo_app

OUT = Path(__file__).resolve().parent.parent / "docs" / "images" / "trace.svg"


async def record(exporter: InMemorySpanExporter, provider: TracerProvider) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_demo_app(delay=0.01), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: server.serve(sockets=[sock]))
        while not server.started:
            await anyio.sleep(0.01)
        url = f"http://127.0.0.1:{port}/agent"
        warm_up = HttpAgent(url, thread_id="warm-up")  # the client's first-use costs, untraced
        warm_up.add_message({"id": "u0", "role": "user", "content": "hello"})
        await warm_up.run_agent(run_id="run-0")
        exporter.clear()
        agent = HttpAgent(url, thread_id="thread-paris")
        agent.add_message({"id": "u1", "role": "user", "content": "weather in Paris"})
        with provider.get_tracer("browser").start_as_current_span("send message"):
            await agent.run_agent(run_id="run-1")
        server.should_exit = True


def rows(spans: list[ReadableSpan]) -> list[tuple[int, ReadableSpan]]:
    """(depth, span) in tree order, children by start time."""
    by_parent: dict[int | None, list[ReadableSpan]] = {}
    ids = {span.context.span_id for span in spans if span.context}
    for span in sorted(spans, key=lambda s: s.start_time or 0):
        parent = span.parent.span_id if span.parent and span.parent.span_id in ids else None
        by_parent.setdefault(parent, []).append(span)
    ordered: list[tuple[int, ReadableSpan]] = []

    def walk(parent: int | None, depth: int) -> None:
        for span in by_parent.get(parent, []):
            ordered.append((depth, span))
            walk(span.context.span_id if span.context else None, depth + 1)

    walk(None, 0)
    return ordered


def svg(spans: list[ReadableSpan]) -> str:
    ordered = rows(spans)
    start = min(span.start_time or 0 for span in spans)
    end = max(span.end_time or 0 for span in spans)
    total = max(end - start, 1)
    label_width, bar_width, row, top = 330, 560, 30, 54
    width, height = label_width + bar_width + 90, top + row * len(ordered) + 40
    trace_id = format(ordered[0][1].context.trace_id, "032x") if ordered[0][1].context else ""
    colors = {"invoke_agent": "#4f6df5", "step": "#2aa876", "tool_call": "#e8993b"}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="16" y="24" font-size="15" font-weight="bold">Trace {trace_id}</text>',
        f'<text x="16" y="42" font-size="12" fill="#555">{len(ordered)} spans, '
        f"{total / 1e6:.1f} ms, exported by the OpenTelemetry SDK (in-memory exporter)</text>",
    ]
    for index, (depth, span) in enumerate(ordered):
        y = top + index * row
        begin = ((span.start_time or 0) - start) / total * bar_width
        length = max(((span.end_time or 0) - (span.start_time or 0)) / total * bar_width, 2)
        color = colors.get(span.name.split(" ")[0], "#8a8f98")
        if index % 2 == 0:
            out.append(f'<rect x="0" y="{y}" width="{width}" height="{row}" fill="#f5f6f8"/>')
        name = html.escape(span.name)
        out.append(f'<text x="{16 + depth * 18}" y="{y + 19}" font-size="13">{name}</text>')
        out.append(
            f'<rect x="{label_width + begin:.1f}" y="{y + 7}" width="{length:.1f}" height="16" '
            f'rx="3" fill="{color}"/>'
        )
        duration = ((span.end_time or 0) - (span.start_time or 0)) / 1e6
        out.append(
            f'<text x="{label_width + begin + length + 6:.1f}" y="{y + 19}" font-size="11" '
            f'fill="#444">{duration:.1f} ms</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.instrument(tracer_provider=provider)
    anyio.run(record, exporter, provider)
    target.write_text(svg(list(exporter.get_finished_spans())), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
