"""``agui validate URL``: drive a live AG-UI endpoint through conformance scenarios.

Every stream is graded with the strict verifier; each scenario is reported passed, failed (the
rule id, the run, the event index and the fix) or not exercised (and why). ``--scenario``
picks scenarios (repeatable), ``--message`` the first user message (``--scenario-message
NAME=TEXT`` one scenario's), ``--header`` adds HTTP headers, ``--output`` is ``text``
(default), ``json`` or ``junit``. Exit status 0 iff nothing failed; 2 for bad options.
docs/validate.md lists the scenarios and the rule catalogue.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ag_ui.cli._arguments import add_header_option, header_options

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "validate",
        help="grade a live endpoint through conformance scenarios",
        description="Drive an AG-UI endpoint through whole conversations (text, multi-turn, "
        "state, a frontend tool, interrupts, cancellation, protobuf, reconnect, concurrency, "
        "malformed requests, capabilities) and grade every stream with the strict verifier. "
        "Exit status 0 iff nothing failed.",
    )
    parser.add_argument("url", help="the agent endpoint, e.g. http://127.0.0.1:8000/agent")
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this scenario (repeatable); default: all",
    )
    parser.add_argument("-m", "--message", default=None, metavar="TEXT", help="first user message")
    parser.add_argument(
        "--scenario-message",
        action="append",
        default=[],
        metavar="NAME=TEXT",
        help="the first user message of one scenario (repeatable), e.g. tools='frontend call' "
        "or interrupt='book a table'",
    )
    add_header_option(parser)
    parser.add_argument(
        "--output", choices=("text", "json", "junit"), default="text", help="report format"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="give up on a stream after this long without any event or keepalive (default 30)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        metavar="SECONDS",
        help="give up on a response that has not ended after this long (default 120)",
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=None,
        metavar="N",
        help="stop reading a response past this many bytes (default 4194304, 4 MiB)",
    )
    parser.add_argument(
        "--max-events",
        type=int,
        default=None,
        metavar="N",
        help="stop reading a stream past this many events (default 5000)",
    )
    parser.add_argument(
        "--strict-draft",
        action="store_true",
        help="grade the draft specification's rules as failures (RUN_FINISHED naming another "
        "run or thread, a second run on another thread, duplicate interrupt ids)",
    )
    parser.set_defaults(func=run, parser=parser, extra="testing")


def run(args: argparse.Namespace) -> int:
    import anyio

    from ag_ui.testing.validation import (
        DEFAULT_MAX_BYTES,
        DEFAULT_MAX_EVENTS,
        DEFAULT_MAX_SECONDS,
        DEFAULT_MESSAGE,
        SCENARIOS,
        validate,
    )

    parser: argparse.ArgumentParser = args.parser
    headers = header_options(parser, args.header)
    unknown = [name for name in args.scenario if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}; choose from: {', '.join(SCENARIOS)}")
    if not args.url.startswith(("http://", "https://")):
        parser.error(f"URL must start with http:// or https://, got {args.url!r}")
    for option, value in (
        ("--timeout", args.timeout),
        ("--max-seconds", args.max_seconds),
        ("--max-bytes", args.max_bytes),
        ("--max-events", args.max_events),
    ):
        if value is not None and value <= 0:
            parser.error(f"{option} must be > 0, got {value}")
    messages: dict[str, str] = {}
    for value in args.scenario_message:
        name, equals, text = value.partition("=")
        if not equals or not text:
            parser.error(f"--scenario-message must look like NAME=TEXT, got {value!r}")
        if name not in SCENARIOS:
            choices = ", ".join(SCENARIOS)
            parser.error(f"--scenario-message: unknown scenario {name!r}; choose from: {choices}")
        messages[name] = text

    async def main() -> Any:
        return await validate(
            args.url,
            scenarios=args.scenario or None,
            message=args.message or DEFAULT_MESSAGE,
            messages=messages,
            headers=headers,
            idle_timeout=args.timeout,
            strict_draft=args.strict_draft,
            max_seconds=args.max_seconds or DEFAULT_MAX_SECONDS,
            max_bytes=args.max_bytes or DEFAULT_MAX_BYTES,
            max_events=args.max_events or DEFAULT_MAX_EVENTS,
        )

    report = anyio.run(main)
    rendered = {"text": report.text, "json": report.json, "junit": report.junit}[args.output]()
    sys.stdout.write(rendered + "\n")
    return 0 if report.ok else 1
