"""Inspector responsiveness with large sessions: 5,000 and 50,000 events side by side.

Run: ``.venv/bin/python benchmarks/bench_inspector.py [--sizes 5000,50000]`` (needs Debian's
``chromium``, which ``scripts/test`` installs, and the ``playwright`` package of the dev extra).

For each size, a timed recording of a long conversation (runs of streamed text, a tool call
and state deltas, 5 ms apart) is written and opened with ``agui inspect``'s machinery; then a
real headless Chromium loads the page and the script measures:

- **open**: reading and analysing the recording in Python (decode, verifier, reducer, timing);
- **page load**: navigation start until every row is in the timeline and drawn;
- **scroll**: jumping the timeline to 30 random positions, until the next frame is drawn
  (median and worst);
- **filter**: a payload search that matches ~1% of the rows, one that matches none, and hiding
  a category (the JavaScript time to refilter and redraw);
- **select**: selecting the middle event until its detail (JSON, state, diff) is drawn.

Absolute times drift on shared machines; the 50,000 / 5,000 ratio shows how each step scales
(the virtualised list keeps scroll constant; filter and load are linear).
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from ag_ui.inspect import Inspector, create_inspector_app
from ag_ui.recording import encode_event_line, encode_header

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GAP = 0.005


def _run(run: int) -> list[dict[str, Any]]:
    ids = {"threadId": "t", "runId": f"r{run}"}
    message, call = f"m{run}", f"c{run}"
    words = [f"w{i} " for i in range(36)]
    pieces = ('{"q": ', f'"item {run}"', "}")
    return [
        {"type": "RUN_STARTED", **ids},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/turns", "value": run}]},
        {"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": w} for w in words),
        {"type": "TEXT_MESSAGE_END", "messageId": message},
        {"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "lookup"},
        *({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": piece} for piece in pieces),
        {"type": "TOOL_CALL_END", "toolCallId": call},
        {"type": "TOOL_CALL_RESULT", "messageId": f"t{run}", "toolCallId": call, "content": "ok"},
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/notes/-", "value": f"n{run}"}]},
        {"type": "RUN_FINISHED", **ids},
    ]  # fmt: skip


def conversation(size: int) -> bytes:
    """A legal timed recording of exactly ``size`` events: whole runs of streamed text, a tool
    call and state deltas (the last run padded with CUSTOM events), ``GAP`` seconds apart."""
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r0"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"turns": 0, "notes": []}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r0"},
    ]
    run = 0
    while len(events) + len(_run(run + 1)) <= size:
        run += 1
        events += _run(run)
    padding = size - len(events)
    if padding:
        last = events[-1]
        events[-1:] = [{"type": "CUSTOM", "name": "pad", "value": i} for i in range(padding)]
        events.append(last)
    lines = [encode_header(source="bench_inspector")]
    lines += [encode_event_line(e, at=round(i * GAP, 6)) for i, e in enumerate(events)]
    return b"".join(lines)


def serve(app: Any) -> tuple[uvicorn.Server, str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, f"http://127.0.0.1:{sock.getsockname()[1]}"


SCROLL_JS = """async (positions) => {
  // Per jump: the JavaScript that redraws the rows in view, and the time until the browser has
  // laid out and painted that frame (measured to the next animation frame after it).
  const timeline = window.__inspector.timeline, c = timeline.container, script = [], frame = [];
  await new Promise((r) => requestAnimationFrame(r));
  for (const fraction of positions) {
    await new Promise((r) => requestAnimationFrame(r));
    const t0 = performance.now();
    c.scrollTop = fraction * (c.scrollHeight - c.clientHeight);
    timeline.render(false);
    const t1 = performance.now();
    void c.offsetHeight;  // force the layout of the new rows now, inside the measurement
    await new Promise((r) => requestAnimationFrame(r));
    script.push(t1 - t0);
    frame.push(performance.now() - t0);
  }
  return [script, frame];
}"""

FILTER_JS = """async (query) => {
  const timeline = window.__inspector.timeline;
  const t0 = performance.now();
  timeline.filters.query = query;
  timeline.refilter();
  await new Promise((r) => requestAnimationFrame(r));
  const elapsed = performance.now() - t0;
  const shown = timeline.shown.length;
  timeline.filters.query = "";
  timeline.refilter();
  return [elapsed, shown];
}"""

CATEGORY_JS = """async () => {
  const timeline = window.__inspector.timeline;
  const t0 = performance.now();
  timeline.filters.categories.add("text");
  timeline.refilter();
  await new Promise((r) => requestAnimationFrame(r));
  const elapsed = performance.now() - t0;
  const shown = timeline.shown.length;
  timeline.filters.categories.delete("text");
  timeline.refilter();
  return [elapsed, shown];
}"""


SELECT_JS = """async (index) => {
  // Select an event and wait until its detail (JSON, state, diff) came back and was drawn.
  const page = window.__inspector, t0 = performance.now();
  page.timeline.select(index);
  while (!page.detail || page.detail.row.i !== index) {
    await new Promise((r) => requestAnimationFrame(r));
  }
  return performance.now() - t0;
}"""


def measure(size: int, folder: Path, playwright: Any) -> dict[str, float]:
    path = folder / f"conversation-{size}.jsonl"
    path.write_bytes(conversation(size))
    inspector = Inspector()
    started = time.perf_counter()
    session = inspector.open(path)
    opened = time.perf_counter() - started
    assert len(session.rows) == size
    assert not session.findings()
    server, base = serve(create_inspector_app(inspector))
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.goto(base + "/")
        page.wait_for_function(
            f"() => window.__inspector.timeline && window.__inspector.timeline.rows.length === {size}",  # noqa: E501
            timeout=120_000,
        )
        loaded = page.evaluate(
            "() => new Promise((r) => requestAnimationFrame(() => r(performance.now())))"
        )
        import random

        positions = [random.Random(size + i).random() for i in range(30)]
        scripts, scrolls = page.evaluate(SCROLL_JS, positions)
        search, matched = page.evaluate(FILTER_JS, "item 7")
        nothing, _ = page.evaluate(FILTER_JS, "no such text anywhere")
        category, shown = page.evaluate(CATEGORY_JS)
        selected = page.evaluate(SELECT_JS, size // 2)
        heap = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : 0")
    finally:
        browser.close()
        server.should_exit = True
    return {
        "open (Python) ms": opened * 1000,
        "page load ms": loaded,
        "scroll: redraw JS median ms": statistics.median(scripts),
        "scroll: to next frame median ms": statistics.median(scrolls),
        "scroll: to next frame worst ms": max(scrolls),
        "search ~1% ms": search,
        "search none ms": nothing,
        "hide a category ms": category,
        "select + detail ms": selected,
        "JS heap MB": heap / 1e6,
        "_matched": matched,
        "_shown": shown,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="5000,50000")
    args = parser.parse_args()
    if shutil.which(CHROMIUM) is None:
        print(f"{CHROMIUM} is missing: run scripts/test (it installs chromium)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    sizes = [int(size) for size in args.sizes.split(",")]
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        for size in sizes:
            results[size] = measure(size, Path(folder), playwright)
    names = [name for name in results[sizes[0]] if not name.startswith("_")]
    header = "| measure | " + " | ".join(f"{size:,} events" for size in sizes)
    if len(sizes) == 2:
        header += f" | {sizes[1]:,} / {sizes[0]:,}"
    print(header + " |")
    print("|---" * (len(sizes) + 1 + (len(sizes) == 2)) + "|")
    for name in names:
        cells = [f"{results[size][name]:.1f}" for size in sizes]
        if len(sizes) == 2:
            ratio = results[sizes[1]][name] / max(results[sizes[0]][name], 1e-9)
            cells.append(f"{ratio:.1f}x")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(json.dumps({size: {k: round(v, 1) for k, v in r.items()} for size, r in results.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
