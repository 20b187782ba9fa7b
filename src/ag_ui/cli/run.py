"""``agui run URL``: talk to an AG-UI agent from the terminal.

``--output text`` (default) streams the assistant's words as they arrive, shows tool calls with
their arguments, results, state changes, reconnects and a final summary. ``--output json`` prints
exactly one JSON object when the run is over (``ok``, ``error``, ``events`` counts by type,
``messages``, ``state``, ``outcome``, ``reconnects``). ``--output events`` prints every event
received as one JSON line (reconnects are reported on stderr).
Exit status 0 iff the run finished without error.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, Optional, TextIO

from ag_ui.cli._arguments import (
    add_header_option,
    add_idle_timeout_option,
    header_options,
    http_url,
    json_value,
)
from ag_ui.core._wire import event_type_name
from ag_ui.core.errors import AGUIError, HTTPStatusError

if TYPE_CHECKING:
    import httpx
    from pydantic import BaseModel

__all__ = ["register", "run_client"]

OUTPUTS = ("text", "json", "events")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "run",
        help="run an AG-UI agent over HTTP and show what it streams",
        description="POST a run to an AG-UI agent endpoint and show the streamed answer.",
    )
    parser.add_argument(
        "url", type=http_url, help="the agent endpoint, e.g. http://127.0.0.1:8000/agent"
    )
    parser.add_argument("-m", "--message", default=None, help="a user message to send")
    parser.add_argument(
        "--state",
        type=json_value,
        default=None,
        metavar="JSON|@FILE",
        help="initial agent state (JSON text, or @FILE holding JSON)",
    )
    parser.add_argument(
        "--forwarded-props",
        type=json_value,
        default=None,
        metavar="JSON|@FILE",
        help="forwardedProps for the agent (JSON text, or @FILE)",
    )
    add_header_option(parser)
    parser.add_argument("--proto", action="store_true", help="ask for protobuf frames")
    parser.add_argument("--output", choices=OUTPUTS, default="text", help="how to show the run")
    parser.add_argument("--thread-id", default=None, help="thread id (default: a new UUID)")
    add_idle_timeout_option(parser)
    parser.set_defaults(func=run, parser=parser, extra="client")


def run(args: argparse.Namespace) -> int:
    # ag_ui.client first: its ImportError names the client extra (anyio's would not).
    importlib.import_module("ag_ui.client")
    import anyio

    parser: argparse.ArgumentParser = args.parser
    headers = header_options(parser, args.header)

    async def main() -> int:
        return await run_client(
            args.url,
            message=args.message,
            output=args.output,
            headers=headers,
            state=args.state,
            forwarded_props=args.forwarded_props,
            proto=args.proto,
            thread_id=args.thread_id,
            idle_timeout=args.idle_timeout,
        )

    return anyio.run(main)


def _wire(model: BaseModel) -> Any:
    return model.model_dump(by_alias=True, mode="json")


async def run_client(
    url: str,
    *,
    message: Optional[str],
    output: str = "text",
    headers: Optional[Mapping[str, str]] = None,
    state: Any = None,
    forwarded_props: Any = None,
    proto: bool = False,
    stream: Optional[TextIO] = None,
    thread_id: Optional[str] = None,
    idle_timeout: Optional[float] = 300.0,
    http_client: Optional[httpx.AsyncClient] = None,
) -> int:
    """Run the agent at ``url`` once, report on ``stream`` in the ``output`` format, and
    return the exit status (0 iff the run finished without error). ``stream`` defaults to the
    current ``sys.stdout``. ``http_client`` (an ``httpx.AsyncClient``) is used instead of a
    client of its own.

    >>> # exit_code = await run_client("http://127.0.0.1:8000/agent", message="hi")
    """
    from ag_ui.cli._run_text import TextReporter
    from ag_ui.client import HttpAgent, Reconnect

    # On the command line (no ``stream``) a failure is also one line on stderr, so it shows
    # when stdout goes to a file or a pipe; a caller's own stream gets everything.
    errors = sys.stderr if stream is None else stream
    if stream is None:
        stream = sys.stdout
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, got {output!r}")
    reporter = TextReporter(stream, errors=errors) if output == "text" else None

    def show_reconnect(reconnect: Reconnect) -> None:
        if isinstance(reconnect.error, HTTPStatusError) and reconnect.last_event_id is None:
            line = (  # the run was refused before it started (the server asked to wait)
                f"--- run refused (HTTP {reconnect.error.status}); sending it again in "
                f"{reconnect.delay:.1f} s (attempt {reconnect.attempt})"
            )
        else:
            line = (
                f"--- connection lost ({type(reconnect.error).__name__}); reconnecting "
                f"(attempt {reconnect.attempt}) after {reconnect.last_event_id}"
            )
        if reporter is not None:
            reporter.notice(line)
        elif output == "events":
            print(f"agui run: {line}", file=sys.stderr)

    agent = HttpAgent(
        url,
        headers=headers,
        thread_id=thread_id,
        initial_state=state,
        proto=proto,
        idle_timeout=idle_timeout,
        http_client=http_client,
        on_reconnect=show_reconnect,
    )
    if message is not None:
        # A new id on every run: a stored thread keeps every question (a reused id would be
        # another message under the same id: docs/threads.md, "The merge rule").
        agent.add_message({"id": f"user-{uuid.uuid4().hex}", "role": "user", "content": message})
    counts: Counter[str] = Counter()

    async def tap(input: Any, next: Any) -> AsyncIterator[Any]:
        # Sees the events as received (chunks included), before the pipeline judges them. No
        # finally of its own: the chain closes the stream it iterates when the run ends.
        async for event in next.run(input):
            counts[event_type_name(event)] += 1
            if output == "events":
                stream.write(json.dumps(_wire(event), separators=(",", ":")) + "\n")
                stream.flush()
            yield event

    agent.use(tap)
    if reporter is not None:
        reporter.on_reader_gone = agent.abort_run
    error: Optional[BaseException] = None
    result = None
    try:
        result = await agent.run_agent(forwarded_props=forwarded_props, subscriber=reporter)
    except AGUIError as exc:
        error = exc
    except ImportError as exc:  # e.g. protobuf answer without the proto extra
        error = exc
    if reporter is not None and reporter.reader_gone:
        raise BrokenPipeError("the reader of the output went away")
    if output == "json":
        outcome: Any = None
        if result is not None and result.finished:
            outcome = _wire(result.outcome) if result.outcome is not None else {"type": "success"}
        report = {
            "ok": error is None,
            "error": None if error is None else f"{type(error).__name__}: {error}",
            "events": dict(counts),
            "messages": [_wire(m) for m in agent.messages],
            "state": agent.state,
            "outcome": outcome,
            "reconnects": agent.reconnects,
        }
        stream.write(json.dumps(report) + "\n")
        if error is not None and errors is not stream:
            print(f"agui run: {type(error).__name__}: {error}{_hint(error, url)}", file=errors)
    elif output == "text":
        assert reporter is not None
        reporter.summary(agent, result, error, sum(counts.values()), hint=_hint(error, url))
    elif error is not None:
        print(f"agui run: {type(error).__name__}: {error}{_hint(error, url)}", file=errors)
    stream.flush()
    return 0 if error is None else 1


def _hint(error: Optional[BaseException], url: str) -> str:
    """What to do about a failed run, for the errors a first try meets."""
    from ag_ui.core.errors import (
        ContentTypeError,
        IdleTimeoutError,
        IncompleteStreamError,
        TransportError,
    )

    if isinstance(error, HTTPStatusError):
        if error.status in (404, 405):
            return " (is this the agent's endpoint? `agui demo` serves POST /agent)"
        if error.status in (401, 403):
            return " (the agent wants credentials: --header 'Authorization: Bearer ...')"
        return ""
    if isinstance(error, ContentTypeError):
        return " (this URL does not serve an AG-UI event stream; check the path)"
    if isinstance(error, IdleTimeoutError):
        return " (a slow agent? raise --idle-timeout)"
    if isinstance(error, IncompleteStreamError):
        return ""
    if isinstance(error, TransportError):
        return f" (is an agent running at {url}? `agui demo` starts one)"
    return ""
