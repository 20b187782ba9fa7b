"""Incremental Server-Sent Events decoder (WHATWG "event stream" rules), sans-IO.

``SSEDecoder.feed(bytes)`` returns the messages completed by those bytes and keeps only the
unfinished tail, so memory is bounded by the largest single event (``max_event_size``), never by
the length of the stream.

>>> decoder = SSEDecoder()
>>> decoder.feed(b'data: {"a":1}\\r\\n\\r\\n: keepalive\\n\\nid: 7\\ndata: x\\ndata: y\\n')
[SSEMessage(data='{"a":1}', event='message', id=None, retry=None)]
>>> decoder.close()
[SSEMessage(data='x\\ny', event='message', id='7', retry=None)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional, TypeVar

from ag_ui.core.errors import FrameTooLargeError

__all__ = ["DEFAULT_MAX_EVENT_SIZE", "SSEDecoder", "SSEMessage"]

DEFAULT_MAX_EVENT_SIZE = 10 * 1024 * 1024
"""10 MiB, the same cap as the TypeScript client's SSE buffer."""

_M = TypeVar("_M")
_BOM = b"\xef\xbb\xbf"
_new = object.__new__
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True)
class SSEMessage:
    """One dispatched SSE message: joined ``data`` lines, the ``event`` name (default
    ``"message"``), the last event ``id`` seen so far and this message's ``retry`` (ms), if any.
    """

    data: str
    event: str = "message"
    id: Optional[str] = None
    retry: Optional[int] = None


class SSEDecoder:
    """Turns a byte stream into ``SSEMessage`` objects, one ``feed`` call at a time.

    Follows the WHATWG rules: LF, CR and CRLF line endings (a CRLF split across two feeds counts
    once), ``:`` comments ignored, ``data`` lines joined with ``\\n``, ``id`` sticky across messages
    (ignored when it contains NUL), ``retry`` only when all digits, unknown fields ignored, one
    leading UTF-8 BOM skipped. Invalid UTF-8 becomes U+FFFD as the standard says.

    One deliberate leniency, shared with the TypeScript client: ``close()`` dispatches a final
    message that has data but lacks its terminating blank line, rather than dropping it.

    ``max_event_size`` bounds the bytes of one message (its data plus any unfinished line);
    exceeding it raises ``FrameTooLargeError`` with the zero-based message index.
    """

    def __init__(self, *, max_event_size: int = DEFAULT_MAX_EVENT_SIZE) -> None:
        self.max_event_size = max_event_size
        self.last_event_id: Optional[str] = None
        self.reconnection_time: Optional[int] = None  # the last valid ``retry``, in ms
        self.messages_dispatched = 0
        self.comments_seen = 0
        self._tail: list[bytes] = []  # pieces of the unfinished last line, joined lazily
        self._tail_size = 0
        self._bom_checked = False
        self._skip_lf = False  # the previous feed ended in CR; a leading LF completes that CRLF
        self._data: list[bytes] = []
        self._data_size = 0
        self._event_name: Optional[str] = None
        self._retry: Optional[int] = None

    def feed(self, chunk: bytes) -> list[SSEMessage]:
        """Consume ``chunk`` and return every message it completed (possibly none)."""
        return self._feed(chunk, self._dispatch)

    def feed_payloads(self, chunk: bytes) -> list[tuple[bytes, Optional[str]]]:
        """Like ``feed``, but each completed message as ``(data, id)`` with the data still
        UTF-8 bytes (not decoded): for consumers that parse JSON from bytes themselves. The
        ``event`` name and ``retry`` are not reported (``reconnection_time`` still follows).
        """
        return self._feed(chunk, self._payload)

    def _feed(self, chunk: bytes, dispatch: Callable[[], _M]) -> list[_M]:
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if self._bom_checked and b"\n" not in chunk and b"\r" not in chunk:
            # Mid-line: keep the piece without re-copying the tail (a huge event stays O(n)).
            self._tail.append(chunk)
            self._tail_size += len(chunk)
            if self._tail_size + self._data_size > self.max_event_size:
                self._too_large(self._tail_size + self._data_size)
            return []
        if self._tail:
            self._tail.append(chunk)
            buffer = b"".join(self._tail)
        else:
            buffer = chunk
        if not self._bom_checked:
            if len(buffer) < len(_BOM) and _BOM.startswith(buffer):
                self._tail, self._tail_size = [buffer], len(buffer)
                return []
            self._bom_checked = True
            if buffer.startswith(_BOM):
                buffer = buffer[len(_BOM) :]
        if b"\r" in buffer:
            if buffer.endswith(b"\r"):
                self._skip_lf = True
            lines = _LINE_BREAK.split(buffer)
        else:
            lines = buffer.split(b"\n")
        last = lines.pop()
        self._tail, self._tail_size = ([last], len(last)) if last else ([], 0)
        out: list[_M] = []
        limit = self.max_event_size
        for line in lines:
            # The common line of an AG-UI stream, ``data: <json>``, is handled inline (this loop
            # runs once per line of the stream); every other field goes through ``_field``.
            if line[:6] == b"data: ":
                self._data.append(line[6:])
                self._data_size += len(line) - 5
                if self._data_size > limit:
                    self._too_large(self._data_size)
            elif line:
                self._field(line)
            elif self._data:
                out.append(dispatch())
            else:  # a blank line with no data dispatches nothing, and forgets event and retry
                self._event_name = self._retry = None
        if self._tail_size + self._data_size > limit:
            self._too_large(self._tail_size + self._data_size)
        return out

    def close(self) -> list[SSEMessage]:
        """End of stream: return the final message if one was left without its blank line."""
        return self._close(self._dispatch)

    def close_payloads(self) -> list[tuple[bytes, Optional[str]]]:
        """``close`` for ``feed_payloads``."""
        return self._close(self._payload)

    def _close(self, dispatch: Callable[[], _M]) -> list[_M]:
        if self._tail:
            self._field(b"".join(self._tail))
            self._tail, self._tail_size = [], 0
        if not self._data:
            self._event_name = self._retry = None
            return []
        return [dispatch()]

    @property
    def buffered_bytes(self) -> int:
        """Bytes held for the message in progress (what ``max_event_size`` bounds)."""
        return self._tail_size + self._data_size

    def _field(self, line: bytes) -> None:
        colon = line.find(b":")
        if colon == 0:
            self.comments_seen += 1
            return
        if colon < 0:
            name, value = line, b""
        else:
            name = line[:colon]
            value = line[colon + 2 :] if line[colon + 1 : colon + 2] == b" " else line[colon + 1 :]
        if name == b"data":
            self._data.append(value)
            self._data_size += len(value) + 1
            if self._data_size > self.max_event_size:
                self._too_large(self._data_size)
        elif name == b"event":
            self._event_name = value.decode("utf-8", "replace")
        elif name == b"id":
            if b"\0" not in value:
                self.last_event_id = value.decode("utf-8", "replace")
        elif name == b"retry" and value.isdigit():
            self._retry = self.reconnection_time = int(value)

    def _dispatch(self) -> SSEMessage:
        """The message the buffered data lines make (there is at least one)."""
        data, event_name, retry = self._data, self._event_name, self._retry
        self._data, self._data_size, self._event_name, self._retry = [], 0, None, None
        self.messages_dispatched += 1
        text = (data[0] if len(data) == 1 else b"\n".join(data)).decode("utf-8", "replace")
        # Built field by field: the frozen dataclass's __init__ (object.__setattr__ per field)
        # was half the cost of a small message.
        message: SSEMessage = _new(SSEMessage)
        fields = message.__dict__
        fields["data"] = text
        fields["event"] = event_name or "message"
        fields["id"] = self.last_event_id
        fields["retry"] = retry
        return message

    def _payload(self) -> tuple[bytes, Optional[str]]:
        """The buffered data lines as undecoded ``(data, id)``."""
        data = self._data
        self._data, self._data_size, self._event_name, self._retry = [], 0, None, None
        self.messages_dispatched += 1
        return (data[0] if len(data) == 1 else b"\n".join(data)), self.last_event_id

    def _too_large(self, size: int) -> None:
        raise FrameTooLargeError(size, self.max_event_size, frame_index=self.messages_dispatched)
