"""Bounds on reading one response: silence, total time, size, event count, and UTF-8 for SSE.

A grader talks to endpoints it does not trust (``agui validate`` against any URL): a server
may accept and never answer, trickle keepalives forever, flood, or send bytes that are not
UTF-8. ``ReadBounds`` says how long and how much one response may take; ``BodyReader`` reads a
response body within them and says which bound a response broke, as a rule id and a message a
finding can carry. ``None`` leaves a bound off (``AgentClient``'s default for the time and
size bounds: a test of one's own agent may stream as long as it likes).
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Optional

import anyio

from ag_ui.apply import AgentState
from ag_ui.testing.result import RunResult

__all__ = ["BodyReader", "Broken", "ReadBounds", "no_answer", "release_cut_response"]


@dataclass(frozen=True)
class ReadBounds:
    """``idle``: the longest silence (waiting for the response headers, or between two reads
    of the body); ``seconds``: the longest a response may take, request to end; ``bytes``:
    the most body bytes read; ``events``: the most events kept from one stream."""

    idle: Optional[float] = 30.0
    seconds: Optional[float] = None
    bytes: Optional[int] = None
    events: Optional[int] = None

    def header_wait(self) -> Optional[float]:
        """How long to wait for the response headers."""
        waits = [w for w in (self.idle, self.seconds) if w is not None]
        return min(waits) if waits else None


@dataclass(frozen=True)
class Broken:
    """A bound a response broke: the rule of the finding and what happened."""

    rule: str
    message: str


def no_answer(bounds: ReadBounds) -> Broken:
    return Broken(
        "wire.no-answer",
        f"the server accepted the request but sent no response within {bounds.header_wait()} s",
    )


class BodyReader:
    """Reads one response body within ``bounds``; ``broken`` says why it stopped early.

    ``utf8`` checks the bytes as they arrive (SSE is UTF-8 only; a client would replace bad
    bytes with U+FFFD, silently changing the text).
    """

    def __init__(self, bounds: ReadBounds, started: float, *, utf8: bool = False) -> None:
        self.bounds = bounds
        self.deadline = None if bounds.seconds is None else started + bounds.seconds
        self.received = 0
        self.broken: Optional[Broken] = None
        self._utf8 = codecs.getincrementaldecoder("utf-8")("strict") if utf8 else None

    async def next_chunk(self, chunks: AsyncIterator[bytes]) -> Optional[bytes]:
        """The next chunk, or ``None`` at the end of the body or once a bound is broken
        (``broken`` is then set)."""
        if self.broken is not None:
            return None
        wait = self.bounds.idle
        remaining = None if self.deadline is None else self.deadline - anyio.current_time()
        if remaining is not None and (wait is None or remaining < wait):
            wait = max(remaining, 0.0)
        with anyio.move_on_after(wait) as timer:
            chunk = await anext(chunks, None)
        if timer.cancelled_caught:
            self.broken = self._timed_out(remaining is not None and remaining <= (wait or 0))
            return None
        if chunk is None:
            self._check_utf8(b"", final=True)
            return None
        self.received += len(chunk)
        limit = self.bounds.bytes
        if limit is not None and self.received > limit:
            self.broken = Broken(
                "wire.too-large",
                f"the response went past {limit} bytes without ending; the rest was not read",
            )
            return None
        self._check_utf8(chunk, final=False)
        return None if self.broken is not None else chunk

    def too_many_events(self, count: int) -> bool:
        """True (and ``broken`` set) once a stream has delivered more events than allowed."""
        limit = self.bounds.events
        if limit is None or count <= limit or self.broken is not None:
            return self.broken is not None
        self.broken = Broken(
            "wire.too-large",
            f"the stream went past {limit} events without ending; the rest was not read",
        )
        return True

    def _timed_out(self, at_deadline: bool) -> Broken:
        if at_deadline:
            return Broken(
                "wire.endless",
                f"the response had not ended after {self.bounds.seconds} s "
                f"({self.received} bytes received); it was closed there",
            )
        return Broken(
            "wire.idle",
            f"nothing arrived for {self.bounds.idle} s ({self.received} bytes received)",
        )

    def _check_utf8(self, chunk: bytes, *, final: bool) -> None:
        if self._utf8 is None:
            return
        try:
            self._utf8.decode(chunk, final)
        except UnicodeDecodeError as exc:
            # exc.object is what the decoder held (a cut sequence's start, then this chunk).
            offset = self.received - len(exc.object) + exc.start
            bad = bytes(exc.object[exc.start : exc.start + 4])
            where = f"at byte {offset} ({bad!r}: {exc.reason})"
            if final:
                where = f"at its end (byte {offset}): the last UTF-8 sequence is cut short"
            self.broken = Broken("wire.utf8", f"the stream is not UTF-8 {where}")
            self._utf8 = None


_RELEASED_AT = frozenset({"wire.too-large", "wire.endless"})
_KEPT_EVENTS = 100
_KEPT_BYTES = 64 * 1024


def release_cut_response(result: RunResult, broken: Broken) -> None:
    """A response cut at a size or time bound is graded; then only its first events are kept
    (its findings say what happened), so that a session of many such responses stays small."""
    if broken.rule not in _RELEASED_AT:
        return
    del result.events[_KEPT_EVENTS:], result.times[_KEPT_EVENTS:]
    del result.sse_ids[_KEPT_EVENTS:]
    result.body = result.body[:_KEPT_BYTES]
    result.agent_state = AgentState()
