"""``GET <path>/connect``: reattach to a detached run, or read a thread's compacted history.

What to read (first match wins):

1. ``Last-Event-ID: <resume key>:<position>`` header (what an SSE client sends on reconnect);
2. ``?lastEventId=<resume key>:<position>`` (protobuf clients, whose frames carry no ids);
3. ``?runKey=<resume key>`` (the whole run, from position 0);
4. ``?threadId=<thread id>``: with a thread store (``AgentEndpoint(threads=...)``), the
   caller's stored conversation as one run (``RUN_STARTED``, ``MESSAGES_SNAPSHOT``,
   ``STATE_SNAPSHOT``, ``RUN_FINISHED``: what any client restores a thread from), then the
   live tail of the thread's runs still going in the run store; without one (or when the
   thread store has no such thread), every stored run of the thread the caller owns, each
   compacted (``ag_ui.verify.compact_events``), then the live tail of those still running.

Unknown, expired and not-yours runs are one and the same 404; a malformed id is a 400. Thread
ids are chosen by clients, so a thread's history would be anyone's to read under the anonymous
principal: for anonymous callers it is refused (403 ``thread_history_not_public``) unless the
endpoint was built with ``public_thread_history=True``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, NamedTuple, Optional

import anyio
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from ag_ui.core._aiter import closing
from ag_ui.core.errors import (
    HistoryTrimmedError,
    RequestRejectedError,
    RunNotFoundError,
    StoreUnavailableError,
    ThreadNotFoundError,
)
from ag_ui.core.events import Event, EventType, RunErrorEvent
from ag_ui.encoder import EventEncoder
from ag_ui.server._access import AccessControl
from ag_ui.server._asgi import send_error
from ag_ui.server._failures import (
    history_trimmed,
    invalid_thread_id,
    run_end_lost,
    run_not_found,
    store_lost,
    store_unavailable,
    thread_history_not_public,
    thread_not_found,
    thread_run_expired,
    thread_store_unavailable,
)
from ag_ui.server._replay import (
    RESUME_AFTER_HEADER,
    RESUME_KEY_HEADER,
    frame,
    run_frames,
)
from ag_ui.server._request import check_method
from ag_ui.server._response import pump, stream_response
from ag_ui.server._threads import DEFAULT_SAVE_TIMEOUT, history_events
from ag_ui.store import RunStore, ThreadStore
from ag_ui.store._thread_base import thread_id_problem
from ag_ui.telemetry import _switch as telemetry_switch
from ag_ui.telemetry._propagation import TRACE_ID_HEADER
from ag_ui.verify import compact_events

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ag_ui.telemetry._telemetry import Telemetry

__all__ = ["ConnectEndpoint", "parse_last_event_id"]

_TERMINAL = (EventType.RUN_FINISHED, EventType.RUN_ERROR)
_LAST_EVENT_ID = re.compile(r"([A-Za-z0-9_-]{1,128}):([0-9]{1,18})")
_RUN_KEY = re.compile(r"[A-Za-z0-9_-]{1,128}")


def parse_last_event_id(value: str) -> tuple[str, int]:
    """``"<key>:<position>"`` -> (key, position); 400 ``malformed_last_event_id`` otherwise."""
    match = _LAST_EVENT_ID.fullmatch(value.strip())
    if match is None:
        raise RequestRejectedError(
            400,
            "malformed_last_event_id",
            "the last event id must look like '<resume key>:<position>' "
            "(the id of an SSE frame this server sent)",
            details=[f"got {value[:200]!r}"],
        )
    return match.group(1), int(match.group(2))


class _ThreadRun(NamedTuple):
    """One run of a thread history, as it stood when the request came in."""

    key: str
    last: int
    """The position of its newest event then (the history goes up to it, the tail after it)."""
    finished: bool


class ConnectEndpoint:
    """The ASGI endpoint for ``GET <path>/connect`` (``AgentEndpoint.routes`` mounts it): the
    runs of ``store``, to the callers ``access`` admits, with keepalives every ``keepalive``
    seconds (``None``: never); ``public_thread_history``: anonymous callers may read the
    anonymous runs of a thread (off: they get 403); ``threads``: the thread store whose
    conversations ``?threadId=`` restores. One of ``store`` and ``threads`` is needed."""

    def __init__(
        self,
        store: Optional[RunStore],
        access: AccessControl,
        *,
        keepalive: Optional[float],
        public_thread_history: bool = False,
        threads: Optional[ThreadStore] = None,
    ) -> None:
        self._store = store
        self._access = access
        self._keepalive = keepalive
        self._public_thread_history = public_thread_history
        self._threads = threads

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        encoder = EventEncoder(accept=request.headers.get("accept"))
        telemetry: Optional[Telemetry] = None
        reader: Optional[Span] = None
        try:
            check_method(request.method, "GET")
            principal = self._access.owner(await self._access.authorize(request))
            target = _target(request)
            headers: dict[str, str] = {}
            if isinstance(target, tuple):
                if self._store is None:
                    raise run_not_found()  # only thread histories here: no run store
                key, after = target
                await self._check_owner(key, principal)
                after = min(after, await self._store.last_position(key))
                frames = run_frames(self._store, key, after, encoder)
                headers = {RESUME_KEY_HEADER: key, RESUME_AFTER_HEADER: str(after)}
                telemetry = telemetry_switch.current
                if telemetry is not None:
                    reader = telemetry.reader(key, request.headers, {"ag_ui.after": after})
                    headers[TRACE_ID_HEADER] = format(reader.get_span_context().trace_id, "032x")
            else:
                frames = await self._thread_history(target, principal, encoder)
        except RunNotFoundError:
            await send_error(send, run_not_found())
            return
        except StoreUnavailableError:
            await send_error(send, store_unavailable())
            return
        except RequestRejectedError as rejection:
            await send_error(send, rejection)
            return
        if reader is None:
            await stream_response(
                receive,
                send,
                pump(frames),
                encoder=encoder,
                keepalive=self._keepalive,
                headers=headers,
            )
            return
        assert telemetry is not None
        telemetry.streams(1)
        try:
            await stream_response(
                receive,
                send,
                pump(frames),
                encoder=encoder,
                keepalive=self._keepalive,
                headers=headers,
            )
        finally:
            telemetry.streams(-1)
            reader.end()

    async def _thread_history(
        self, thread_id: str, principal: Optional[str], encoder: EventEncoder
    ) -> AsyncIterator[bytes]:
        """The frames of ``?threadId=``: the stored conversation when the thread store has
        it (then the runs still going), else the run store's compacted history."""
        if principal is None and not self._public_thread_history:
            # Before a store is asked: the answer must not depend on whether the thread exists.
            raise thread_history_not_public()
        problem = thread_id_problem(thread_id)
        if problem is not None:
            raise invalid_thread_id(problem)
        if self._threads is not None:
            try:
                with anyio.fail_after(DEFAULT_SAVE_TIMEOUT):
                    stored = await self._threads.load(thread_id, owner=principal)
            except ThreadNotFoundError:
                if self._store is None:
                    raise thread_not_found() from None
            except (StoreUnavailableError, TimeoutError):
                raise thread_store_unavailable() from None
            else:
                live = await self._live_runs(thread_id, principal)
                return self._stored_thread_frames(history_events(stored), live, encoder)
        runs = await self._thread_runs(thread_id, principal)
        return self._thread_frames(runs, encoder)

    async def _live_runs(self, thread_id: str, principal: Optional[str]) -> list[_ThreadRun]:
        """The caller's runs of the thread still going in the run store (none without one)."""
        if self._store is None:
            return []
        try:
            runs = await self._thread_runs(thread_id, principal)
        except RequestRejectedError:  # no runs of this thread (404)
            return []
        return [run for run in runs if not run.finished]

    async def _stored_thread_frames(
        self, history: list[Event], live: list[_ThreadRun], encoder: EventEncoder
    ) -> AsyncIterator[bytes]:
        for event in history:
            yield frame(encoder, event, None, 0)
        store = self._store
        for key, _last, _finished in live:
            assert store is not None  # live runs come from it
            # From the run's start: the stored conversation is written when a run ends, so
            # none of a run still going is in it.
            async with closing(run_frames(store, key, 0, encoder)) as tail:
                async for chunk in tail:
                    yield chunk

    async def _check_owner(self, key: str, principal: Optional[str]) -> None:
        assert self._store is not None
        record = await self._store.get(key)
        if record.owner != principal:
            raise RunNotFoundError(key)

    async def _thread_runs(self, thread_id: str, principal: Optional[str]) -> list[_ThreadRun]:
        """The caller's runs of the thread, oldest first."""
        assert self._store is not None
        runs = []
        for key in await self._store.thread_runs(thread_id):
            try:
                record = await self._store.get(key)
                if record.owner == principal:
                    last = await self._store.last_position(key)
                    runs.append(_ThreadRun(key, last, record.finished))
            except RunNotFoundError:
                continue  # expired between the listing and now
        if not runs:
            raise run_not_found()
        return runs

    async def _thread_frames(
        self, runs: list[_ThreadRun], encoder: EventEncoder
    ) -> AsyncIterator[bytes]:
        assert self._store is not None
        # Compacted history first: each run's events up to the position seen when the request
        # came in; the last frame of a run carries its id, a resume point for that run.
        for key, last, finished in runs:
            try:
                events = await self._events_until(key, last)
            except (StoreUnavailableError, RunNotFoundError, HistoryTrimmedError) as exc:
                yield frame(encoder, _history_lost(exc), None, 0)
                return
            compacted = _terminal_last(compact_events(events))
            for index, event in enumerate(compacted):
                final = index == len(compacted) - 1
                yield frame(encoder, event, key if final else None, last)
            if finished and not (compacted and compacted[-1].type in _TERMINAL):
                yield frame(encoder, run_end_lost(), None, 0)  # see run_frames
        for key, last, finished in runs:
            if not finished:
                async with closing(run_frames(self._store, key, last, encoder)) as tail:
                    async for chunk in tail:
                        yield chunk

    async def _events_until(self, key: str, last: int) -> list[Event]:
        assert self._store is not None
        events: list[Event] = []
        if last == 0:
            return events
        async with closing(self._store.read(key, 0)) as stored:
            async for item in stored:
                events.append(item.event)
                # Nothing follows a terminal event, even where the store holds more (a
                # RUN_ERROR retried after a write that timed out but landed after all).
                if item.position >= last or item.event.type in _TERMINAL:
                    break
        return events


def _terminal_last(events: list[Event]) -> list[Event]:
    """``compact_events`` (like the TypeScript client's ``compactEvents``) puts what a
    ``RUN_ERROR`` cut short (a message still open) after it; a client reading the history
    accepts nothing after a terminal event, so the terminal event goes last."""
    for index, event in enumerate(events):
        if event.type in _TERMINAL:
            if index < len(events) - 1:
                return events[:index] + events[index + 1 :] + [event]
            break
    return events


def _history_lost(exc: Exception) -> RunErrorEvent:
    if isinstance(exc, StoreUnavailableError):
        return store_lost("thread")
    if isinstance(exc, HistoryTrimmedError):  # a run's opening events were trimmed
        return history_trimmed(exc)
    return thread_run_expired()


def _target(request: Request) -> tuple[str, int] | str:
    """(resume key, position) to resume a run, or a thread id for its history."""
    header = request.headers.get("last-event-id")
    if header is not None and header.strip():
        return parse_last_event_id(header)
    query = request.query_params
    if "lastEventId" in query:
        return parse_last_event_id(query["lastEventId"])
    if "runKey" in query:
        key = query["runKey"]
        if _RUN_KEY.fullmatch(key) is None:
            raise RequestRejectedError(
                400, "malformed_run_key", "runKey is not a resume key this server issued"
            )
        return key, 0
    thread_id = query.get("threadId")
    if thread_id:
        return thread_id
    raise RequestRejectedError(
        400,
        "missing_last_event_id",
        "say what to connect to: a Last-Event-ID header, or ?lastEventId=<key>:<position>, "
        "?runKey=<key> or ?threadId=<thread id>",
    )
