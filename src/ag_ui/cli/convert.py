"""``agui convert FILE --to jsonl|sse|proto [-o OUT]``: convert a recorded event stream.

Reads JSON Lines, SSE or protobuf frames (detected from the first bytes, or named with
``--from``) and writes the same events in another format. Users capture binary streams and need
to read them: ``agui convert capture.bin --to jsonl``.
"""

from __future__ import annotations

import argparse
import sys
from typing import BinaryIO, Callable

from ag_ui.cli._arguments import input_file, output_file
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import UnknownEventTypeError
from ag_ui.encoder import event_to_json, sse_frame
from ag_ui.recording import FORMATS, Format, detect_format, read_events


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "convert",
        help="convert a recorded stream between JSON Lines, SSE and protobuf frames",
        description="Read a recorded event stream (format detected from its first bytes) and "
        "write it as JSON Lines (one wire-JSON event per line), SSE frames or protobuf frames. "
        "Events of unknown types are skipped with a warning unless --strict.",
    )
    parser.add_argument("file", type=input_file, help="recorded stream; '-' for stdin")
    parser.add_argument("--to", required=True, choices=FORMATS, help="output format")
    parser.add_argument("--from", dest="source_format", choices=FORMATS, help="input format")
    parser.add_argument("-o", "--output", type=output_file, help="output file (default: stdout)")
    parser.add_argument(
        "--strict", action="store_true", help="fail on events of unknown types instead"
    )
    parser.set_defaults(func=run)


def _writer(fmt: Format) -> Callable[[AnyEvent], bytes]:
    if fmt == "jsonl":
        return lambda event: event_to_json(event) + b"\n"
    if fmt == "sse":
        return lambda event: sse_frame(event_to_json(event))
    from ag_ui.proto import encode_frame  # needs the proto extra

    return encode_frame  # type: ignore[return-value]


def _read_input(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    with open(name, "rb") as stream:
        return stream.read()


def run(args: argparse.Namespace) -> int:
    if args.to == "proto" and args.output is None and sys.stdout.isatty():
        print(
            "agui convert: refusing to write binary protobuf frames to a terminal; "
            "use -o FILE or pipe the output",
            file=sys.stderr,
        )
        return 2
    data = _read_input(args.file)
    source: Format = args.source_format or (detect_format(data) if data else "jsonl")
    write = _writer(args.to)
    skipped: list[UnknownEventTypeError] = []
    # A reader that goes away (``| head``) raises BrokenPipeError: ``ag_ui.cli.main`` ends quietly.
    out: BinaryIO = open(args.output, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
    try:
        for event in read_events(data, source, skipped=skipped):
            if skipped and args.strict:
                raise skipped[0]
            out.write(write(event))
        out.flush()
    finally:
        if args.output:
            out.close()
    if skipped and args.strict:
        raise skipped[0]
    for problem in skipped:
        print(f"agui convert: skipped an event: {problem}", file=sys.stderr)
    return 0
