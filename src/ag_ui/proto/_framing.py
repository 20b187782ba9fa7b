"""Length-prefixed framing of the binary transport: 4-byte big-endian length, then one message.

``FrameDecoder`` is sans-IO: feed it bytes as they arrive, get events back. It never buffers more
than one frame (at most ``4 + max_frame_size`` bytes): an oversized length prefix is rejected as
soon as its 4 bytes arrive, and the frame's bytes are then discarded as they stream past.
"""

from __future__ import annotations

import struct
from typing import Optional, Union

from ag_ui.core.errors import (
    EncodingError,
    FrameTooLargeError,
    MalformedFrameError,
    TruncatedFrameError,
    UnknownEventArmError,
)
from ag_ui.core.events import BaseEvent, Event
from ag_ui.proto import _fast
from ag_ui.proto._codec import decode_general, encode_general
from ag_ui.proto._snapshot import encode_messages_snapshot

__all__ = ["DEFAULT_MAX_FRAME_SIZE", "FrameDecoder", "encode_frame"]

DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024
"""Largest message (excluding the 4-byte prefix) a ``FrameDecoder`` accepts by default."""

_PREFIX = struct.Struct(">I")
_MAX_LENGTH = 2**32 - 1
Bytes = Union[bytes, bytearray, memoryview]


encode_flat_frame = _fast.encode_flat
"""``encode_flat_frame(event, True)``: the frame of a flat event, None for anything else (a
dict, an event of another shape); what ``encode_frame`` tries first.
``EventEncoder.encode_binary`` calls it directly, one Python call less per event."""


def encode_frame(event: BaseEvent) -> bytes:
    """One frame: the 4-byte big-endian length of the message, then the message.

    >>> from ag_ui.core import TextMessageContentEvent
    >>> encode_frame(TextMessageContentEvent(message_id="m", delta="hi")).hex()
    '0000000d120b0a02080112016d1a026869'
    """
    frame = _fast.encode_flat(event, True)
    if frame is None:
        frame = encode_messages_snapshot(event, True)
    if frame is not None:
        return frame
    message = encode_general(event)
    if len(message) > _MAX_LENGTH:
        raise EncodingError(f"a {len(message)}-byte message does not fit a 4-byte length prefix")
    return _PREFIX.pack(len(message)) + message


class FrameDecoder:
    """Sans-IO decoder of a protobuf frame stream.

    ``feed(data)`` returns the events completed by ``data``; ``close()`` at end of stream raises
    ``TruncatedFrameError`` if a frame was cut off. A bad frame raises (``MalformedFrameError``,
    ``UnknownEventArmError``, ``FrameTooLargeError``, each carrying ``frame_index``) after
    consuming only that frame: events decoded before it in the same call are kept and returned
    by the next ``feed`` (``feed(b"")`` continues with the bytes already received). With
    ``skip_unknown=True`` frames from a newer protocol are dropped and counted in
    ``skipped_unknown`` instead of raising.

    >>> decoder = FrameDecoder()
    >>> frame = bytes.fromhex("0000000d120b0a02080112016d1a026869")
    >>> [event.delta for event in decoder.feed(frame[:5]) + decoder.feed(frame[5:])]
    ['hi']
    >>> decoder.close()
    []
    """

    def __init__(
        self, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE, *, skip_unknown: bool = False
    ) -> None:
        if not 0 < max_frame_size <= _MAX_LENGTH:
            raise ValueError(f"max_frame_size must be in 1..{_MAX_LENGTH}, got {max_frame_size}")
        self.max_frame_size = max_frame_size
        self.skip_unknown = skip_unknown
        self.skipped_unknown = 0
        self.frames_read = 0
        """Frames consumed so far; also the index of the next frame."""
        self._buffer = bytearray()
        self._pending: list[Event] = []
        self._discard = 0  # bytes of an oversized frame still to drop
        self._discard_frame: tuple[int, int] = (0, 0)  # (frame index, declared length)

    def feed(self, data: Bytes) -> list[Event]:
        """Decode every frame completed by ``data``; keeps a trailing partial frame."""
        events, self._pending = self._pending, []
        if self._discard:
            dropped = min(self._discard, len(data))
            self._discard -= dropped
            data = data[dropped:]
        buffer = self._buffer
        if buffer:
            buffer += data
            if len(buffer) < 4:
                return events
            (length,) = _PREFIX.unpack_from(buffer)
            if length <= self.max_frame_size and len(buffer) < 4 + length:
                return events  # still waiting for the first frame: no copy
            work = bytes(buffer)
            buffer.clear()
        else:
            work = data if type(data) is bytes else bytes(data)
        offset, size, limit, index = 0, len(work), self.max_frame_size, self.frames_read
        unpack, flat, append = _PREFIX.unpack_from, _fast.decode_flat, events.append
        try:
            while size - offset >= 4:
                (length,) = unpack(work, offset)
                end = offset + 4 + length
                if length > limit:
                    index += 1
                    if end > size:  # drop the rest of it as it arrives, without keeping it
                        self._discard, self._discard_frame = end - size, (index - 1, length)
                    offset = min(end, size)
                    raise FrameTooLargeError(length, limit, frame_index=index - 1)
                if end > size:
                    break
                start, offset = offset + 4, end
                index += 1
                # The flat-event fast path first; everything else through the general decoder.
                event = flat(work, start, end)
                if event is None:
                    event = self._decode(work[start:end], index - 1)
                    if event is None:
                        continue
                append(event)  # type: ignore[arg-type]
        except Exception:
            self._pending = events
            raise
        finally:
            self.frames_read = index
            if offset < size:
                buffer += work[offset:]
        return events

    def _decode(self, frame: bytes, index: int) -> Optional[Event]:
        """The general decoder (the fast path declined the frame), with the frame index put on
        its errors."""
        try:
            return decode_general(frame)
        except UnknownEventArmError as exc:
            if not self.skip_unknown:
                raise UnknownEventArmError(exc.field_numbers, frame_index=index) from None
            self.skipped_unknown += 1
            return None
        except MalformedFrameError as exc:
            raise MalformedFrameError(
                exc.reason, field_path=exc.field_path, problems=exc.problems, frame_index=index
            ) from None

    def close(self) -> list[Event]:
        """End of stream: returns events still pending, raises if a frame was cut off."""
        events, self._pending = self._pending, []
        if self._discard:
            index, length = self._discard_frame
            raise TruncatedFrameError(length - self._discard, length, frame_index=index)
        if self._buffer:
            received = len(self._buffer)
            expected = _PREFIX.unpack_from(self._buffer)[0] if received >= 4 else None
            self._buffer.clear()
            raise TruncatedFrameError(
                received - 4 if expected is not None else received,
                expected,
                frame_index=self.frames_read,
            )
        return events
