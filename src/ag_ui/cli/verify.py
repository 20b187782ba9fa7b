"""``agui verify FILE``: check a recorded event stream and show the messages and state it builds.

FILE holds JSON Lines (plain or timed, as this SDK records them), an SSE recording (``data:``
frames) or protobuf frames, read by ``ag_ui.recording.read_recording`` (format detected from the
first bytes); ``-`` reads stdin. Events go through ``ag_ui.apply.EventPipeline`` (compatibility,
chunk expansion, verification, reducer) from no messages and the state ``{}`` (what
``HttpAgent`` and the TypeScript client start from; ``--state`` gives another), with a strict
end: a run left open is an error unless ``--no-strict-end``. Exit status 0 iff the stream is
legal.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from typing import Any, Optional

from ag_ui.apply import EventPipeline
from ag_ui.cli._arguments import input_file, json_value
from ag_ui.core._surrogates import escape_lone_surrogates
from ag_ui.core.errors import AGUIError, PatchError, ProtocolError
from ag_ui.core.events import ActivityDeltaEvent, RunStartedEvent
from ag_ui.recording import Recording, read_recording
from ag_ui.verify import A2UIVerifier
from ag_ui.verify._versions import warn_about_producer_declaration

__all__ = ["register", "run", "verify_recording"]

_STRICT_END_HINT = "pass --no-strict-end to accept a recording cut before its terminal event"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "verify",
        help="check a recorded event stream (JSON Lines, SSE or protobuf) and show the result",
        description="Run a recorded stream through compatibility translation, chunk "
        "expansion, the protocol verifier and the reducer; print the messages and state it "
        "builds, or the first violation. Exit status 0 iff the stream is legal.",
    )
    parser.add_argument(
        "file", type=input_file, help="JSON Lines, SSE or protobuf recording; '-' for stdin"
    )
    parser.add_argument(
        "--output",
        choices=("text", "json"),
        default="text",
        help="'json' prints one object {ok, error, warnings, messages, state}",
    )
    parser.add_argument(
        "--state",
        type=json_value,
        default={},
        metavar="JSON|@FILE",
        help="the state before the first event (default {}, as HttpAgent starts)",
    )
    parser.add_argument(
        "--no-strict-end",
        dest="strict_end",
        action="store_false",
        help="accept a recording that stops inside a run, without RUN_FINISHED or RUN_ERROR "
        "(as the TypeScript client does)",
    )
    parser.add_argument(
        "--strict-draft",
        action="store_true",
        help="make the draft specification's rules fatal (RUN_FINISHED naming another run or "
        "thread, a second run on another thread, duplicate interrupt ids); default: warnings",
    )
    parser.set_defaults(func=run)


def verify_recording(
    recording: Recording, *, state: Any = None, strict_end: bool = True, strict_draft: bool = False
) -> dict[str, Any]:
    """Verify a recording; return ``{"ok", "error", "warnings", "messages", "state"}`` (and
    private counts under ``_``-keys). Each distinct warning is listed once."""
    found: list[str] = []
    count = expanded = 0
    line: Optional[int] = None

    def warn(text: str) -> None:
        text = " ".join(text.split())
        if text not in found:
            found.append(text)

    def patch_failed(error: PatchError) -> None:
        target = "activity" if isinstance(error.event, ActivityDeltaEvent) else "state"
        warn(f"{_where(count, line)}: Failed to apply {target} patch (skipped): {error}")

    for skipped in recording.skipped:
        kind = getattr(skipped, "field_numbers", None)
        if kind is not None:
            warn(f"skipped a protobuf event of a newer protocol (fields {kind})")
        else:
            warn(f"skipped an event of unknown type {skipped.event_type!r}")
    pipeline = EventPipeline(
        state=state, strict_end=strict_end, on_patch_error=patch_failed, strict_draft=strict_draft
    )
    surfaces = A2UIVerifier()  # A2UI mistakes leave a legal stream: reported as warnings
    error: Optional[str] = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for run in recording.runs:
            for recorded in run.events:
                count, line = count + 1, recorded.line
                if isinstance(recorded.event, RunStartedEvent):
                    # Reported as HttpAgent reports it: newer or unreadable warns, same is quiet.
                    warn_about_producer_declaration(recorded.event.protocol_version)
                for finding in surfaces.check(recorded.event):
                    warn(f"{_where(count, recorded.line)}: {finding}")
                try:
                    expanded += len(pipeline.feed(recorded.event))
                except AGUIError as exc:
                    error = f"{_where(count, recorded.line)}: {_describe(exc)}"
                    break
            if error is not None:
                break
        else:
            try:
                pipeline.finish()
            except ProtocolError as exc:
                error = f"end of stream: {_describe(exc)}"
                if exc.rule == "END":
                    error = f"{error.rstrip('.')}; {_STRICT_END_HINT}"
    for caught_warning in caught:
        warn(str(caught_warning.message))
    final = pipeline.agent_state
    return {
        "ok": error is None,
        "error": error,
        "warnings": found,
        "messages": list(final.messages),
        "state": final.state,
        "_events": count,
        "_expanded": expanded,
    }


def _where(count: int, line: Optional[int]) -> str:
    return f"event {count}" + (f" (line {line})" if line is not None else "")


def _describe(exc: AGUIError) -> str:
    text = str(exc)
    if isinstance(exc, ProtocolError):
        # The verifier's own hint names the Python option; the command line has a flag.
        text = text.replace(" Pass strict_end=False to accept truncated streams.", "")
        return f"[{exc.rule}] {text}"
    return text


def run(args: argparse.Namespace) -> int:
    data = sys.stdin.buffer.read() if args.file == "-" else _read(args.file)
    try:
        recording = read_recording(data)
    except AGUIError as exc:
        # One line; a JSON Lines recording names its line, so the frame index says nothing more.
        text = re.sub(r"^frame \d+: (line \d+: )", r"\1", " ".join(str(exc).split()))
        report: dict[str, Any] = {
            "ok": False,
            "error": text,
            "warnings": [],
            "messages": [],
            "state": args.state,
            "_events": 0,
            "_expanded": 0,
        }
    else:
        report = verify_recording(
            recording, state=args.state, strict_end=args.strict_end, strict_draft=args.strict_draft
        )
    if args.output == "json":
        public = {key: report[key] for key in ("ok", "error", "warnings", "messages", "state")}
        print(_json(public))
    else:
        _print_report(report)
    return 0 if report["ok"] else 1


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _print_report(report: dict[str, Any]) -> None:
    if report["ok"]:
        print(f"OK: {report['_events']} events ({report['_expanded']} after chunk expansion)")
    else:
        print(f"FAILED: {report['error']}")
    for warning in report["warnings"]:
        print(f"warning: {warning}")
    shown = [message for message in report["messages"] if not _is_empty(message)]
    hidden = len(report["messages"]) - len(shown)
    note = f", {hidden} empty not shown" if hidden else ""
    print(f"messages ({len(report['messages'])}{note}):")
    for message in shown:
        print(f"  {_summary(message)}")
    print("state: " + _json(report["state"], sort_keys=True))


def _json(value: Any, *, sort_keys: bool = False) -> str:
    # A string cut inside an emoji holds a lone surrogate, which has no UTF-8 form: escaped.
    return escape_lone_surrogates(json.dumps(value, ensure_ascii=False, sort_keys=sort_keys))


def _is_empty(message: dict[str, Any]) -> bool:
    # pydantic-ai and Microsoft Agent Framework open an empty text message around tool calls.
    return (
        message.get("role") == "assistant"
        and not message.get("content")
        and not (message.get("toolCalls"))
    )


def _summary(message: dict[str, Any]) -> str:
    role, message_id = message.get("role"), message.get("id")
    parts = [f"[{role}] {message_id}"]
    content = message.get("content")
    if isinstance(content, str) and content:
        shown = content if len(content) <= 80 else content[:77] + "..."
        parts.append(_json(shown))
    elif content is not None and not isinstance(content, str):
        parts.append(_json(content)[:80])
    for call in message.get("toolCalls") or ():
        function = call.get("function", {})
        parts.append(f"-> {function.get('name')}({function.get('arguments', '')[:60]})")
    if message.get("subagentRunId"):
        parts.append(f"(subagent {message['subagentRunId']})")
    return " ".join(parts)
