"""``agui demo``: serve the offline demo agent, chat with it, or run it once.

``agui demo`` serves ``POST /agent`` and ``GET /agent/capabilities`` on 127.0.0.1:8000. On a
terminal (stdin and stdout both TTYs) it then opens ``agui chat`` on it, offering the demo's
frontend tool ``get_location``, and stops serving when the chat ends; otherwise (a pipe, a
script, a background job ``agui demo &``, ``--no-chat``) it prints a ready ``agui run`` line
and serves until Ctrl-C.
``agui demo --once -m "weather in Paris"`` starts the server on a free port, runs the client
against it, prints the transcript and exits.
``agui demo --dojo`` serves the AG-UI dojo's features instead (``POST /agentic_chat``,
``/shared_state``..., the paths of the dojo's ``server-starter-all-features`` integration),
scripted, or with ``--model openai:gpt-4o-mini [--base-url URL]`` one model agent per feature.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import socket
import sys
import threading
import uuid
from typing import Any, Optional

from ag_ui.cli._arguments import non_negative_seconds, port
from ag_ui.cli._exposure import add_exposure_arguments, allowed_hosts, threads_to_keep
from ag_ui.cli._otel import add_otel_arguments, exporting
from ag_ui.cli._thread_store import open_for_serving, thread_store_url
from ag_ui.core._listen import listen

DEFAULT_MESSAGE = "What's the weather in Paris?"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "demo",
        help="serve the offline demo agent and chat with it (or run it once with --once)",
        description="Serve the deterministic offline demo agent at POST /agent (and GET "
        "/agent/capabilities). On a terminal, chat with it (agui chat) until /quit; otherwise, "
        "or with --no-chat, serve until Ctrl-C. With --once, start it on a free port, run the "
        "client against it with one message, print the transcript and exit.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=port, default=8000, help="port (default 8000; 0 picks a free one)"
    )
    parser.add_argument("--once", action="store_true", help="run one message and exit")
    parser.add_argument(
        "--no-chat",
        action="store_true",
        help="only serve, even on a terminal (the default when stdin or stdout is not a TTY)",
    )
    parser.add_argument(
        "-m", "--message", default=DEFAULT_MESSAGE, help=f"message for --once ({DEFAULT_MESSAGE!r})"
    )
    parser.add_argument(
        "--output",
        choices=("text", "json", "events"),
        default="text",
        help="transcript format for --once (passed to agui run)",
    )
    parser.add_argument(
        "--threads",
        type=thread_store_url,
        default=None,
        metavar="URL",
        help="where conversations are kept (default: threads.db in $AGUI_DATA_DIR, else "
        "~/.local/share/agui); a reload restores them; on a --host other than loopback only "
        "with --public-threads",
    )
    parser.add_argument(
        "--no-threads", action="store_true", help="keep no conversations (a run lives and dies)"
    )
    parser.add_argument(
        "--thread-id",
        default=None,
        metavar="ID",
        help="continue this stored thread in the chat (the chat prints its id)",
    )
    parser.add_argument(
        "--delay",
        type=non_negative_seconds,
        default=None,
        metavar="SECONDS",
        help="seconds between streamed pieces (default 0.03 when serving, 0 with --once)",
    )
    parser.add_argument(
        "--dojo",
        action="store_true",
        help="serve the AG-UI dojo's features (POST /agentic_chat, /human_in_the_loop, ...; the "
        "paths of its server-starter-all-features integration) until Ctrl-C",
    )
    parser.add_argument(
        "--model",
        default=None,
        metavar="PROVIDER:MODEL",
        help="with --dojo: a model behind each feature (openai:gpt-4o-mini; the key from "
        "OPENAI_API_KEY) instead of the scripted agents",
    )
    parser.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="with --dojo --model: an OpenAI-compatible server (http://127.0.0.1:4010/v1)",
    )
    add_exposure_arguments(parser)
    add_otel_arguments(parser)
    parser.set_defaults(func=run, extra="server")


def _require_server_extra() -> Any:
    try:
        import uvicorn

        from ag_ui.demo import create_demo_app
    except ImportError as exc:
        raise SystemExit(
            f"agui demo needs the server extra: pip install 'ag-ui-sdk[server]' ({exc})"
        ) from None
    return uvicorn, create_demo_app


def _bind(host: str, port: int) -> socket.socket:
    try:
        return listen(host, port)
    except ValueError as exc:
        raise SystemExit(f"agui demo: {exc}") from None


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/agent"


def _allowed_hosts(args: argparse.Namespace) -> tuple[str, ...]:
    try:
        return allowed_hosts(args, "demo")
    except ValueError as exc:
        raise SystemExit(f"agui demo: {exc}") from None


def run(args: argparse.Namespace) -> int:
    uvicorn, create_demo_app = _require_server_extra()
    if args.dojo:
        return _serve_dojo(args, uvicorn)
    if args.model is not None or args.base_url is not None:
        raise SystemExit("agui demo: --model and --base-url go with --dojo (agui demo --dojo ...)")
    if args.once:
        import anyio

        try:
            with exporting(args):
                code: int = anyio.run(_run_once, args, uvicorn, create_demo_app)
        except ImportError as exc:
            print(f"agui demo: {exc}", file=sys.stderr)
            return 2
        return code
    sock = _bind(args.host, args.port)
    port = sock.getsockname()[1]
    url = _url(args.host, port)
    delay = 0.03 if args.delay is None else args.delay
    _quiet_server_log()  # "crash" fails on purpose: one log line, not a traceback
    allowed_hosts = _allowed_hosts(args)
    threads = threads_to_keep(args, "demo")
    options = _thread_options(threads)
    if not options:
        threads = None  # none asked for, or the store could not be opened (said above)
    config = uvicorn.Config(
        create_demo_app(delay=delay, allowed_hosts=allowed_hosts, **options),
        log_level="warning",
        lifespan="on",  # a run the shutdown cuts saves its thread `cancelled`
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    try:
        with exporting(args) as otel:
            if not args.no_chat and _on_a_terminal() and _has_client():
                return _serve_and_chat(server, sock, url, threads=threads, thread_id=args.thread_id)
            print(f"AG-UI demo agent on {url} (capabilities: {url}/capabilities). Ctrl-C stops it.")
            print(f'Try:  agui run {url} -m "{DEFAULT_MESSAGE}"')
            if threads is not None:
                print(f"Conversations are kept in {threads} (agui threads list {url}).")
            if otel is not None:
                print(f"Telemetry: OpenTelemetry traces and metrics to {otel}")
            sys.stdout.flush()
            server.run(sockets=[sock])
    except ImportError as exc:
        print(f"agui demo: {exc}", file=sys.stderr)
        return 2
    return 0


def _serve_dojo(args: argparse.Namespace, uvicorn: Any) -> int:
    """The dojo's feature server, until Ctrl-C (no chat: a dojo page is its client)."""
    if args.once:
        raise SystemExit("agui demo: --once runs the demo agent; --dojo only serves")
    if args.base_url is not None and args.model is None:
        raise SystemExit("agui demo: --base-url needs --model (--model openai:MODEL)")
    from ag_ui.core.errors import ProviderConfigError
    from ag_ui.demo import DOJO_FEATURES, create_dojo_app

    allowed_hosts = _allowed_hosts(args)
    sock = _bind(args.host, args.port)
    shown = _url(args.host, sock.getsockname()[1]).removesuffix("/agent")
    delay = 0.1 if args.delay is None else args.delay
    try:
        app = create_dojo_app(
            delay=delay, model=args.model, base_url=args.base_url, allowed_hosts=allowed_hosts
        )
    except (ProviderConfigError, ImportError) as exc:
        raise SystemExit(f"agui demo: --model {args.model}: {exc}") from None
    mode = "scripted" if args.model is None else f"model {args.model}"
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    try:
        with exporting(args) as otel:
            print(f"AG-UI dojo features ({mode}) on {shown}/<feature>. Ctrl-C stops it.")
            print("Features: " + ", ".join(DOJO_FEATURES))
            print(f"For the dojo: SERVER_STARTER_ALL_FEATURES_URL={shown}")
            if otel is not None:
                print(f"Telemetry: OpenTelemetry traces and metrics to {otel}")
            sys.stdout.flush()
            _quiet_server_log()
            uvicorn.Server(config).run(sockets=[sock])
    except ImportError as exc:
        print(f"agui demo: {exc}", file=sys.stderr)
        return 2
    return 0


def _on_a_terminal() -> bool:
    """Chat only in the foreground of a terminal: ``agui demo &`` in a shell has the terminal
    as stdin too, but reading it would stop the job (SIGTTIN) with the server in it."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    try:
        return os.tcgetpgrp(sys.stdin.fileno()) == os.getpgrp()
    except (OSError, AttributeError):  # no job control to ask (Windows)
        return True


def _has_client() -> bool:
    try:
        importlib.import_module("ag_ui.client")
    except ImportError:
        return False  # server extra only: serve, as without a terminal
    return True


def _thread_options(threads: Optional[str]) -> dict[str, Any]:
    """The endpoint options of a thread store URL: the demo has no authentication, so its
    (anonymous) caller's threads are served to it; nothing when the store cannot be opened."""
    store = open_for_serving(threads, "demo") if threads is not None else None
    if store is None:
        return {}
    return {"threads": store, "public_thread_history": True}


def _serve_and_chat(
    server: Any,
    sock: socket.socket,
    url: str,
    *,
    threads: Optional[str] = None,
    thread_id: Optional[str] = None,
) -> int:
    """Serve in a thread and chat with the demo agent here; the chat's end stops the server."""
    from ag_ui.cli.chat import chat
    from ag_ui.demo import LOCATION_TOOL, LOCATION_TOOL_DEFINITION

    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise SystemExit(f"agui demo: the demo server did not start on {url}")
            thread.join(0.01)
        print(
            f"AG-UI demo agent on {url}; chatting with it here (as agui chat {url} --tool "
            f"{LOCATION_TOOL}). Try 'weather in Paris', 'book a table for two', 'where am I?'.",
            flush=True,
        )
        ended_on: list[str] = []  # the last thread: /new starts another
        code = chat(
            url,
            tools=[LOCATION_TOOL_DEFINITION],
            thread_id=thread_id or str(uuid.uuid4()),
            restore=thread_id is not None,
            on_end=ended_on.append,
        )
        if threads is not None and ended_on:
            print(
                f"This conversation is kept in {threads}; continue it with: "
                f"agui demo --thread-id {ended_on[0]}"
            )
        return code
    finally:
        server.should_exit = True
        thread.join(5)


class _OneLineFormatter(logging.Formatter):
    """Server log lines without tracebacks: the demo's failures are on purpose, and the
    transcript stays readable."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"server log: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += f" ({type(error).__name__}: {error})"
        return text


def _quiet_server_log() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLineFormatter())
    server_logger = logging.getLogger("ag_ui.server")
    server_logger.addHandler(handler)
    server_logger.propagate = False


async def _run_once(args: argparse.Namespace, uvicorn: Any, create_demo_app: Any) -> int:
    import anyio

    _quiet_server_log()
    sock = _bind(args.host, 0)
    url = _url(args.host, sock.getsockname()[1])
    delay = 0.0 if args.delay is None else args.delay
    config = uvicorn.Config(create_demo_app(delay=delay), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    code = 1
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.serve, [sock])
        try:
            with anyio.fail_after(10):
                while not server.started:
                    await anyio.sleep(0.01)
            code = await _run_client(url, args.message, args.output)
        finally:
            server.should_exit = True
    return code


async def _run_client(url: str, message: str, output: str) -> int:
    """Our Python client's ``run_client`` when installed, else a raw event printer."""
    try:
        run_module = importlib.import_module("ag_ui.cli.run")
        run_client = run_module.run_client
    except (ImportError, AttributeError):
        return await _print_raw_events(url, message)
    code: int = await run_client(url, message=message, output=output)
    return code


async def _print_raw_events(url: str, message: str) -> int:
    """Print each event of one run as its JSON line; 0 if it finished, 1 if it failed."""
    import httpx

    body = {
        "threadId": str(uuid.uuid4()),
        "runId": str(uuid.uuid4()),
        "messages": [{"id": str(uuid.uuid4()), "role": "user", "content": message}],
        "tools": [],
        "context": [],
        "state": {},
    }
    outcome = 1
    async with (
        httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client,
        client.stream("POST", url, json=body, headers={"accept": "text/event-stream"}) as response,
    ):
        if response.status_code != 200:
            print(f"agui demo: HTTP {response.status_code}", file=sys.stderr)
            return 1
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            print(payload, flush=True)
            event_type = json.loads(payload).get("type")
            if event_type == "RUN_FINISHED":
                outcome = 0
    return outcome
