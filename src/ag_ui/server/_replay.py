"""The frames of a stored run: every stored event once, then the live tail (what the response
of a detached run and of ``GET <path>/connect`` is made of, ``_response.pump``).

SSE frames carry ``id: <resume key>:<position>``; protobuf frames carry no id, so the response
headers name the key (``AG-UI-Resume-Key``) and the position the stream starts after
(``AG-UI-Resume-After``): the n-th frame is position ``after + n``.

A reader that leaves (disconnect) stops reading; the run itself is not touched. If the store
fails while reading, the stream ends with a ``RUN_ERROR`` (not stored, so without an id) instead
of hanging; so does a read of a run whose worker stopped (``RUN_ERROR`` ``run_abandoned``: its
heartbeat went stale, ``RunStore.heartbeat_interval``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Optional

from ag_ui.core._aiter import closing
from ag_ui.core._surrogates import wire_json
from ag_ui.core.decoding import parse_event
from ag_ui.core.errors import (
    HistoryTrimmedError,
    RunAbandonedError,
    RunNotFoundError,
    StoreUnavailableError,
)
from ag_ui.core.events import BaseEvent, EventType
from ag_ui.encoder import EventEncoder
from ag_ui.server._failures import (
    history_trimmed,
    run_abandoned,
    run_end_lost,
    run_expired_while_read,
    store_lost,
)
from ag_ui.server._store_writer import LiveBatch, LiveFeed
from ag_ui.store import RunStore, StoredEvent

__all__ = [
    "RESUME_AFTER_HEADER",
    "RESUME_KEY_HEADER",
    "BatchEncoder",
    "frame",
    "live_frames",
    "run_frames",
]

logger = logging.getLogger("ag_ui.server")

_TERMINAL = (EventType.RUN_FINISHED, EventType.RUN_ERROR)

RESUME_KEY_HEADER = "ag-ui-resume-key"
RESUME_AFTER_HEADER = "ag-ui-resume-after"


def frame(encoder: EventEncoder, event: BaseEvent, key: Optional[str], position: int) -> bytes:
    """One frame; SSE frames get ``id: key:position`` when ``key`` is given."""
    if encoder.is_protobuf:
        return encoder.encode_binary(event)
    event_id = f"{key}:{position}" if key is not None else None
    return encoder.encode_sse(event, event_id=event_id)


class BatchEncoder:
    """Encodes batches of stored events into one chunk: SSE frames with ``id: key:position``
    or protobuf frames. The hot loop of every detached stream: the id prefix is encoded once
    (keys are [A-Za-z0-9_-]: minted here or matched by the connect endpoint) and each event is
    serialized straight to JSON bytes (the encoder's fast path)."""

    def __init__(self, encoder: EventEncoder, key: str) -> None:
        self._encoder = encoder
        self._prefix = b"id: " + key.encode() + b":"
        self._frame = self._prefix + b"%d\ndata: %b\n\n"

    def live(self, batch: LiveBatch) -> bytes:
        """A batch from the run's writer: its wire JSON is framed as is (serialized once, for
        the store and this response alike); protobuf frames are made from the models."""
        if self._encoder.is_protobuf:
            events = batch.events
            if events is None:  # a writer not told to keep the models: rebuild them
                events = [parse_event(payload) for payload in batch.payloads]
            return b"".join([self._encoder.encode_binary(event) for event in events])
        frame = self._frame
        return b"".join([frame % item for item in enumerate(batch.payloads, batch.first)])

    def __call__(self, batch: list[StoredEvent]) -> bytes:
        if self._encoder.is_protobuf:
            return b"".join([self._encoder.encode_binary(item.event) for item in batch])
        prefix = self._prefix
        parts: list[bytes] = []
        for position, event in batch:
            parts += (
                prefix,
                str(position).encode(),
                b"\ndata: ",
                wire_json(event),
                b"\n\n",
            )
        return b"".join(parts)


async def live_frames(
    feed: LiveFeed, store: RunStore, key: str, encoder: EventEncoder
) -> AsyncIterator[bytes]:
    """The frames of a run this process is producing: from its writer's feed as they are
    stored; if the feed ends before the terminal event (overflow, shutdown), from the store
    after the last position sent. When the store failed under the writer, the stream ends at
    once with ``RUN_ERROR`` ``store_unavailable``."""
    encode = BatchEncoder(encoder, key)
    position = 0
    try:
        async with closing(feed.batches()) as batches:
            async for batch in batches:
                yield encode.live(batch)
                position = batch.last
                if batch.terminal:
                    return
    finally:
        feed.close()  # a reader that left takes nothing more from the writer
    if feed.store_failed:
        # The writer could not store the run's events: a read from the store now would only
        # wait for the same store to time out again. (The run's stored end says the same.)
        yield frame(encoder, store_lost("run"), None, 0)
        return
    async with closing(run_frames(store, key, position, encoder)) as rest:
        async for chunk in rest:
            yield chunk


async def _ends_at(store: RunStore, key: str, position: int) -> bool:
    """Whether the run's event at ``position`` is its terminal event (a reader resuming after
    the end reads nothing more)."""
    if position <= 0:
        return False
    async with closing(store.read(key, position - 1)) as stored:
        async for item in stored:
            return item.position == position and item.event.type in _TERMINAL
    return False


async def run_frames(
    store: RunStore, key: str, after: int, encoder: EventEncoder
) -> AsyncIterator[bytes]:
    """The frames of run ``key`` after position ``after``, live until its terminal event."""
    encode = BatchEncoder(encoder, key)
    ended = False
    last = after
    try:
        async with closing(store.read_batches(key, after)) as batches:
            async for batch in batches:
                yield encode(batch)
                ended = ended or any(item.event.type in _TERMINAL for item in batch)
                last = batch[-1].position if batch else last
        if not ended and not await _ends_at(store, key, last):
            # A finished run without its terminal event (stored by an older server, or by a
            # store of its own): the reader must not end as if the run had been complete.
            logger.error("run %s: the store holds it as finished without a terminal event", key)
            yield frame(encoder, run_end_lost(), None, 0)
    except StoreUnavailableError as exc:
        logger.error("run %s: the run store became unreachable while streaming: %s", key, exc)
        yield frame(encoder, store_lost("run"), None, 0)
    except RunAbandonedError:
        logger.error("run %s: the worker running it stopped (no heartbeat); ending the read", key)
        yield frame(encoder, run_abandoned(), None, 0)
    except RunNotFoundError:
        yield frame(encoder, run_expired_while_read(), None, 0)
    except HistoryTrimmedError as exc:
        yield frame(encoder, history_trimmed(exc), None, 0)
