"""The ``--threads URL`` option of the commands that serve (``agui serve``, ``agui demo``) and
where they keep threads by default: ``threads.db`` in the data directory (``$AGUI_DATA_DIR``,
else ``$XDG_DATA_HOME/agui``, else ``~/.local/share/agui``)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ag_ui.store import ThreadStore

__all__ = [
    "data_dir",
    "default_threads_url",
    "open_for_serving",
    "quiet_pool_log",
    "thread_store_url",
]


def data_dir() -> Path:
    """Where the ``agui`` commands keep their data."""
    explicit = os.environ.get("AGUI_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "agui"


def default_threads_url() -> str:
    """The thread store of ``agui demo`` and ``agui serve``: a SQLite file in the data
    directory."""
    return "sqlite:///" + str((data_dir() / "threads.db").resolve())


def thread_store_url(text: str) -> str:
    """An ``argparse`` type: a URL ``open_thread_store`` accepts (checked, not opened)."""
    from ag_ui.store import open_thread_store

    try:
        open_thread_store(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def open_for_serving(url: str, command: str) -> Optional[ThreadStore]:
    """The store of ``url``, checked to answer; ``None`` (said in one line on stderr) when it
    cannot be opened (a read-only home, a database that is down): the command then serves
    without keeping threads rather than refusing every run."""
    import anyio

    from ag_ui.store import StoreUnavailableError, open_thread_store

    quiet_pool_log()

    async def check() -> None:
        # A store of its own, closed here: a connection pool belongs to the event loop it was
        # opened in, and the server runs another one.
        probe = open_thread_store(url)
        try:
            await probe.ping()
        finally:
            await probe.aclose()

    try:
        anyio.run(check)
    except StoreUnavailableError as exc:
        print(f"agui {command}: conversations will not be kept: {exc}", file=sys.stderr)
        return None
    return open_thread_store(url)


def quiet_pool_log() -> None:
    """psycopg's pool logs each failed connection attempt as a warning, which Python prints
    raw on stderr when nothing is configured; the store's own error says it in one line, so a
    command shows only errors from the pool."""
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
