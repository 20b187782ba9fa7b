"""The inspector: its sessions and what feeds them (a recording, live threads, a server's tap).

``Inspector(url=...)`` talks to an agent (one ``LiveThread`` per thread) and, with
``tap=True``, also watches the server's tap; ``Inspector.open(path)`` plays a recording back.
``run()`` is the background work (playback clocks, the tap watcher, the runs the page starts);
the page's HTTP side is ``ag_ui.inspect._app``.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import Any, Callable, Optional

import anyio
import httpx
from anyio.abc import TaskGroup

from ag_ui.core.errors import DecodeError, InspectorError
from ag_ui.inspect._changes import Changes
from ag_ui.inspect._export import public_source
from ag_ui.inspect._live import LiveThread, TurnOptions
from ag_ui.inspect._player import Player
from ag_ui.inspect._session import Session
from ag_ui.inspect._tap_watch import TapWatcher
from ag_ui.recording import read_recording

__all__ = ["Inspector", "InspectorError"]


class Inspector:
    """Sessions and their sources; see the module docstring."""

    def __init__(
        self,
        *,
        url: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        proto: bool = False,
        tap: bool = False,
        tap_token: Optional[str] = None,
        transport: Optional[httpx.AsyncBaseTransport] = None,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.proto = proto
        self.sessions: dict[str, Session] = {}
        self.players: dict[str, Player] = {}
        self.threads: dict[str, LiveThread] = {}
        self._changes = Changes()
        self.tap_status: Optional[str] = None
        self._transport = transport
        self._numbers = itertools.count(1)
        self._tasks: Optional[TaskGroup] = None
        self._tap: Optional[TapWatcher] = None
        if url is not None and tap:
            self.tap_status = "connecting"
            self._tap = TapWatcher(
                url,
                self._tap_session,
                headers=self.headers,
                token=tap_token,
                ignore_threads=self._own_threads,
                transport=transport,
            )
        self._autoplay: list[Player] = []

    @property
    def mode(self) -> str:
        return "live" if self.url is not None else "recording"

    # -- sessions --------------------------------------------------------------------------------

    def _add(self, session: Session) -> Session:
        self.sessions[session.id] = session
        self.touch()
        return session

    @property
    def version(self) -> int:
        """Bumped when the session list or the tap's status changes."""
        return self._changes.version

    def touch(self) -> None:
        """The session list changed: wake whoever shows it."""
        self._changes.bump()

    async def changed(self, seen: int) -> None:
        await self._changes.wait(seen)

    def session(self, session_id: str) -> Session:
        try:
            return self.sessions[session_id]
        except KeyError:
            raise InspectorError(f"no session {session_id!r}") from None

    def open(self, path: Path, *, speed: float = 1.0, play: bool = False) -> Session:
        """Load a recording (JSON Lines, timed JSON Lines, SSE, protobuf) for playback."""
        try:
            data = path.read_bytes()
        except OSError as error:
            raise InspectorError(f"cannot read {path}: {error.strerror}") from None
        try:
            recording = read_recording(data)
        except DecodeError as error:
            raise InspectorError(f"{path} is not a recording this SDK reads: {error}") from None
        header = recording.header
        session = Session(
            id=f"s{next(self._numbers)}",
            title=path.name,
            kind="recording",
            source=str(header.get("source") or path),
            transport=header.get("transport") or ("proto" if recording.format == "proto" else None),
        )
        for run in recording.runs:
            if run.input is not None or len(recording.runs) > 1:
                session.begin_run(run.input, run.at)
            for recorded in run.events:
                session.add_event(recorded.event, recorded.at)
        session.end()
        for skipped in recording.skipped:
            session.note(f"skipped an event of unknown type: {skipped}")
        if not session.rows:
            session.note("the recording holds no events")
        player = Player(session, speed=speed)
        self.players[session.id] = player
        if self._tasks is not None:  # opened while running: its clock starts now
            self._tasks.start_soon(player.run)
            if play:
                player.play()
        elif play:
            self._autoplay.append(player)
        return self._add(session)

    def new_thread(self, title: Optional[str] = None) -> Session:
        """A new live conversation (a new thread id) with the agent at ``url``."""
        if self.url is None:
            raise InspectorError("live conversations need an agent URL (agui inspect URL)")
        number = next(self._numbers)
        session = Session(
            id=f"s{number}",
            title=title
            or f"conversation {sum(s.kind == 'live' for s in self.sessions.values()) + 1}",
            kind="live",
            source=public_source(self.url),
            transport="proto" if self.proto else "sse",
        )
        self.threads[session.id] = LiveThread(
            session, self.url, headers=self.headers, transport=self._transport
        )
        return self._add(session)

    async def stored_threads(self) -> dict[str, Any]:
        """The threads the agent keeps for these credentials (``GET <url>/threads``, newest
        first): ``{"available": True, "threads": [...]}``, or ``available`` false with the
        reason (an agent without a thread store, anonymous access refused)."""
        if self.url is None:
            raise InspectorError("stored threads need an agent URL (agui inspect URL)")
        url = self.url.rstrip("/") + "/threads"
        try:
            async with httpx.AsyncClient(
                transport=self._transport, headers=self.headers, timeout=30
            ) as client:
                response = await client.get(url, params={"limit": 100})
        except httpx.HTTPError as failure:
            return {"available": False, "reason": f"{type(failure).__name__}: {failure}"}
        if response.status_code == 404:
            return {"available": False, "reason": "this agent keeps no threads"}
        try:
            body: Any = response.json()
        except ValueError:
            body = None
        if not response.is_success or not isinstance(body, dict):
            problem = body.get("error", {}) if isinstance(body, dict) else {}
            message = problem.get("message") if isinstance(problem, dict) else None
            return {"available": False, "reason": message or f"HTTP {response.status_code}"}
        return {"available": True, "threads": body.get("threads", [])}

    def open_stored_thread(self, thread_id: str, title: Optional[str] = None) -> Session:
        """A live conversation that starts by restoring the stored thread ``thread_id``."""
        if not thread_id:
            raise InspectorError("say which thread to open (threadId)")
        shown = title or (thread_id if len(thread_id) <= 24 else thread_id[:12] + "…")
        session = self.new_thread(title=f"stored: {shown}")
        thread = self.threads[session.id]
        self.start(lambda: thread.load(thread_id))
        return session

    def _tap_session(self, thread_id: str) -> Session:
        session = Session(
            id=f"s{next(self._numbers)}",
            title=f"tapped thread {thread_id if len(thread_id) <= 24 else thread_id[:12] + '…'}",
            kind="tap",
            source=public_source(self.url),
        )
        return self._add(session)

    def _own_threads(self) -> set[str]:
        return {thread.agent.thread_id for thread in self.threads.values()}

    # -- what the page asks for -------------------------------------------------------------------

    def thread(self, session_id: str) -> LiveThread:
        self.session(session_id)
        thread = self.threads.get(session_id)
        if thread is None:
            raise InspectorError("this session is not a live conversation")
        return thread

    def player(self, session_id: str) -> Player:
        self.session(session_id)
        player = self.players.get(session_id)
        if player is None:
            raise InspectorError("this session is not a recording")
        return player

    def start(self, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work`` in the background (a turn the page asked for)."""
        if self._tasks is None:
            raise InspectorError("the inspector is not running")

        async def job() -> None:
            await work()

        self._tasks.start_soon(job)

    def turn(self, session_id: str, options: TurnOptions) -> None:
        thread = self.thread(session_id)
        if thread.running:
            raise InspectorError("a run of this conversation is in progress; wait or stop it")
        self.start(lambda: thread.turn(options))

    # -- background work --------------------------------------------------------------------------

    async def run(self) -> None:
        """Playback clocks and the tap watcher; returns when cancelled (closing the clients)."""
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                for player in self.players.values():
                    tasks.start_soon(player.run)
                for player in self._autoplay:
                    player.play()
                if self._tap is not None:
                    tasks.start_soon(self._tap.run, self._set_tap_status)
                await anyio.sleep_forever()
        finally:
            self._tasks = None
            with anyio.CancelScope(shield=True):
                for thread in self.threads.values():
                    await thread.aclose()

    def _set_tap_status(self, status: str) -> None:
        self.tap_status = status
        self.touch()

    def info(self) -> dict[str, Any]:
        """What the page needs to lay itself out."""
        return {
            "mode": self.mode,
            "url": public_source(self.url),
            "proto": self.proto,
            "tap": self.tap_status,
            "sessions": [session.summary() for session in self.sessions.values()],
        }
