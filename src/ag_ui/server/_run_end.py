"""How a detached run's end gets into the store: its terminal event, then ``finish``.

The store holds a run as finished only once its terminal event is stored: a reader replaying a
finished run always ends with ``RUN_FINISHED`` or ``RUN_ERROR``. A run whose events could not
be stored (the store failed or stopped answering under its writer) is stopped, and its end is a
``RUN_ERROR`` ``store_unavailable``; while the store does not answer, that end is tried again
every ``RETRY_INTERVAL`` seconds, so that readers still waiting on the run (other workers,
reconnects after the store came back) get it within about a second of the store answering,
not when the run's TTL runs out.
"""

from __future__ import annotations

import logging

import anyio

from ag_ui.core.errors import RunNotFoundError, StoreUnavailableError
from ag_ui.encoder.encoder import event_to_json
from ag_ui.server._failures import store_lost
from ag_ui.store import RunStore

__all__ = ["MIN_RETRY_PERIOD", "RETRY_INTERVAL", "record_end", "store_lost_end"]

logger = logging.getLogger("ag_ui.server")

RETRY_INTERVAL = 1.0
"""Seconds between two attempts to record a run's end while the store does not answer."""

MIN_RETRY_PERIOD = 60.0
"""Seconds the end is retried at least, even when the run's own time limit is nearer."""


def store_lost_end() -> list[bytes]:
    """The end stored for a run whose events could not all be stored: ``RUN_ERROR`` alone.
    Nothing closes what the run left open, since what reached the store is not known (a
    batch that timed out may have been stored after all), and ``RUN_ERROR`` may end a run
    with items open."""
    return [event_to_json(store_lost("run"))]


async def record_end(store: RunStore, key: str, end: list[bytes], *, retry_until: float) -> bool:
    """Append ``end`` (the events still to store, the terminal one last; empty when the writer
    stored it) and mark the run finished, trying again while the store is unreachable until
    ``retry_until`` (``anyio.current_time()`` clock). The first attempt is shielded from
    cancellation (a shutdown still records it; the store's timeouts bound it), later ones are
    not. Returns whether the run is recorded as finished; logs why not.

    An append that timed out may have been stored after all (Redis answers what it read once
    it runs again), so a retried ``RUN_ERROR`` can be stored twice; readers stop at the first
    terminal event."""
    pending = list(end)
    attempt = 0
    while True:
        attempt += 1
        try:
            with anyio.CancelScope(shield=attempt == 1):
                if pending:
                    await store.append_encoded(key, pending)
                    pending = []  # stored: a later attempt only marks the run finished
                await store.finish(key)
        except RunNotFoundError:
            logger.warning("run %s was dropped from the store before its end was recorded", key)
            return False
        except StoreUnavailableError as exc:
            if anyio.current_time() + RETRY_INTERVAL >= retry_until:
                logger.error(
                    "run %s: could not record its end, the run store is unreachable: %s; "
                    "it stays unfinished in the store until it expires",
                    key,
                    exc,
                )
                return False
            if attempt == 1:
                logger.warning(
                    "run %s: the run store is unreachable (%s); recording the run's end "
                    "again every %g s",
                    key,
                    exc,
                    RETRY_INTERVAL,
                )
            try:
                await anyio.sleep(RETRY_INTERVAL)
            except anyio.get_cancelled_exc_class():
                logger.error(
                    "run %s: shut down before its end could be recorded; it stays unfinished "
                    "in the store until it expires",
                    key,
                )
                raise
            continue
        if attempt > 1:
            logger.warning("run %s: its end was recorded after %d attempts", key, attempt)
        return True
