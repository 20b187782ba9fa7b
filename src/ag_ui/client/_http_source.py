"""The HTTP source of a run's events: POST the input (or GET the connect endpoint) and, for a
detached run, reconnect from the last event received whenever the connection drops.

Everything it needs is passed in: the run's ``HttpConfig``, the HTTP client (or ``None`` to
open one for the run), what to ask for, the abort signal and a callback told about each
reconnect.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

from ag_ui.client._config import HttpConfig
from ag_ui.client._cursor import ResumeCursor
from ag_ui.client._reconnect import Reconnect, connect_url, resumable_events
from ag_ui.client._signal import AbortSignal
from ag_ui.core._aiter import closing
from ag_ui.core._surrogates import wire_json
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.types import RunAgentInput

if TYPE_CHECKING:
    import httpx

__all__ = ["ConnectTarget", "http_events"]


@dataclass(frozen=True)
class ConnectTarget:
    """What ``GET <url>/connect`` attaches to (docs/resume.md): exactly one query parameter,
    ``lastEventId`` (resume after that event), ``runKey`` (a run from its start) or
    ``threadId`` (a thread's history)."""

    name: str
    value: str

    @classmethod
    def of(
        cls, *, last_event_id: Optional[str], run_key: Optional[str], thread_id: str
    ) -> ConnectTarget:
        """The first of ``last_event_id``, ``run_key`` and ``thread_id`` that is given."""
        if last_event_id is not None:
            return cls("lastEventId", last_event_id)
        if run_key is not None:
            return cls("runKey", run_key)
        return cls("threadId", thread_id)

    @property
    def params(self) -> Mapping[str, str]:
        """The query parameters of the first request."""
        return {self.name: self.value}

    @property
    def joins_mid_run(self) -> bool:
        """True when the stream starts in the middle of a run (after its RUN_STARTED)."""
        return self.name == "lastEventId" and not self.value.endswith(":0")


def http_events(
    config: HttpConfig,
    client: Optional[httpx.AsyncClient],
    target: Union[RunAgentInput, ConnectTarget],
    signal: AbortSignal,
    on_reconnect: Optional[Callable[[Reconnect], Awaitable[None]]] = None,
) -> AsyncIterator[AnyEvent]:
    """POST ``target`` (a run input) to ``config.url``, or GET ``<url>/connect`` for a
    ``ConnectTarget``, reconnecting to a detached run whenever the connection drops. Without
    ``client``, one is opened for the run and closed with it."""
    # httpx and the transport are imported on the first run, not with ag_ui.client (they are
    # most of its import time: httpx imports its command line, and so click).
    from ag_ui.client._transport import stream_events

    # A message cut inside an emoji holds a lone surrogate: written as its escape.
    body = wire_json(target) if isinstance(target, RunAgentInput) else None
    first_params = target.params if isinstance(target, ConnectTarget) else {}
    cursor = ResumeCursor()
    read = functools.partial(
        stream_events,
        proto=config.proto,
        idle_timeout=config.idle_timeout,
        max_event_size=config.max_event_size,
        signal=signal,
        cursor=cursor,
        debug=config.debug_log,
    )

    def events(http: httpx.AsyncClient) -> AsyncIterator[AnyEvent]:
        def open_stream(first: bool) -> AsyncIterator[AnyEvent]:
            if first and body is not None:
                return read(http, config.url, body, headers=config.headers)
            params = dict(first_params) if first else {}
            headers = dict(config.headers)
            if not first and cursor.last_event_id is not None:
                headers["Last-Event-ID"] = cursor.last_event_id
                params = {"lastEventId": cursor.last_event_id}  # protobuf frames carry no ids
            return read(http, connect_url(config.url), None, headers=headers, params=params)

        return resumable_events(
            open_stream, cursor, policy=config.reconnect, signal=signal, on_reconnect=on_reconnect
        )

    if client is not None:
        return events(client)  # no layer of our own between the reader and the run
    return _with_own_client(config.timeout, events)


async def _with_own_client(
    timeout: float, events: Callable[[httpx.AsyncClient], AsyncIterator[AnyEvent]]
) -> AsyncIterator[AnyEvent]:
    from ag_ui.client._transport import new_http_client

    async with new_http_client(timeout) as http:
        source = events(http)
        async with closing(source):
            async for event in source:
                yield event
