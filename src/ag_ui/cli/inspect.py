"""``agui inspect URL | FILE``: a browser inspector for an agent or a recording.

``agui inspect http://127.0.0.1:8000/agent`` serves a page on 127.0.0.1 (a free port, printed,
and opened when a browser is available) where you talk to the agent: this process is the
client, so protobuf is decoded and every event is verified and reduced by this SDK.
``--tap`` also shows, live, the runs other clients make (the server needs ``tap=True``).
``agui inspect run.jsonl`` plays a recording (JSON Lines, timed JSON Lines, SSE or protobuf)
back with its timing (``--speed``, ``--play``). See docs/inspector.md.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ag_ui.cli._arguments import add_header_option, header_options

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "inspect",
        help="inspect an agent (URL) or a recording (FILE) in the browser",
        description="Serve a local page that shows an AG-UI conversation: the messages, every "
        "event, the state at any event, verifier findings and timing. With a URL you talk to "
        "the agent from the page; with a FILE you play a recording back.",
    )
    parser.add_argument("target", help="an agent URL (http://...) or a recording file")
    add_header_option(parser)
    parser.add_argument("--proto", action="store_true", help="ask for protobuf frames by default")
    parser.add_argument(
        "--tap",
        action="store_true",
        help="also watch the runs other clients make (the server must run with tap=True)",
    )
    parser.add_argument(
        "--tap-token",
        default=os.environ.get("AGUI_TAP_TOKEN"),
        metavar="TOKEN",
        help="the server's tap token, if it has one (default: $AGUI_TAP_TOKEN)",
    )
    parser.add_argument("--speed", type=float, default=1.0, help="playback speed (default 1)")
    parser.add_argument("--play", action="store_true", help="start playing the recording at once")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: free)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.set_defaults(func=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    try:
        from ag_ui.inspect import Inspector, serve
    except ImportError as exc:
        raise SystemExit(f"agui inspect: {exc}") from None
    if not 0 < args.speed <= 1000:
        parser.error("--speed must be in (0, 1000]")
    target: str = args.target
    if target.startswith(("http://", "https://")):
        inspector = Inspector(
            url=target,
            headers=header_options(parser, args.header),
            proto=args.proto,
            tap=args.tap,
            tap_token=args.tap_token,
        )
        inspector.new_thread()
    else:
        if args.tap or args.header or args.proto:
            parser.error("--tap, --header and --proto go with an agent URL, not a file")
        inspector = Inspector()
        inspector.open(Path(target), speed=args.speed, play=args.play)
    return serve(inspector, port=args.port, open_browser=not args.no_browser)
