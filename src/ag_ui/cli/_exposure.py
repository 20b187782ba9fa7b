"""What the commands that serve an agent (``agui demo``, ``agui serve``) expose, and to whom.

On a loopback ``--host`` (the default, 127.0.0.1) only this machine reaches the server, and the
server's loopback guard (``AgentEndpoint(allowed_hosts=...)``, docs/server.md "Security") keeps
web pages of other sites out: conversations are kept and served to the anonymous caller. On any
other ``--host`` anyone who reaches the port is that anonymous caller, so conversations are not
kept unless ``--public-threads`` says to, and then a warning names the risk. ``--allow-host``
adds the names (or page origins) the server answers besides the loopback ones.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from typing import Optional

from ag_ui.cli._thread_store import default_threads_url

__all__ = ["add_exposure_arguments", "allowed_hosts", "is_loopback_bind", "threads_to_keep"]


def add_exposure_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests for this Host name (agent.example.com, 192.168.1.5) or from "
        "pages of this origin (http://app.example.com:3000); repeatable; '*' turns the loopback "
        "guard off (docs/server.md, 'Security')",
    )
    parser.add_argument(
        "--public-threads",
        action="store_true",
        help="on a --host other than loopback, still keep conversations and serve them to "
        "anyone who reaches the server (off there by default)",
    )


def is_loopback_bind(host: str) -> bool:
    """Whether ``host`` (a ``--host`` value) is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(args: argparse.Namespace, command: str) -> tuple[str, ...]:
    """``--allow-host``, checked (a ``ValueError`` naming the bad entry), with a note on stderr
    when the server is bound to be reached from elsewhere but answers loopback names only."""
    from ag_ui.server._local_guard import LocalGuard

    try:
        allowed = LocalGuard(args.allow_host).allowed_hosts
    except ValueError as exc:
        raise ValueError(f"--allow-host: {exc}") from None
    if not allowed and not is_loopback_bind(args.host):
        print(
            f"agui {command}: --host {args.host}: requests naming this machine by anything but "
            "localhost or 127.0.0.1 get 403 (a DNS-rebinding defence); --allow-host NAME for "
            "each name (or address) clients use",
            file=sys.stderr,
        )
    return allowed


def threads_to_keep(args: argparse.Namespace, command: str) -> Optional[str]:
    """The thread store URL to serve with (``None``: keep no conversations). On a loopback
    ``--host``: ``--threads`` or the default, unless ``--no-threads``. On any other: only with
    ``--public-threads``, and then with a warning on stderr."""
    if args.no_threads:
        return None
    url: str = args.threads or default_threads_url()
    if is_loopback_bind(args.host):
        return url
    if not args.public_threads:
        asked = " (--threads is ignored)" if args.threads else ""
        print(
            f"agui {command}: conversations are not kept on --host {args.host}{asked}: without "
            "authentication anyone who reaches it could read and delete every one; "
            "--public-threads keeps them anyway",
            file=sys.stderr,
        )
        return None
    print(
        f"agui {command}: warning: --public-threads on --host {args.host}, which is not a "
        "loopback address: every conversation kept in "
        f"{url} can be listed, read and deleted by anyone who reaches this server (no "
        "authentication); serve it from your own app with an authorize hook for real users",
        file=sys.stderr,
    )
    return url
