"""``agui verify FILE``: check a recorded event stream and show the messages and state it builds.

FILE holds JSON Lines (one wire-JSON event per line, or a timed recording as
``ag_ui.recording`` writes it: its header and request lines are skipped) or an SSE recording
(``data:`` frames); ``-`` reads stdin. Events go through ``ag_ui.apply.EventPipeline``
(compatibility, chunk expansion, verification, reducer) from empty messages and state, with a
strict end: a run left open is an error. Exit status 0 iff the stream is legal.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Iterator
from typing import Any, Optional

from ag_ui.apply import EventPipeline
from ag_ui.core.decoding import parse_any_event
from ag_ui.core.errors import AGUIError, ProtocolError, UnknownEventTypeError

__all__ = ["register", "run", "verify_text"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "verify",
        help="check a recorded event stream (JSON Lines or SSE) and show the result",
        description="Run a recorded stream through compatibility translation, chunk "
        "expansion, the protocol verifier and the reducer; print the messages and state it "
        "builds, or the first violation. Exit status 0 iff the stream is legal.",
    )
    parser.add_argument("file", help="JSON Lines or SSE recording; '-' for stdin")
    parser.add_argument(
        "--output",
        choices=("text", "json"),
        default="text",
        help="'json' prints one object {ok, error, messages, state}",
    )
    parser.set_defaults(func=run)


def _sse_payloads(text: str) -> Iterator[tuple[int, str]]:
    # One event per frame; a frame's data lines are joined with "\n" (SSE spec).
    data: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line:
            if data:
                yield start, "\n".join(data)
            data = []
            continue
        if line.startswith("data:"):
            if not data:
                start = number
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield start, "\n".join(data)


def _payloads(text: str) -> Iterator[tuple[int, str]]:
    if any(line.startswith("data:") for line in text.splitlines()):
        yield from _sse_payloads(text)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, _timed_payload(line)


def _timed_payload(line: str) -> str:
    """A timed recording's line (ag_ui.recording) -> its event; the header and the runs'
    request lines carry no event and become blank (skipped below)."""
    if '"type"' in line and not line.lstrip().startswith('{"at"'):
        return line
    try:
        value = json.loads(line)
    except ValueError:
        return line  # reported as not JSON where the event is parsed
    if not isinstance(value, dict) or "type" in value:
        return line
    if "aguiRecording" in value or "input" in value:
        return ""
    if isinstance(value.get("event"), dict):
        return json.dumps(value["event"], ensure_ascii=False)
    return line


def verify_text(text: str) -> dict[str, Any]:
    """Verify a recording; return ``{"ok", "error", "messages", "state"}`` (+ private stats)."""
    pipeline = EventPipeline()
    error: Optional[str] = None
    count = expanded = 0
    skipped: list[str] = []
    for line, payload in _payloads(text):
        if not payload:
            continue  # a timed recording's header or request line
        count += 1
        try:
            event = parse_any_event(payload)
        except UnknownEventTypeError as exc:
            # Like the TypeScript client: an event type from a newer protocol is skipped.
            skipped.append(f"event {count} (line {line}): unknown type {exc.event_type!r}")
            continue
        except AGUIError as exc:
            error = f"event {count} (line {line}): {_describe(exc)}"
            break
        try:
            expanded += len(pipeline.feed(event))
        except AGUIError as exc:
            error = f"event {count} (line {line}): {_describe(exc)}"
            break
    else:
        try:
            pipeline.finish()
        except AGUIError as exc:
            error = f"end of stream: {_describe(exc)}"
    final = pipeline.agent_state
    return {
        "ok": error is None,
        "error": error,
        "messages": list(final.messages),
        "state": final.state,
        "_events": count,
        "_expanded": expanded,
        "_patch_errors": [str(e) for e in pipeline.patch_errors],
        "_skipped": skipped,
    }


def _describe(exc: AGUIError) -> str:
    if isinstance(exc, ProtocolError):
        return f"[{exc.rule}] {exc}"
    return str(exc)


def run(args: argparse.Namespace) -> int:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            print(f"agui verify: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
            return 2
        except UnicodeDecodeError as exc:
            print(f"agui verify: {args.file} is not UTF-8 text ({exc.reason})", file=sys.stderr)
            return 2
    with warnings.catch_warnings():
        if args.output == "json":
            warnings.simplefilter("ignore")
        report = verify_text(text)
    if args.output == "json":
        public = {key: report[key] for key in ("ok", "error", "messages", "state")}
        print(json.dumps(public, ensure_ascii=False))
    else:
        _print_report(report)
    return 0 if report["ok"] else 1


def _print_report(report: dict[str, Any]) -> None:
    if report["ok"]:
        print(f"OK: {report['_events']} events ({report['_expanded']} after chunk expansion)")
    else:
        print(f"FAILED: {report['error']}")
    for problem in report["_patch_errors"]:
        print(f"warning: a patch was skipped: {problem}")
    for skipped in report["_skipped"]:
        print(f"warning: skipped {skipped}")
    print(f"messages ({len(report['messages'])}):")
    for message in report["messages"]:
        print(f"  {_summary(message)}")
    print("state: " + json.dumps(report["state"], ensure_ascii=False, sort_keys=True))


def _summary(message: dict[str, Any]) -> str:
    role, message_id = message.get("role"), message.get("id")
    parts = [f"[{role}] {message_id}"]
    content = message.get("content")
    if isinstance(content, str) and content:
        shown = content if len(content) <= 80 else content[:77] + "..."
        parts.append(json.dumps(shown, ensure_ascii=False))
    elif content is not None and not isinstance(content, str):
        parts.append(json.dumps(content, ensure_ascii=False)[:80])
    for call in message.get("toolCalls") or ():
        function = call.get("function", {})
        parts.append(f"-> {function.get('name')}({function.get('arguments', '')[:60]})")
    if message.get("subagentRunId"):
        parts.append(f"(subagent {message['subagentRunId']})")
    return " ".join(parts)
