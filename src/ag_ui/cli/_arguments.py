"""Argument types for the ``agui`` subcommands: bad values are refused at parse time.

Each is an ``argparse`` ``type=`` callable; a bad value raises ``argparse.ArgumentTypeError``,
which the command line prints as one line naming the option, then exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from typing import Any, NoReturn

from ag_ui.core._surrogates import refuse_constant

__all__ = [
    "EXIT_USAGE",
    "CommandParser",
    "header_options",
    "http_url",
    "input_file",
    "json_value",
    "non_negative_seconds",
    "output_file",
    "port",
    "positive_seconds",
]


EXIT_USAGE = 2
"""Exit status of a usage error (a bad option or argument), as argparse uses."""


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def port(text: str) -> int:
    """A TCP port, 0-65535 (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"{value} is not a port number: use 0-65535 (0 picks a free port)"
        )
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of seconds")
    return value


def positive_seconds(text: str) -> float:
    """A duration above 0 seconds."""
    value = _seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def non_negative_seconds(text: str) -> float:
    """A duration of 0 seconds or more."""
    value = _seconds(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 seconds or more, got {text}")
    return value


def http_url(text: str) -> str:
    """An ``http://`` or ``https://`` URL with a host."""
    scheme, _, rest = text.partition("://")
    if scheme.lower() not in ("http", "https") or not rest or rest.startswith("/"):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an http:// or https:// URL (e.g. http://127.0.0.1:8000/agent)"
        )
    return text


def input_file(text: str) -> str:
    """A readable file, or ``-`` for stdin."""
    if text == "-":
        return text
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a directory; give a file")
    if not os.path.exists(text):
        raise argparse.ArgumentTypeError(f"{text} does not exist")
    if not os.access(text, os.R_OK):
        raise argparse.ArgumentTypeError(f"{text} is not readable (permission denied)")
    return text


def output_file(text: str) -> str:
    """A file that can be created or overwritten: its directory exists and it is no directory."""
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a directory; give a file name inside it")
    directory = os.path.dirname(text) or "."
    if not os.path.isdir(directory):
        raise argparse.ArgumentTypeError(
            f"the directory {directory} does not exist; create it or choose another path"
        )
    if not os.access(directory, os.W_OK) or (os.path.exists(text) and not os.access(text, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {text} (permission denied)")
    return text


def json_value(text: str) -> Any:
    """JSON text, or ``@FILE`` holding JSON."""
    source = ""
    if text.startswith("@"):
        path = text[1:]
        source = f"{path}: "
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            raise argparse.ArgumentTypeError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise argparse.ArgumentTypeError(f"{path} is not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=refuse_constant)
    except ValueError as exc:
        hint = "" if source else "; give JSON text or @FILE"
        raise argparse.ArgumentTypeError(f"{source}not valid JSON ({exc}){hint}") from None


def add_header_option(parser: argparse.ArgumentParser) -> None:
    """The repeatable ``--header 'Name: value'`` of the commands that talk HTTP (read them with
    ``header_options``)."""
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'K: V'",
        help="an HTTP header to send (repeatable)",
    )


def add_idle_timeout_option(parser: argparse.ArgumentParser) -> None:
    """``--idle-timeout SECONDS`` of the commands that run an agent (default 300)."""
    parser.add_argument(
        "--idle-timeout",
        type=positive_seconds,
        default=300.0,
        metavar="SECONDS",
        help="give up on a run after this long without any event or keepalive (default 300)",
    )


def header_options(parser: argparse.ArgumentParser, values: list[str]) -> dict[str, str]:
    """``--header 'Name: value'`` options as a dict (a usage error for anything else)."""
    headers: dict[str, str] = {}
    for value in values:
        name, colon, content = value.partition(":")
        if not colon or not name.strip():
            parser.error(f"--header must look like 'Name: value', got {value!r}")
        headers[name.strip()] = content.strip()
    return headers
