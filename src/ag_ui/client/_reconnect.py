"""Automatic reconnection to a detached run after a dropped connection (docs/resume.md).

When the server names a resume key (``AG-UI-Resume-Key``), a connection that breaks before the
run's terminal event is reopened at ``GET <url>/connect`` with the last id received
(``Last-Event-ID`` header and ``lastEventId`` query parameter), so every event arrives exactly
once. Attempts are bounded (``ReconnectPolicy.max_attempts`` consecutive failures; any event
received resets the count) and spaced by exponential backoff with full jitter. Servers that
name no key (plain AG-UI) get the old behaviour: a dropped connection is an error.

A run's first request refused with ``503`` or ``429`` and a ``Retry-After`` (this SDK's server
refuses that way when its stores are unreachable or full, before the run starts) is sent again
after that wait, within the same policy: the answer says nothing was started, so sending it
again cannot run it twice. Any other failure of the first request is the caller's to handle.
"""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Optional
from urllib.parse import urlsplit, urlunsplit

import anyio

from ag_ui.client._cursor import ResumeCursor
from ag_ui.client._signal import AbortSignal
from ag_ui.core._aiter import closing
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import ConnectionLostError, HTTPStatusError, IdleTimeoutError, TransportError
from ag_ui.core.events import RunErrorEvent, RunFinishedEvent

__all__ = [
    "Reconnect",
    "ReconnectPolicy",
    "connect_url",
    "resumable_events",
    "retry_after_seconds",
]

_TERMINAL = (RunFinishedEvent, RunErrorEvent)
_RETRYABLE_STATUS = frozenset({408, 429, 502, 503, 504})
"""Answers to a reconnect that mean "try again" (a restarting worker, a busy proxy)."""
_REFUSED_UNSTARTED = frozenset({429, 503})
"""Answers to a run's first request that, with a ``Retry-After``, mean "not started, come back"."""


def retry_after_seconds(value: Optional[str], *, now: Optional[float] = None) -> Optional[float]:
    """A ``Retry-After`` header in seconds from now: ``"3"`` or an HTTP date (RFC 9110); ``None``
    for no header or one that is neither. A date already past is ``0``."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT; a zone-less one is read as such
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class ReconnectPolicy:
    """How hard to try: ``max_attempts`` consecutive failed reconnects (0: never reconnect),
    waiting a random time up to ``initial_delay * 2**(attempt-1)`` (at most ``max_delay``)."""

    max_attempts: int = 5
    initial_delay: float = 0.2
    max_delay: float = 5.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait before reconnect number ``attempt`` (1-based), full jitter."""
        ceiling = min(self.max_delay, self.initial_delay * 2 ** max(attempt - 1, 0))
        return random.uniform(0, ceiling)


@dataclass(frozen=True)
class Reconnect:
    """What ``HttpAgent.on_reconnect`` is told before each reconnect."""

    attempt: int
    """1 for the first reconnect after events last arrived."""
    last_event_id: Optional[str]
    """Where the stream resumes (``<resume key>:<position>``)."""
    error: BaseException
    """Why the previous connection ended."""
    delay: float
    """Seconds waited before reconnecting."""


def connect_url(agent_url: str) -> str:
    """The connect endpoint beside an agent endpoint: ``<agent url>/connect``, with the agent
    URL's query (an API version, a deployment name) kept after it.

    >>> connect_url("https://example.com/agent/?v=1")
    'https://example.com/agent/connect?v=1'
    """
    parts = urlsplit(agent_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/connect"))


OpenStream = Callable[[bool], AsyncIterator[AnyEvent]]
"""``open(first)``: the first request (``first=True``) or a reconnect from the cursor."""


async def resumable_events(
    open_stream: OpenStream,
    cursor: ResumeCursor,
    *,
    policy: ReconnectPolicy,
    signal: AbortSignal,
    on_reconnect: Optional[Callable[[Reconnect], Any]] = None,
) -> AsyncIterator[AnyEvent]:
    """The events of one run across as many connections as it takes."""
    attempt = 0
    first = True
    while True:
        ended = progressed = False
        failure: BaseException
        try:
            async with closing(open_stream(first)) as events:
                async for event in events:
                    progressed = True
                    ended = isinstance(event, _TERMINAL)
                    yield event
            if ended or signal.aborted or not cursor.resumable:
                return
            failure = ConnectionLostError("the stream ended before the run's terminal event")
        except (ConnectionLostError, IdleTimeoutError) as exc:
            if not cursor.resumable:
                raise  # a plain AG-UI server: the run decides, as without resuming
            if ended or signal.aborted:
                return  # nothing was lost
            failure = exc
        except HTTPStatusError as exc:
            if first:
                # Sent again only when the server said it started nothing (module docstring),
                # and only for a wait this policy accepts.
                if (
                    exc.status not in _REFUSED_UNSTARTED
                    or exc.retry_after is None
                    or exc.retry_after > policy.max_delay
                ):
                    raise
                attempt += 1
                if attempt > policy.max_attempts:
                    raise
                delay = exc.retry_after + policy.delay(attempt)  # jitter: not all at once
                if not await _wait(delay, attempt, exc, cursor, signal, on_reconnect):
                    return
                continue
            if exc.status not in _RETRYABLE_STATUS:
                raise
            failure = exc
        except TransportError as exc:
            # Connection refused and the like: retry only a reconnect, never the first POST
            # (the run may or may not have started; resending it could run it twice).
            if first or type(exc) is not TransportError:
                raise
            failure = exc
        first = False
        attempt = 1 if progressed else attempt + 1
        if attempt > policy.max_attempts:
            raise ConnectionLostError(
                f"gave up after {policy.max_attempts} reconnect attempt(s) "
                f"(last id {cursor.last_event_id}): {failure}"
            ) from failure
        if not await _wait(policy.delay(attempt), attempt, failure, cursor, signal, on_reconnect):
            return


async def _wait(
    delay: float,
    attempt: int,
    failure: BaseException,
    cursor: ResumeCursor,
    signal: AbortSignal,
    on_reconnect: Optional[Callable[[Reconnect], Any]],
) -> bool:
    """Tell ``on_reconnect``, then wait ``delay`` seconds; ``False`` when the run was aborted
    meanwhile (``abort_run()`` also ends the wait)."""
    if on_reconnect is not None:
        outcome = on_reconnect(Reconnect(attempt, cursor.last_event_id, failure, delay))
        if inspect.isawaitable(outcome):
            await outcome
    with anyio.CancelScope() as scope:
        signal.watch(scope.cancel)
        try:
            await anyio.sleep(delay)
        finally:
            signal.unwatch()
    return not signal.aborted
