"""The ``agui`` command line: one subcommand per module, registered in ``_COMMAND_MODULES``.

Each command module exposes ``register(subparsers)`` which adds its parser and sets
``func(args) -> int`` as the handler. A module whose optional dependencies are missing is still
listed; running it explains which extra to install.

``agui doctor`` runs before anything else is imported, so it works in the broken environments
it diagnoses (where importing ``ag_ui.core`` or the other commands fails).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Optional

__all__ = ["main"]

_COMMAND_MODULES: tuple[str, ...] = (
    "ag_ui.cli.encode",
    "ag_ui.cli.verify",
    "ag_ui.cli.convert",
    "ag_ui.cli.demo",
    "ag_ui.cli.run",
    "ag_ui.cli.doctor",
    "ag_ui.cli.inspect",
)


def build_parser() -> argparse.ArgumentParser:
    from ag_ui import __version__

    parser = argparse.ArgumentParser(
        prog="agui", description="AG-UI protocol tools: run, serve, verify and convert streams."
    )
    parser.add_argument("--version", action="version", version=f"agui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in _COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["doctor"]:
        from ag_ui.cli.doctor import run_doctor

        return run_doctor(arguments[1:])
    from ag_ui._integrity import SharedFilesError, require_sdk_files

    try:
        require_sdk_files()
    except SharedFilesError as exc:
        print(f"agui: {exc}", file=sys.stderr)
        return 1
    from ag_ui.core.errors import AGUIError

    parser = build_parser()
    args = parser.parse_args(arguments)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except AGUIError as exc:
        print(f"agui {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
