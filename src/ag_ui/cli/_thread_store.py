"""The ``--threads URL`` option of the commands that serve (``agui serve``, ``agui demo``) and
where ``agui demo`` keeps its threads by default: ``threads.db`` in the data directory
(``$AGUI_DATA_DIR``, else ``$XDG_DATA_HOME/agui``, else ``~/.local/share/agui``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["data_dir", "default_demo_threads", "thread_store_url"]


def data_dir() -> Path:
    """Where the ``agui`` commands keep their data."""
    explicit = os.environ.get("AGUI_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "agui"


def default_demo_threads() -> str:
    """``agui demo``'s thread store: a SQLite file in the data directory."""
    return "sqlite:///" + str((data_dir() / "threads.db").resolve())


def thread_store_url(text: str) -> str:
    """An ``argparse`` type: a URL ``open_thread_store`` accepts (checked, not opened)."""
    from ag_ui.store import open_thread_store

    try:
        open_thread_store(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text
