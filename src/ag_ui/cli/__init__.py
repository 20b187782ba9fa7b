"""The ``agui`` command line: one subcommand per module, registered in ``_COMMAND_MODULES``.

Each command module exposes ``register(subparsers)`` which adds its parser and sets
``func(args) -> int`` as the handler. A module whose optional dependencies are missing is still
listed; running it explains which extra to install.

Every subcommand gets the same behaviour from ``main`` (docs/cli.md), so a new one needs nothing
of its own for it:

- a usage error (unknown option, bad value) is one line on stderr and exit status 2; argument
  types that check values at parse time are in ``ag_ui.cli._arguments``;
- a failure (an ``AGUIError``, a file that cannot be read or written, a missing optional
  dependency, a remote failure) is one line ``agui COMMAND: what went wrong`` and status 1;
  an unexpected exception is one line too, and ``AGUI_TRACEBACK=1`` shows its traceback;
- Python warnings are printed as one line each (``agui COMMAND: warning: ...``);
- a reader that goes away (``agui verify rec.jsonl | head``) ends the command quietly with
  status 141, as a shell tool killed by SIGPIPE; Ctrl-C ends it with status 130.

A handler may set ``extra="client"`` (``parser.set_defaults``) to name the extra its imports
need; otherwise the missing module's name chooses it.

``agui doctor`` runs before anything else is imported, so it works in the broken environments
it diagnoses (where importing ``ag_ui.core`` or the other commands fails); the guard applies to
it too. This module imports only the standard library at module level for that reason.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Callable, Optional, TextIO

from ag_ui.cli._arguments import EXIT_USAGE, CommandParser

__all__ = ["CommandParser", "main"]

_COMMAND_MODULES: tuple[str, ...] = (
    "ag_ui.cli.encode",
    "ag_ui.cli.verify",
    "ag_ui.cli.convert",
    "ag_ui.cli.demo",
    "ag_ui.cli.run",
    "ag_ui.cli.chat",
    "ag_ui.cli.serve",
    "ag_ui.cli.doctor",
    "ag_ui.cli.record",
    "ag_ui.cli.replay",
    "ag_ui.cli.validate",
    "ag_ui.cli.inspect",
    "ag_ui.cli.threads",
)

EXIT_FAILED = 1
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

# The extra that provides a top-level module, for commands that do not name theirs.
_EXTRA_OF_MODULE = {
    "httpx": "client",
    "httpcore": "client",
    "anyio": "server",
    "starlette": "server",
    "uvicorn": "server",
    "google": "proto",
    "redis": "redis",
    "hiredis": "redis",
    "openai": "openai",
    "anthropic": "anthropic",
}


def build_parser() -> argparse.ArgumentParser:
    from ag_ui import __version__

    parser = CommandParser(
        prog="agui", description="AG-UI protocol tools: run, serve, verify and convert streams."
    )
    parser.add_argument("--version", action="version", version=f"agui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in _COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The registered subcommands and their parsers (for help and for the tests)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["doctor"]:
        from ag_ui.cli.doctor import run_doctor

        return _guarded("agui doctor", lambda: run_doctor(arguments[1:]))
    from ag_ui._integrity import SharedFilesError, require_sdk_files

    try:
        require_sdk_files()
    except SharedFilesError as exc:
        return _fail("agui", str(exc))
    parser = build_parser()
    args, unknown = parser.parse_known_args(arguments)
    if unknown:  # reported by the subcommand, whose --help lists what it takes
        owner = subcommands(parser).get(getattr(args, "command", None) or "", parser)
        owner.error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    return _guarded(f"agui {args.command}", lambda: args.func(args), getattr(args, "extra", None))


def _guarded(name: str, command: Callable[[], int], extra: Optional[str] = None) -> int:
    """Run a subcommand; turn whatever escapes it into one line on stderr and an exit status."""
    agui_error = _agui_error_class()
    try:
        with _one_line_warnings(name):
            code = int(command())
        _flush_stdout()
        return code
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except agui_error as exc:
        return _fail(name, str(exc))
    except ImportError as exc:
        return _fail(name, _missing_dependency(exc, extra))
    except OSError as exc:
        return _fail(name, _os_error(exc))
    except UnicodeDecodeError as exc:
        return _fail(name, f"the input is not UTF-8 text ({exc.reason} at byte {exc.start})")
    except Exception as exc:
        if os.environ.get("AGUI_TRACEBACK"):
            traceback.print_exc()
        return _fail(
            name,
            f"unexpected {type(exc).__name__}: {exc} (a bug in agui: please report it; "
            "AGUI_TRACEBACK=1 shows where it happened)",
        )


class _NeverRaised(Exception):
    pass


def _agui_error_class() -> type[Exception]:
    # Imported here, not at module level: ``agui doctor`` must run where ag_ui.core cannot load.
    try:
        from ag_ui.core.errors import AGUIError
    except Exception:
        return _NeverRaised
    return AGUIError


def _fail(name: str, message: str) -> int:
    # One line: a multi-line message (a validation error lists its problems) is joined.
    first, *rest = [line.strip() for line in str(message).splitlines() if line.strip()] or [""]
    text = first if not rest else f"{first} {'; '.join(rest)}"
    print(f"{name}: {text}", file=sys.stderr, flush=True)
    return EXIT_FAILED


def _missing_dependency(exc: ImportError, extra: Optional[str]) -> str:
    text = str(exc)
    if "pip install" in text:  # our own modules already name their extra
        return text
    module = (exc.name or "").partition(".")[0]
    extra = extra or _EXTRA_OF_MODULE.get(module, "all")
    return (
        f"this command needs {module or 'a module'}, which is not installed: "
        f"pip install 'ag-ui-sdk[{extra}]'"
    )


def _os_error(exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    if exc.filename is not None:
        return f"{exc.filename}: {reason}"
    return reason


@contextmanager
def _one_line_warnings(name: str) -> Iterator[None]:
    """Show each Python warning as one line (not file:line plus the source line)."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Optional[TextIO] = None,
        line: Optional[str] = None,
    ) -> None:
        text = " ".join(str(message).split())
        print(f"{name}: warning: {text}", file=file or sys.stderr, flush=True)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        raise


def _discard_stdout() -> None:
    # The reader went away: point stdout at nothing so the interpreter's final flush does not
    # fail again with "Exception ignored ... BrokenPipeError".
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    sys.stdout = None
