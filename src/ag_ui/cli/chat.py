"""``agui chat URL``: an interactive terminal chat with an AG-UI agent, over one thread.

The answer streams as it arrives, with tool calls, results and state changes on lines of their
own; an interrupt is asked at the prompt and the answer resumes the run; a tool offered with
``--tool`` is answered at the prompt. Ctrl-C cancels the run that is streaming; ``/state``,
``/messages``, ``/new``, ``/help``, ``/quit`` (or Ctrl-D). The loop is ``_chat_session``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Optional

from ag_ui.cli._arguments import (
    add_header_option,
    add_idle_timeout_option,
    header_options,
    http_url,
    json_value,
)

if TYPE_CHECKING:
    from ag_ui.core.types import Tool

__all__ = ["chat", "register", "tool_definition"]

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def tool_definition(text: str) -> dict[str, Any]:
    """``--tool``: a tool name, or a tool definition as JSON text or ``@FILE``."""
    if _TOOL_NAME.match(text):
        return {
            "name": text,
            "description": "Answered by the user at the agui chat prompt",
            "parameters": {"type": "object"},
        }
    if not text.startswith(("{", "@")):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a tool name (1-64 letters, digits, '_' or '-') nor a JSON tool "
            'definition ({"name": ..., "description": ..., "parameters": {...}} or @FILE)'
        )
    value = json_value(text)
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise argparse.ArgumentTypeError(
            'a tool definition is a JSON object with at least "name" (and "description", '
            '"parameters")'
        )
    return {"description": "", "parameters": {"type": "object"}, **value}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "chat",
        help="chat with an AG-UI agent in the terminal (streams, interrupts, tools)",
        description="An interactive chat with an AG-UI agent over one thread: type a message, "
        "the answer streams as it arrives; interrupts and the tools you offer with --tool are "
        "answered at the prompt. /help lists the commands; Ctrl-C cancels a run, Ctrl-D quits.",
    )
    parser.add_argument(
        "url", type=http_url, help="the agent endpoint, e.g. http://127.0.0.1:8000/agent"
    )
    parser.add_argument(
        "--tool",
        action="append",
        type=tool_definition,
        default=[],
        metavar="NAME|JSON|@FILE",
        help="offer a client-side tool whose result you type at the prompt (repeatable): a "
        "name (any arguments), or a JSON tool definition",
    )
    parser.add_argument(
        "--state",
        type=json_value,
        default=None,
        metavar="JSON|@FILE",
        help="initial agent state (JSON text, or @FILE holding JSON)",
    )
    add_header_option(parser)
    parser.add_argument("--proto", action="store_true", help="ask for protobuf frames")
    parser.add_argument(
        "--thread-id",
        default=None,
        help="thread id (default: a new UUID); a thread the server keeps is restored first",
    )
    add_idle_timeout_option(parser)
    parser.set_defaults(func=run, parser=parser, extra="client")


def run(args: argparse.Namespace) -> int:
    # ag_ui.client first: its ImportError names the client extra (anyio's would not).
    importlib.import_module("ag_ui.client")
    from ag_ui.core.types import Tool

    headers = header_options(args.parser, args.header)
    try:
        tools = [Tool.model_validate(definition) for definition in args.tool]
    except ValueError as exc:
        args.parser.error(f"--tool: {' '.join(str(exc).split())}")
    return chat(
        args.url,
        tools=tools,
        headers=headers,
        state=args.state,
        proto=args.proto,
        thread_id=args.thread_id,
        idle_timeout=args.idle_timeout,
    )


def chat(
    url: str,
    *,
    tools: Sequence[Tool] = (),
    headers: Optional[dict[str, str]] = None,
    state: Any = None,
    proto: bool = False,
    thread_id: Optional[str] = None,
    idle_timeout: Optional[float] = 300.0,
    restore: Optional[bool] = None,
    on_end: Optional[Callable[[str], None]] = None,
) -> int:
    """Chat with the agent at ``url`` on this terminal until ``/quit`` or end of input.
    ``restore`` (default: when ``thread_id`` is given) first loads the thread the server
    keeps under that id. ``on_end`` gets the thread id the chat ended on (``/new`` changes it)."""
    from ag_ui.cli._chat_session import ChatSession
    from ag_ui.client import HttpAgent

    with contextlib.suppress(ImportError):  # not on Windows
        import readline  # noqa: F401  (line editing and history for input())
    agent = HttpAgent(
        url,
        headers=headers,
        thread_id=thread_id,
        initial_state=state,
        proto=proto,
        idle_timeout=idle_timeout,
    )
    # A thread named on the command line may be stored on the server: continue it.
    if restore is None:
        restore = thread_id is not None
    code = ChatSession(agent, tools=tools).loop(restore=restore)
    if on_end is not None:
        on_end(agent.thread_id)
    return code
