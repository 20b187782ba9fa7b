"""Watching a server's tap (``AgentEndpoint(tap=True)``): runs other clients make, live.

Connects to ``GET <url>/tap`` and turns its messages into sessions, one per thread. The tap
sends the request body of each run and the events of its response (never headers or SSE ids);
times are the server's send times, so gaps are the agent's, not the network's. A dropped tap is
reconnected every ``RETRY_SECONDS``; a tap that does not exist (404) is reported once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Callable, Optional

import anyio
import httpx

from ag_ui.core.decoding import AnyEvent, parse_any_event, parse_run_agent_input
from ag_ui.core.errors import AGUIError, UnknownEventTypeError
from ag_ui.encoder import SSEDecoder
from ag_ui.inspect._session import Session

__all__ = ["RETRY_SECONDS", "TapWatcher"]

RETRY_SECONDS = 2.0


class TapWatcher:
    """Feeds tapped runs into sessions made by ``new_session(thread_id)``."""

    def __init__(
        self,
        url: str,
        new_session: Callable[[str], Session],
        *,
        headers: Optional[Mapping[str, str]] = None,
        token: Optional[str] = None,
        ignore_threads: Callable[[], set[str]] = set,
        transport: Optional[httpx.AsyncBaseTransport] = None,
    ) -> None:
        self.url = url.rstrip("/") + "/tap"
        self._new_session = new_session
        self._headers = dict(headers or {})
        if token:
            self._headers["authorization"] = f"Bearer {token}"
        self._ignore = ignore_threads
        self._transport = transport
        self._sessions: dict[str, Session] = {}
        self._runs: dict[int, tuple[Session, float]] = {}
        self._epochs: dict[str, float] = {}
        self.status = "connecting"

    async def run(self, on_status: Callable[[str], None]) -> None:
        """Watch until cancelled, reconnecting after a drop."""
        async with httpx.AsyncClient(
            transport=self._transport, timeout=httpx.Timeout(10.0, read=None)
        ) as client:
            while True:
                try:
                    await self._watch(client, on_status)
                except (httpx.HTTPError, OSError) as error:
                    on_status(f"tap unreachable ({type(error).__name__}); retrying")
                await anyio.sleep(RETRY_SECONDS)

    async def _watch(self, client: httpx.AsyncClient, on_status: Callable[[str], None]) -> None:
        async with client.stream("GET", self.url, headers=self._headers) as response:
            if response.status_code != 200:
                body = (await response.aread()).decode("utf-8", "replace")[:200]
                hint = (
                    " (start the server with tap=True)"
                    if response.status_code in (404, 405)
                    else ""
                )
                on_status(f"tap refused: HTTP {response.status_code}{hint} {body}")
                return
            on_status("watching")
            decoder = SSEDecoder(max_event_size=64 * 1024 * 1024)
            async for chunk in response.aiter_bytes():
                for message in decoder.feed(chunk):
                    try:
                        self.handle(json.loads(message.data))
                    except (ValueError, KeyError, TypeError):
                        continue  # a tap message we do not understand: not worth the watch
        on_status("tap closed; reconnecting")

    def handle(self, message: dict[str, Any]) -> None:
        """One tap message: ``run``, ``event``, ``end``, ``rejected`` or ``overflow``."""
        kind, sent = message.get("kind"), float(message["t"])
        tap = message.get("tap")
        number: int = tap if isinstance(tap, int) else -1
        if kind == "run":
            body = message.get("input") or {}
            thread = str(body.get("threadId", "?"))
            if thread in self._ignore():
                return  # our own conversation: already shown as a live session
            session = self._sessions.get(thread)
            if session is None:
                session = self._sessions[thread] = self._new_session(thread)
            began = self._runs_began(session, sent)
            try:
                run_input = parse_run_agent_input(body)
            except AGUIError as error:
                session.note(f"a request the tap saw is not a valid RunAgentInput: {error}")
                run_input = None
            session.begin_run(run_input, round(sent - began, 6))
            self._runs[number] = (session, began)
        elif kind == "event" and number in self._runs:
            session, began = self._runs[number]
            try:
                event, raw = _event_of(message)
            except UnknownEventTypeError as error:
                session.note(f"skipped an event of unknown type: {error}")
                return
            except (AGUIError, ImportError, ValueError) as error:
                session.note(f"an event the tap saw is not valid: {error}")
                return
            session.add_event(event, round(sent - began, 6), raw)
        elif kind == "end" and number in self._runs:
            session, _ = self._runs.pop(number)
            session.end()
        elif kind == "rejected" and number in self._runs:
            session, _ = self._runs.pop(number)
            session.note(f"a run request was refused with HTTP {message.get('status')}")
        elif kind == "overflow":
            for session in self._sessions.values():
                session.note(
                    f"the tap dropped {message.get('dropped')} messages (too slow to keep up)"
                )

    def _runs_began(self, session: Session, sent: float) -> float:
        # Times in a tapped session count from its first request the tap saw.
        return self._epochs.setdefault(session.id, sent)


def _event_of(message: dict[str, Any]) -> tuple[AnyEvent, str]:
    """The event of a tap message and its text as received (SSE data, or frame hex)."""
    if "frame" in message:
        from ag_ui.proto import decode_event  # needs the proto extra

        frame = bytes.fromhex(message["frame"])
        return decode_event(frame[4:]), frame.hex(" ", -4)
    return parse_any_event(message["data"]), message["data"]
