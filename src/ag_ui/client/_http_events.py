"""The HTTP source of a run's events: POST the input (or GET the connect endpoint) and, for a
detached run, reconnect from the last event received whenever the connection drops."""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import AsyncIterator
from typing import Any, Optional

import httpx

from ag_ui._aiter import closing
from ag_ui.client._cursor import ResumeCursor
from ag_ui.client.reconnect import Reconnect, connect_url, resumable_events
from ag_ui.client.transport import AbortSignal, new_http_client, stream_events
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.types import RunAgentInput

__all__ = ["http_events"]


async def http_events(
    agent: Any,
    input: Optional[RunAgentInput],
    signal: AbortSignal,
    connect_params: Optional[dict[str, str]] = None,
) -> AsyncIterator[AnyEvent]:
    """POST ``input`` to ``agent.url`` (or GET ``<url>/connect`` with ``connect_params`` when
    ``input`` is ``None``), reconnecting to a detached run whenever the connection drops."""
    body = None if input is None else input.__pydantic_serializer__.to_json(input, by_alias=True)
    cursor = ResumeCursor()
    options: dict[str, Any] = {
        "proto": agent.proto,
        "idle_timeout": agent.idle_timeout,
        "max_event_size": agent.max_event_size,
        "signal": signal,
        "cursor": cursor,
        "debug": agent.debug_log,
    }

    def open_stream(client: httpx.AsyncClient, first: bool) -> AsyncIterator[AnyEvent]:
        if first and body is not None:
            return stream_events(client, agent.url, body, headers=agent.headers, **options)
        params = dict(connect_params or {}) if first else {}
        headers = dict(agent.headers)
        if not first and cursor.last_event_id is not None:
            headers["Last-Event-ID"] = cursor.last_event_id
            params = {"lastEventId": cursor.last_event_id}  # protobuf frames carry no SSE ids
        url = connect_url(agent.url)
        return stream_events(client, url, None, headers=headers, params=params, **options)

    async def counted(reconnect: Reconnect) -> None:
        agent.reconnects += 1
        if agent.debug_log is not None:
            agent.debug_log.lifecycle(
                "LIFECYCLE",
                "Reconnecting:",
                attempt=reconnect.attempt,
                lastEventId=reconnect.last_event_id,
                delay=round(reconnect.delay, 3),
                error=str(reconnect.error),
            )
        if agent.on_reconnect is not None:
            outcome = agent.on_reconnect(reconnect)
            if inspect.isawaitable(outcome):
                await outcome

    async with contextlib.AsyncExitStack() as stack:
        client = agent.http_client
        if client is None:
            client = await stack.enter_async_context(new_http_client(agent.timeout))
        events = resumable_events(
            functools.partial(open_stream, client),
            cursor,
            policy=agent.reconnect,
            signal=signal,
            on_reconnect=counted,
        )
        async with closing(events):
            async for event in events:
                yield event
