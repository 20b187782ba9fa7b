"""``verify_events``: the verifier as an async wrapper over an async iterable of events."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import TypeVar

from ag_ui.core._aiter import closing
from ag_ui.core.decoding import AnyEvent
from ag_ui.verify._verifier import EventVerifier

__all__ = ["verify_events"]

E = TypeVar("E", bound=AnyEvent)


async def verify_events(
    events: AsyncIterable[E], *, strict_end: bool = True, null_checks: bool = True
) -> AsyncIterator[E]:
    """Yield each event after checking it; raise at the first violation.

    At the end of the input, a run left open raises ``UnterminatedRunError`` unless
    ``strict_end=False``. The source is closed (``aclose``) when iteration stops early.

    >>> async def relay(source):  # doctest: +SKIP
    ...     async for event in verify_events(source):
    ...         print(event.type)
    """
    verifier = EventVerifier(strict_end=strict_end, null_checks=null_checks)
    async with closing(events.__aiter__()) as iterator:
        async for event in iterator:
            verifier.feed(event)
            yield event
        verifier.finish()
