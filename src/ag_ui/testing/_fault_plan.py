"""The faults and the sans-IO plan that applies them to a response body.

A ``FaultPlan`` splits the body into frames (SSE frames up to their blank line, or protobuf
length-prefixed frames), numbers the frames that carry an event (keepalive comments are passed
through and not counted), and turns what should happen into actions: write these bytes, sleep
this long, cut the connection now. The ASGI wrapper and the httpx transport in
``ag_ui.testing.faults`` only carry the actions out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional, Union

from ag_ui.core._wire import AGUI_MEDIA_TYPE
from ag_ui.testing._decoding import media_type

__all__ = [
    "Action",
    "Cut",
    "CutNow",
    "Drop",
    "DropTerminal",
    "Duplicate",
    "Fault",
    "FaultPlan",
    "Malformed",
    "Reorder",
    "Sleep",
    "Stall",
    "Throttle",
    "Write",
]

_TERMINAL = frozenset({"RUN_FINISHED", "RUN_ERROR"})


class Fault:
    """Base of the faults; each is a small frozen description, reusable across responses."""


@dataclass(frozen=True)
class Cut(Fault):
    """Break the connection after ``after_events`` event frames or ``after_bytes`` bytes of the
    body (a byte count may end inside a frame)."""

    after_events: Optional[int] = None
    after_bytes: Optional[int] = None

    def __post_init__(self) -> None:
        if (self.after_events is None) == (self.after_bytes is None):
            raise ValueError("Cut needs exactly one of after_events= or after_bytes=")
        limit = self.after_events if self.after_events is not None else self.after_bytes
        if limit is not None and limit < 0:
            raise ValueError("Cut's limit must be >= 0")


@dataclass(frozen=True)
class Stall(Fault):
    """Send nothing for ``seconds`` before event ``before_event`` (0-based; default 1: right
    after the first event)."""

    seconds: float
    before_event: int = 1


@dataclass(frozen=True)
class Malformed(Fault):
    """Send a broken frame before event ``before_event``: by default a frame whose JSON is cut
    in half (SSE) or a frame holding no valid event (protobuf); ``frame`` gives exact bytes."""

    before_event: int = 1
    frame: Optional[bytes] = None


@dataclass(frozen=True)
class Duplicate(Fault):
    """Send event ``event`` (0-based) twice."""

    event: int


@dataclass(frozen=True)
class Reorder(Fault):
    """Swap event ``event`` and the one after it."""

    event: int


@dataclass(frozen=True)
class Drop(Fault):
    """Leave event ``event`` out."""

    event: int


@dataclass(frozen=True)
class DropTerminal(Fault):
    """Leave out RUN_FINISHED and RUN_ERROR (the stream then ends inside the run)."""


@dataclass(frozen=True)
class Throttle(Fault):
    """Deliver the body at ``bytes_per_second`` at most."""

    bytes_per_second: float

    def __post_init__(self) -> None:
        if self.bytes_per_second <= 0:
            raise ValueError("Throttle's bytes_per_second must be > 0")


@dataclass(frozen=True)
class Write:
    data: bytes


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class CutNow:
    pass


Action = Union[Write, Sleep, CutNow]


class FaultPlan:
    """Applies ``faults`` to one response body of ``content_type`` (sans-IO).

    >>> plan = FaultPlan([Drop(event=1)], "text/event-stream")
    >>> plan.feed(b'data: {"type":"A"}\\n\\ndata: {"type":"B"}\\n\\ndata: {"type":"C"}\\n\\n')
    [Write(data=b'data: {"type":"A"}\\n\\n'), Write(data=b'data: {"type":"C"}\\n\\n')]
    """

    def __init__(self, faults: Sequence[Fault], content_type: Optional[str]) -> None:
        self.faults = list(faults)
        self.proto = media_type(content_type) == AGUI_MEDIA_TYPE
        self.throttle: Optional[float] = None
        self._buffer = b""
        self._events = 0  # event frames seen in the original body
        self._bytes_written = 0
        self._held: Optional[bytes] = None
        self._reorder_release: Optional[int] = None
        self.cut = False
        for fault in self.faults:
            if isinstance(fault, Throttle):
                self.throttle = fault.bytes_per_second
            elif not isinstance(
                fault, (Cut, Stall, Malformed, Duplicate, Reorder, Drop, DropTerminal)
            ):
                raise TypeError(f"not a fault: {fault!r}")

    # -- feeding ------------------------------------------------------------------------------

    def feed(self, chunk: bytes) -> list[Action]:
        """Actions for the next bytes the app sent."""
        if self.cut:
            return []
        self._buffer += chunk
        actions: list[Action] = []
        for frame in self._complete_frames():
            self._frame(frame, actions)
            if self.cut:
                break
        return actions

    def close(self) -> list[Action]:
        """Actions at the end of the body: a held (reordered) frame and any partial frame."""
        if self.cut:
            return []
        actions: list[Action] = []
        if self._held is not None:
            self._write(self._held, actions)
            self._held = None
        if self._buffer and not self.cut:
            self._write(self._buffer, actions)
            self._buffer = b""
        return actions

    # -- frames -------------------------------------------------------------------------------

    def _complete_frames(self) -> list[bytes]:
        frames: list[bytes] = []
        if self.proto:
            while len(self._buffer) >= 4:
                size = int.from_bytes(self._buffer[:4], "big")
                if len(self._buffer) < 4 + size:
                    break
                frames.append(self._buffer[: 4 + size])
                self._buffer = self._buffer[4 + size :]
            return frames
        while True:
            end = self._buffer.find(b"\n\n")
            if end < 0:
                return frames
            frames.append(self._buffer[: end + 2])
            self._buffer = self._buffer[end + 2 :]

    def _is_event(self, frame: bytes) -> bool:
        if self.proto:
            return True
        return any(line.startswith(b"data:") for line in frame.split(b"\n"))

    def _event_type(self, frame: bytes) -> Optional[str]:
        if self.proto:
            from ag_ui.proto import FrameDecoder

            try:
                events = FrameDecoder().feed(frame)
            except Exception:
                return None
            return events[0].type.value if events else None
        data = b"\n".join(
            line[5:].lstrip(b" ") for line in frame.split(b"\n") if line.startswith(b"data:")
        )
        try:
            value = json.loads(data)
        except ValueError:
            return None
        kind = value.get("type") if isinstance(value, dict) else None
        return kind if isinstance(kind, str) else None

    def _malformed(self, fault: Malformed) -> bytes:
        if fault.frame is not None:
            return fault.frame
        if self.proto:
            # A frame of three bytes that are no protobuf message (field 0 is invalid).
            return b"\x00\x00\x00\x03\x00\xff\xff"
        return b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":\n\n'

    def _frame(self, frame: bytes, actions: list[Action]) -> None:
        if not self._is_event(frame):
            self._write(frame, actions)  # comments (keepalives) are not counted
            return
        index = self._events
        self._events += 1
        for fault in self.faults:
            if (
                isinstance(fault, Cut)
                and fault.after_events is not None
                and index >= fault.after_events
            ):
                self._cut(actions)
                return
        for fault in self.faults:
            if isinstance(fault, Stall) and fault.before_event == index:
                actions.append(Sleep(fault.seconds))
            elif isinstance(fault, Malformed) and fault.before_event == index:
                self._write(self._malformed(fault), actions)
        if self.cut:
            return
        drop = any(isinstance(f, Drop) and f.event == index for f in self.faults)
        if not drop and any(isinstance(f, DropTerminal) for f in self.faults):
            drop = self._event_type(frame) in _TERMINAL
        copies = 0 if drop else 1
        copies += sum(1 for f in self.faults if isinstance(f, Duplicate) and f.event == index)
        out = frame * copies
        if any(isinstance(f, Reorder) and f.event == index for f in self.faults):
            self._held = (self._held or b"") + out
            self._reorder_release = index + 1
            return
        if out:
            self._write(out, actions)
        if self._held is not None and self._reorder_release == index:
            held, self._held = self._held, None
            self._write(held, actions)

    def _write(self, data: bytes, actions: list[Action]) -> None:
        for fault in self.faults:
            if isinstance(fault, Cut) and fault.after_bytes is not None:
                room = fault.after_bytes - self._bytes_written
                if len(data) >= room:
                    if room > 0:
                        actions.append(Write(data[:room]))
                        self._bytes_written += room
                    self._cut(actions)
                    return
        self._bytes_written += len(data)
        actions.append(Write(data))

    def _cut(self, actions: list[Action]) -> None:
        if not self.cut:
            self.cut = True
            actions.append(CutNow())


def paced(data: bytes, bytes_per_second: float) -> list[tuple[bytes, float]]:
    """``data`` in pieces, each with the seconds to wait before sending it (a throttled body
    goes out in about 20 pieces a second)."""
    piece = max(1, int(bytes_per_second / 20))
    return [
        (data[start : start + piece], len(data[start : start + piece]) / bytes_per_second)
        for start in range(0, len(data), piece)
    ]
