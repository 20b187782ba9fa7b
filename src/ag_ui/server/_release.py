"""Letting go of a large run input a slice at a time, so that freeing it does not stall the worker.

When a run ends, reference counting frees its input's messages all in one step: 150,000
parsed messages took 55-68 ms, during which no other stream of the worker moved
(``benchmarks/bench_big_body.py``). So the last part of the server to hold a large message list
frees it in slices of ``SLICE_ITEMS``, the event loop getting a turn between two.

Only the last holder, and only when nobody else can see the list: each part of the server that
held the run input drops its own references and hands the list to ``release``. When the list's
reference count shows that ``release`` holds the only one (not the run input, which is then
freed already, nor an agent that kept the list or the input), nobody can see it emptied, and it
is taken apart from its end. Otherwise ``release`` only lets go of it, as before.

On CPython with its GIL only (reference counts are exact there and no other thread can take a
reference meanwhile); elsewhere the list is let go of at once.
"""

from __future__ import annotations

import sys
import sysconfig
from typing import Any

import anyio

__all__ = ["RELEASED_IN_SLICES_ABOVE", "SLICE_ITEMS", "release"]

RELEASED_IN_SLICES_ABOVE = 10_000
"""Lists up to this length are let go of at once (under about 5 ms to free)."""

SLICE_ITEMS = 2_000
"""Messages freed between two turns of the event loop (about 1 ms of work)."""

_COUNTS_ARE_EXACT = sys.implementation.name == "cpython" and not sysconfig.get_config_var(
    "Py_GIL_DISABLED"
)


async def release(holder: list[list[Any]]) -> None:
    """Let go of the list in ``holder`` (which is emptied: the caller keeps no reference),
    freeing it in slices when this is the last reference to a long list."""
    messages = holder.pop()
    # Two references when it is the last one: ``messages`` here and getrefcount's argument.
    if (
        not _COUNTS_ARE_EXACT
        or len(messages) <= RELEASED_IN_SLICES_ABOVE
        or sys.getrefcount(messages) > 2
    ):
        return
    while messages:
        del messages[-SLICE_ITEMS:]
        await anyio.sleep(0)
