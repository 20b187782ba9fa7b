"""``agui serve --model PROVIDER:MODEL``: serve a model as an AG-UI agent at ``POST /agent``.

``openai:MODEL`` (Chat Completions: OpenAI, or any compatible server at ``--base-url``, such as
Ollama, vLLM, llama.cpp or LM Studio), ``openai-responses:MODEL`` (OpenAI Responses) and
``anthropic:MODEL`` (Anthropic Messages). The key comes from ``OPENAI_API_KEY`` /
``ANTHROPIC_API_KEY``; with ``--base-url`` it may be absent (local servers ignore it). Every
guarantee of the server toolkit holds (verified sequences, one terminal event, disconnects).
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ag_ui.cli._exposure import add_exposure_arguments, allowed_hosts, threads_to_keep
from ag_ui.cli._otel import add_otel_arguments, exporting
from ag_ui.cli._thread_store import open_for_serving, thread_store_url
from ag_ui.core._listen import agent_url, listen

if TYPE_CHECKING:
    from ag_ui.store import ThreadStore

__all__ = ["register"]

DEFAULT_PORT = 8000


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0-65535; 0 picks a free one)")
    return port


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not math.isfinite(value) or value <= 0:  # nan and inf parse as floats
            raise argparse.ArgumentTypeError(f"{text} must be a finite number more than 0")
        return value

    return parse


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="serve a model (OpenAI, Anthropic or an OpenAI-compatible server) as an AG-UI agent",
        description="Serve a model as an AG-UI agent at POST /agent. PROVIDER is openai "
        "(Chat Completions; also any OpenAI-compatible server given with --base-url), "
        "openai-responses (OpenAI Responses) or anthropic (Anthropic Messages). The API key is "
        "read from OPENAI_API_KEY or ANTHROPIC_API_KEY (a local server takes any value, or none "
        "with --base-url).",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--model",
        metavar="PROVIDER:MODEL",
        help="e.g. openai:gpt-4o-mini, anthropic:claude-sonnet-4-5, or openai:llama3.2 with "
        "--base-url http://127.0.0.1:11434/v1 (Ollama)",
    )
    source.add_argument(
        "--langgraph",
        metavar="MODULE:GRAPH",
        help="a LangGraph graph of yours instead of a model, e.g. app:graph for ./app.py "
        "(docs/langgraph.md; the langgraph extra)",
    )
    source.add_argument(
        "--openai-agents",
        metavar="MODULE:AGENT",
        help="an OpenAI Agents SDK agent of yours (an agents.Agent, or a function building one "
        "from the run input) instead of a model, e.g. app:agent for ./app.py; its model reads "
        "OPENAI_API_KEY and OPENAI_BASE_URL (docs/openai-agents.md; the openai-agents extra)",
    )
    parser.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="the provider's API URL (an OpenAI-compatible server's usually ends in /v1; "
        "default: OPENAI_BASE_URL or ANTHROPIC_BASE_URL, else the provider's own)",
    )
    parser.add_argument(
        "--system", default=None, metavar="TEXT", help="system prompt (or @FILE to read it)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--max-rounds",
        type=_positive(int),
        default=None,
        metavar="N",
        help="model calls per run before it ends with an error (default 10)",
    )
    parser.add_argument(
        "--timeout",
        type=_positive(float),
        default=None,
        metavar="SECONDS",
        help="give up on the provider after this long without an answer, its retries "
        "included (and after a silence this long within an answer); default: the SDK's 600",
    )
    parser.add_argument(
        "--threads",
        type=thread_store_url,
        default=None,
        metavar="URL",
        help="where conversations are kept (default: threads.db in $AGUI_DATA_DIR, else "
        "~/.local/share/agui; docs/threads.md); without authentication they are anyone's who "
        "can reach the server, so on a --host other than loopback only with --public-threads",
    )
    parser.add_argument(
        "--no-threads", action="store_true", help="keep no conversations (a run lives and dies)"
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="put provider and exception details in RUN_ERROR messages (never in production)",
    )
    add_exposure_arguments(parser)
    add_otel_arguments(parser)
    parser.set_defaults(func=run)


class _LogLine(logging.Formatter):
    """One line per server log record; the traceback only in debug mode."""

    def __init__(self, debug: bool) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")
        self._debug = debug

    def format(self, record: logging.LogRecord) -> str:
        if self._debug:
            return super().format(record)
        line = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            line += f" ({type(error).__name__}: {error})"
        return line


def _configure_logging(debug: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LogLine(debug))
    for name in ("ag_ui.server", "ag_ui.providers", "ag_ui.tools"):
        target = logging.getLogger(name)
        target.addHandler(handler)
        target.setLevel(logging.INFO)
        target.propagate = False


def _fail(message: str) -> int:
    print(f"agui serve: {message}", file=sys.stderr)
    return 2


def _system_prompt(text: Optional[str]) -> Optional[str]:
    if text is None or not text.startswith("@"):
        return text
    path = Path(text[1:])
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read the system prompt from {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"cannot read the system prompt from {path}: it is not UTF-8 text (byte "
            f"{exc.object[exc.start]:#04x} at offset {exc.start}); save it as UTF-8"
        ) from None


def _app(
    agent: Any,
    *,
    debug: bool,
    store: Optional[ThreadStore] = None,
    allowed_hosts: Sequence[str] = (),
) -> Any:
    """The endpoint at ``/agent`` (and its capabilities; with a thread store, the threads
    endpoints); shutting down closes the provider client's connections and the thread store."""
    from starlette.applications import Starlette

    from ag_ui.server import AgentEndpoint

    endpoint = AgentEndpoint(
        agent,
        debug=debug,
        capabilities=agent.capabilities(),
        threads=store,
        # No authentication here: the caller is anonymous, so its threads are served to it.
        public_thread_history=store is not None,
        allowed_hosts=allowed_hosts,
    )

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with endpoint.lifespan(app):
            try:
                yield
            finally:
                await agent.aclose()
                if store is not None:
                    await store.aclose()

    return Starlette(routes=endpoint.routes("/agent"), lifespan=lifespan)


def _extra(args: argparse.Namespace) -> str:
    """The extra the served agent needs."""
    if args.langgraph is not None:
        return "langgraph"
    if args.openai_agents is not None:
        return "openai-agents"
    return "anthropic" if (args.model or "").startswith("anthropic") else "openai"


def _user_agent(args: argparse.Namespace) -> Any:
    """The agent of ``--langgraph`` or ``--openai-agents`` (``None`` for ``--model``)."""
    if args.langgraph is not None:
        from ag_ui.cli._serve_langgraph import load_langgraph_agent

        return load_langgraph_agent(args.langgraph)
    if args.openai_agents is not None:
        from ag_ui.cli._serve_openai_agents import load_openai_agents_agent

        return load_openai_agents_agent(args.openai_agents)
    return None


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ag_ui.providers import ModelAgent, ProviderConfigError, provider_from_spec
    except ImportError as exc:  # a missing extra: a failure (exit 1), as for the other commands
        hint = str(exc)
        if "pip install" not in hint:  # our own modules name their extra; a bare import does not
            extra = _extra(args)
            hint = (
                f"this command needs its provider's extra: pip install 'ag-ui-sdk[{extra}]' ({exc})"
            )
        print(f"agui serve: {hint}", file=sys.stderr)
        return 1
    try:
        agent: Any = _user_agent(args)
    except ImportError as exc:  # the adapter's extra, or what the user's module imports
        print(f"agui serve: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        return _fail(str(exc))
    try:
        if agent is None:
            system = _system_prompt(args.system)
            options: dict[str, Any] = {}
            if args.timeout is not None:
                options["timeout"] = args.timeout
            provider = provider_from_spec(args.model, base_url=args.base_url, **options)
            agent_options: dict[str, Any] = {"system": system}
            if args.max_rounds is not None:
                agent_options["max_rounds"] = args.max_rounds
            agent = ModelAgent(provider, **agent_options)
        sock = listen(args.host, args.port)
    except ImportError as exc:
        return _fail(str(exc))
    except (ProviderConfigError, ValueError) as exc:
        return _fail(str(exc))
    url = agent_url(args.host, sock)
    try:
        allowed = allowed_hosts(args, "serve")
    except ValueError as exc:
        return _fail(str(exc))
    threads = threads_to_keep(args, "serve")
    store = open_for_serving(threads, "serve") if threads is not None else None
    if store is not None and args.langgraph is not None:
        from ag_ui.adapters.langgraph import CheckpointThreads

        store = CheckpointThreads(agent, store)  # a reload restores the graph's checkpoint
    _configure_logging(args.debug)
    served = (
        args.model
        or (args.langgraph and f"the LangGraph graph {args.langgraph}")
        or f"the OpenAI Agents SDK agent {args.openai_agents}"
    )
    print(f"AG-UI agent for {served} on {url}. Ctrl-C stops it.")
    print(f"Capabilities: {url}/capabilities")
    print(f'Try:  agui run {url} -m "Hello!"')
    if store is not None:
        print(f"Threads kept in {threads}: {url}/threads (agui threads list {url})")
    sys.stdout.flush()
    config = uvicorn.Config(
        _app(agent, debug=args.debug, store=store, allowed_hosts=allowed),
        log_level="warning",
        timeout_graceful_shutdown=1,
    )
    try:
        with exporting(args) as otel:
            if otel is not None:
                print(f"Telemetry: OpenTelemetry traces and metrics to {otel}")
                sys.stdout.flush()
            uvicorn.Server(config).run(sockets=[sock])
    except ImportError as exc:
        return _fail(str(exc))
    return 0
