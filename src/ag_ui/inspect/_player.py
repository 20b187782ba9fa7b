"""Playback of a recorded session: its original timing, at a chosen speed, or a jump anywhere.

Every row was analysed when the recording was loaded; playing only moves the session's
``visible`` count along the recording's clock. A recording without times plays at
``UNTIMED_RATE`` events per second (times the speed).
"""

from __future__ import annotations

import time
from typing import Any, Optional

import anyio

from ag_ui.inspect._session import Session

__all__ = ["SPEEDS", "UNTIMED_RATE", "Player"]

SPEEDS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 100.0)
UNTIMED_RATE = 20.0
_MAX_SLEEP = 0.25  # wake up at least this often, so pause and speed changes take effect


class Player:
    """Plays ``session`` (see the module docstring); all methods are called on the event loop."""

    def __init__(self, session: Session, *, speed: float = 1.0) -> None:
        self.session = session
        self.speed = _checked(speed)
        self.playing = False
        self._wake: Optional[anyio.Event] = None  # made on the loop (run() or a control)
        session.follow = False
        self._publish()

    def _publish(self) -> None:
        self.session.set_status(
            playback={
                "playing": self.playing,
                "speed": self.speed,
                "position": self.session.visible,
                "total": len(self.session.rows),
            }
        )

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()
        self._wake = anyio.Event()

    def play(self) -> None:
        if not self.session.rows:
            return
        if self.session.visible >= len(self.session.rows):
            self.session.set_visible(0)  # at the end, Play starts over
        self.playing = True
        self._poke()
        self._publish()

    def pause(self) -> None:
        self.playing = False
        self._poke()
        self._publish()

    def set_speed(self, speed: float) -> None:
        self.speed = _checked(speed)
        self._poke()
        self._publish()

    def seek(self, position: int) -> None:
        """Show the first ``position`` rows (the selected event is ``position - 1``)."""
        self.session.set_visible(position)
        self._poke()
        self._publish()

    def command(self, action: str, value: Any = None) -> None:
        """One control from the page: ``play``, ``pause``, ``speed`` (value) or ``seek`` (value)."""
        if action == "play":
            self.play()
        elif action == "pause":
            self.pause()
        elif action == "speed":
            self.set_speed(float(value))
        elif action == "seek":
            self.seek(int(value))
        else:
            raise ValueError(f"unknown playback action {action!r}: use play, pause, speed or seek")

    async def run(self) -> None:
        """The playback loop; runs until cancelled."""
        self._poke()
        while True:
            if not self.playing:
                assert self._wake is not None
                await self._wake.wait()
                continue
            await self._play_from(self.session.visible)

    async def _play_from(self, start: int) -> None:
        # Times are measured from the row before ``start`` (or the first row), so the first
        # step waits the recorded gap too; a change of speed or a jump restarts from here.
        rows = self.session.rows
        speed = self.speed
        base_at = _time_of(rows, start - 1) if start > 0 else _time_of(rows, 0)
        began = time.monotonic()
        wake = self._wake
        position = start
        while position < len(rows):
            if not self.playing or wake is not self._wake or self.session.visible != position:
                return
            due = (_time_of(rows, position) - base_at) / speed
            wait = due - (time.monotonic() - began)
            if wait > 0:
                assert wake is not None
                with anyio.move_on_after(min(wait, _MAX_SLEEP)):
                    await wake.wait()
                continue
            # Show every row that is due now in one step (a burst of events is one update).
            elapsed = (time.monotonic() - began) * speed
            position += 1
            while position < len(rows) and _time_of(rows, position) - base_at <= elapsed:
                position += 1
            self.session.set_visible(position)
            self._publish()
        self.playing = False
        self._publish()


def _time_of(rows: list[Any], index: int) -> float:
    at: Optional[float] = rows[index].at
    if at is None:
        return index / UNTIMED_RATE
    return at


def _checked(speed: float) -> float:
    if not speed > 0 or speed > 1000:
        raise ValueError(f"speed must be a number in (0, 1000], got {speed!r}")
    return float(speed)
