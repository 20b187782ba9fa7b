"""``agui replay FILE``: serve a recording as an agent, so a front end can be developed against
a captured run without the backend.

FILE is any recording ``ag_ui.recording`` reads (``agui record``'s timed JSON Lines, JSON
Lines, SSE, protobuf). The server listens on 127.0.0.1 (``--port``, default 8000; 0 picks a free
one) at ``POST /agent`` and, when the recording carries them, ``GET /agent/capabilities``. Each
request is answered with the next recorded run (then from the first again), at the recorded
pace times ``--speed`` (or at once with ``--instant`` or for a recording without times), over
SSE or protobuf as the client asks. ``--match`` answers with the run recorded for the same
last user message instead. Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Literal

from ag_ui.core._listen import agent_url, listen

__all__ = ["register"]

DEFAULT_PORT = 8000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="serve a recording as an agent on 127.0.0.1",
        description="Serve a recorded run (agui record, JSON Lines, SSE or protobuf) as an "
        "AG-UI agent on 127.0.0.1, with its original timing.",
    )
    parser.add_argument("file", help="the recording")
    parser.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="play X times faster than recorded (default 1; 0.5 is half speed)",
    )
    parser.add_argument("--instant", action="store_true", help="send every event at once")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any)"
    )
    parser.add_argument("--path", default="/agent", help="where to serve it (default /agent)")
    parser.add_argument(
        "--match",
        action="store_true",
        help="answer with the run recorded for the same last user message",
    )
    parser.set_defaults(func=run, parser=parser)


def _bind(port: int) -> socket.socket:
    try:
        return listen("127.0.0.1", port)
    except ValueError as exc:
        raise SystemExit(f"agui replay: {exc}") from None


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    if args.speed <= 0:
        parser.error(f"--speed must be > 0, got {args.speed}")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0-65535, got {args.port}")
    try:
        import uvicorn

        from ag_ui.testing import ScriptedAgent
    except ImportError as exc:
        raise SystemExit(
            f"agui replay needs the testing extra: pip install 'ag-ui-sdk[testing]' ({exc})"
        ) from None
    from ag_ui.recording import read_recording

    try:
        with open(args.file, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        print(f"agui replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    recording = read_recording(data)  # a DecodeError is printed as one line by agui
    if not any(run.events for run in recording.runs):
        print(f"agui replay: {args.file} holds no events", file=sys.stderr)
        return 2
    pacing: Literal["instant", "recorded"] = (
        "instant" if args.instant or not recording.timed else "recorded"
    )
    agent = ScriptedAgent.from_recording(
        recording, pacing=pacing, speed=args.speed, select="match" if args.match else "sequence"
    )
    sock = _bind(args.port)
    url = agent_url("127.0.0.1", sock, args.path)
    runs = len(agent.runs)
    events = sum(len(r.events) for r in agent.runs)
    if pacing == "recorded":
        timing = "recorded timing" + (f" x{args.speed:g}" if args.speed != 1 else "")
    elif recording.timed:
        timing = "no delays (--instant)"
    else:
        timing = "no delays (the recording has no arrival times)"
    print(
        f"Replaying {args.file} ({runs} run{'s' if runs != 1 else ''}, {events} events, {timing})"
    )
    extra = f" (capabilities: {url}/capabilities)" if agent.capabilities is not None else ""
    print(f"AG-UI agent on {url}{extra}. Ctrl-C stops it.", flush=True)
    config = uvicorn.Config(
        agent.app(path=args.path), log_level="warning", lifespan="off", timeout_graceful_shutdown=1
    )
    uvicorn.Server(config).run(sockets=[sock])
    return 0
