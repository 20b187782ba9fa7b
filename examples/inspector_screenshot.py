"""Drive ``agui inspect`` headless and save a screenshot (the picture in docs/inspector.md).

Starts the demo agent and an inspector on free ports of 127.0.0.1, opens the page in Debian's
Chromium (through Playwright, never a downloaded browser), asks "weather in Paris", selects the
state change that stored the answer and saves the page with the State tab open.

Run: ``.venv/bin/python examples/inspector_screenshot.py [OUT.png] [--dark]``
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from playwright.sync_api import sync_playwright

from ag_ui.demo import create_demo_app
from ag_ui.inspect import Inspector, create_inspector_app

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def serve(app: Any) -> tuple[uvicorn.Server, str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, f"http://127.0.0.1:{sock.getsockname()[1]}"


def main() -> None:
    out = Path(next((a for a in sys.argv[1:] if not a.startswith("--")), "inspector.png"))
    demo, demo_url = serve(create_demo_app(delay=0.01))
    inspector = Inspector(url=demo_url + "/agent")
    inspector.new_thread()
    page_server, page_url = serve(create_inspector_app(inspector))
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(page_url + "/")
            page.wait_for_selector("body[data-ready=true]")
            if "--dark" in sys.argv:
                page.keyboard.press("t")
            page.fill("#message", "weather in Paris")
            page.keyboard.press("Control+Enter")
            page.wait_for_selector(".trow[data-type=RUN_FINISHED]")
            page.wait_for_function("() => window.__inspector.summary?.status?.state === 'idle'")
            types = page.evaluate("window.__inspector.timeline.rows.map(r => r.type)")
            target = max(i for i, kind in enumerate(types) if kind == "STATE_DELTA")
            page.evaluate("(i) => window.__inspector.timeline.select(i)", target)
            page.click("#tab-state")
            page.wait_for_selector("#state-tree")
            page.screenshot(path=str(out))
            browser.close()
    finally:
        page_server.should_exit = True
        demo.should_exit = True
    print(f"saved {out}")


if __name__ == "__main__":
    main()
