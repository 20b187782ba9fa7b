"""``agui encode``: read events as JSON (one per line), validate them, write SSE frames.

A small producer-side tool: check that hand-written events are valid and see their wire form.
"""

from __future__ import annotations

import argparse
import sys

from ag_ui.cli._arguments import input_file
from ag_ui.core.decoding import parse_any_event
from ag_ui.core.errors import AGUIValidationError
from ag_ui.encoder import EventEncoder


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "encode",
        help="validate JSON Lines events and print them as SSE frames",
        description="Read one JSON event per line (wire or Python field names) from FILE or "
        "stdin, validate each, and write its SSE frame (camelCase, unset fields omitted).",
    )
    parser.add_argument(
        "file", nargs="?", type=input_file, default="-", help="JSON Lines file, '-' for stdin"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    encoder = EventEncoder()
    stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    with stream:
        for number, line in enumerate(stream, start=1):  # streams: one frame per line read
            if not line.strip():
                continue
            try:
                event = parse_any_event(line)
            except AGUIValidationError as exc:
                print(f"agui encode: line {number}: {exc}", file=sys.stderr)
                return 1
            sys.stdout.write(encoder.encode(event))
    return 0
