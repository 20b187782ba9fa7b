"""``agui record URL -m TEXT -o FILE``: run an agent and keep what it streamed, with timing.

Each ``-m`` is one turn of a conversation on one thread (the history and state carried over).
FILE is a timed recording (``ag_ui.recording``): a header line (the agent's URL without query or
credentials, the transport, the agent's capabilities when it serves them), then per run the
input and every event with its arrival time. Request headers are never written. ``agui
replay FILE`` serves it again; ``agui verify FILE`` checks it; the test kit's ``ScriptedAgent``
plays it. Exit status 0 iff every run was a legal stream that finished; the file is written
in any case once the agent answered.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from typing import Any, Optional
from urllib.parse import urlsplit, urlunsplit

from ag_ui.cli._arguments import add_header_option, add_idle_timeout_option, header_options
from ag_ui.core._surrogates import refuse_constant

__all__ = ["register", "record"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "record",
        help="run an agent and save its events with their arrival times",
        description="Run a conversation against an AG-UI agent (one run per -m) and write "
        "every event it streams, with arrival times, to a timed JSON Lines recording.",
    )
    parser.add_argument("url", help="the agent endpoint, e.g. http://127.0.0.1:8000/agent")
    parser.add_argument(
        "-m",
        "--message",
        action="append",
        required=True,
        metavar="TEXT",
        help="a user message; repeat for more turns on the same thread",
    )
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="'-' for stdout")
    parser.add_argument("--proto", action="store_true", help="ask for protobuf frames")
    parser.add_argument("--state", default=None, metavar="JSON", help="initial agent state")
    parser.add_argument(
        "--forwarded-props", default=None, metavar="JSON", help="forwardedProps for the agent"
    )
    add_header_option(parser)
    parser.add_argument("--thread-id", default=None, help="thread id (default: a new one)")
    add_idle_timeout_option(parser)
    parser.set_defaults(func=run, parser=parser, extra="testing")


def _json_option(parser: argparse.ArgumentParser, option: str, text: Optional[str]) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text, parse_constant=refuse_constant)
    except ValueError as exc:
        parser.error(f"{option} is not valid JSON: {exc}")


def public_source(url: str) -> str:
    """The URL without credentials, query or fragment (a recording must not leak tokens)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def run(args: argparse.Namespace) -> int:
    import anyio

    parser: argparse.ArgumentParser = args.parser
    state = _json_option(parser, "--state", args.state)
    forwarded_props = _json_option(parser, "--forwarded-props", args.forwarded_props)
    headers = header_options(parser, args.header)
    if not args.url.startswith(("http://", "https://")):
        parser.error(f"URL must start with http:// or https://, got {args.url!r}")
    code: int = anyio.run(
        lambda: record(
            args.url,
            args.message,
            args.output,
            proto=args.proto,
            state=state,
            forwarded_props=forwarded_props,
            headers=headers,
            thread_id=args.thread_id,
            idle_timeout=args.idle_timeout,
        )
    )
    return code


async def record(
    url: str,
    messages: list[str],
    output: str,
    *,
    proto: bool = False,
    state: Any = None,
    forwarded_props: Any = None,
    headers: Optional[dict[str, str]] = None,
    thread_id: Optional[str] = None,
    idle_timeout: Optional[float] = 300.0,
) -> int:
    """Record ``messages`` (one run each) against ``url`` into ``output``; the exit status."""
    import anyio

    from ag_ui.recording import encode_header
    from ag_ui.testing import AgentClient

    report = sys.stderr if output == "-" else sys.stdout
    lines: list[bytes] = []
    ok = True
    async with AgentClient(url=url, headers=headers, idle_timeout=idle_timeout) as client:
        capabilities = await _capabilities(client)
        conversation = client.conversation(
            thread_id=thread_id, state=state, forwarded_props=forwarded_props
        )
        started = anyio.current_time()
        for number, message in enumerate(messages, start=1):
            # Seconds since the first request: the times of later runs continue the first's.
            offset = 0.0 if number == 1 else anyio.current_time() - started
            result = await conversation.send(message, proto=proto)
            lines.append(result.recording(header=False, offset=offset))
            ok = ok and result.ok
            print(f"run {number}: {_summary(result)}", file=report)
            if result.status >= 300:
                break
    header: dict[str, Any] = {
        "source": public_source(url),
        "transport": "proto" if proto else "sse",
        "recordedAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if capabilities is not None:
        header["capabilities"] = capabilities
    data = encode_header(**header) + b"".join(lines)
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        try:
            with open(output, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            print(f"agui record: cannot write {output}: {exc.strerror}", file=sys.stderr)
            return 2
        runs = len(lines)
        print(f"recorded {runs} run{'s' if runs != 1 else ''} to {output}", file=report)
    return 0 if ok else 1


async def _capabilities(client: Any) -> Optional[dict[str, Any]]:
    """The agent's capabilities as wire JSON, if it serves them (an unreachable agent raises
    ``TransportError``, which ``agui`` prints as one line)."""
    response = await client.request("GET", "/capabilities")
    if response.status_code != 200:
        return None
    try:
        value = response.json()
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _summary(result: Any) -> str:
    count = len(result.events)
    seconds = result.times[-1] if result.times else 0.0
    head = f"{count} events in {seconds:.2f} s"
    if result.status >= 300:
        return f"HTTP {result.status}: {result.body[:200].decode('utf-8', 'replace')}"
    if not result.verification.ok:
        return f"{head}, NOT a legal stream: {result.verification.error}"
    return f"{head}, legal ({result.outcome or 'no end'})"
