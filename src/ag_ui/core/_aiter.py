"""Async-iterator plumbing shared by the client and the server (stdlib only).

It sits in ``core``, the one layer both may import, and loads nothing at import time.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

__all__ = ["closing"]

_T = TypeVar("_T")


@asynccontextmanager
async def closing(iterator: AsyncIterator[_T]) -> AsyncGenerator[AsyncIterator[_T], None]:
    """Close an async iterator on exit (also when cancelled) if it can be closed.

    Unlike ``contextlib.aclosing`` it accepts iterators without ``aclose`` (a middleware or a
    store may return plain ones). Closing a generator chain is what releases an HTTP connection
    or a store reader.
    """
    try:
        yield iterator
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()
