"""Responses read from a run store: every stored event once, then the live tail.

SSE frames carry ``id: <resume key>:<position>``; protobuf frames carry no id, so the response
headers name the key (``AG-UI-Resume-Key``) and the position the stream starts after
(``AG-UI-Resume-After``): the n-th frame is position ``after + n``.

A reader that leaves (disconnect) stops reading; the run itself is not touched. If the store
fails while reading, the stream ends with a ``RUN_ERROR`` (not stored, so without an id) instead
of hanging.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Optional

import anyio
from starlette.types import Receive, Send

from ag_ui.core.events import BaseEvent, RunErrorEvent
from ag_ui.encoder import EventEncoder
from ag_ui.server._asgi import Writer, closing, watch_disconnect
from ag_ui.server._detached import RUN_EXPIRED_CODE, STORE_UNAVAILABLE_CODE
from ag_ui.server._outbox import Outbox
from ag_ui.store import HistoryTrimmedError, RunNotFoundError, RunStore, StoreUnavailableError

__all__ = [
    "HISTORY_TRIMMED_CODE",
    "RESUME_AFTER_HEADER",
    "RESUME_KEY_HEADER",
    "frame",
    "run_frames",
    "stream_response",
]

logger = logging.getLogger("ag_ui.server")

RESUME_KEY_HEADER = "ag-ui-resume-key"
RESUME_AFTER_HEADER = "ag-ui-resume-after"
HISTORY_TRIMMED_CODE = "history_trimmed"


def frame(encoder: EventEncoder, event: BaseEvent, key: Optional[str], position: int) -> bytes:
    """One frame; SSE frames get ``id: key:position`` when ``key`` is given."""
    if encoder.is_protobuf:
        return encoder.encode_binary(event)
    event_id = f"{key}:{position}" if key is not None else None
    return encoder.encode_sse(event, event_id=event_id)


async def run_frames(
    store: RunStore, key: str, after: int, encoder: EventEncoder
) -> AsyncIterator[bytes]:
    """The frames of run ``key`` after position ``after``, live until its terminal event."""
    try:
        async with closing(store.read_batches(key, after)) as batches:
            if encoder.is_protobuf:
                async for batch in batches:
                    yield b"".join([encoder.encode_binary(item.event) for item in batch])
            else:
                # The hot loop of every detached stream: the id prefix is encoded once (keys are
                # [A-Za-z0-9_-]: minted here or matched by the connect endpoint), each event is
                # serialized straight to JSON bytes (the encoder's fast path), and a batch of
                # stored events leaves as one chunk.
                prefix = b"id: " + key.encode() + b":"
                parts: list[bytes] = []
                async for batch in batches:
                    for item in batch:
                        event = item.event
                        parts += (
                            prefix,
                            str(item.position).encode(),
                            b"\ndata: ",
                            event.__pydantic_serializer__.to_json(event, by_alias=True),
                            b"\n\n",
                        )
                    yield b"".join(parts)
                    parts.clear()
    except StoreUnavailableError as exc:
        logger.error("run %s: the run store became unreachable while streaming: %s", key, exc)
        yield frame(encoder, _store_lost(), None, 0)
    except RunNotFoundError:
        yield frame(
            encoder,
            RunErrorEvent(
                message="The run expired or was evicted while it was being read.",
                code=RUN_EXPIRED_CODE,
            ),
            None,
            0,
        )
    except HistoryTrimmedError as exc:
        yield frame(encoder, RunErrorEvent(message=str(exc), code=HISTORY_TRIMMED_CODE), None, 0)


def _store_lost() -> RunErrorEvent:
    return RunErrorEvent(
        message="The run store became unreachable; the rest of the run is lost.",
        code=STORE_UNAVAILABLE_CODE,
    )


async def stream_response(
    receive: Receive,
    send: Send,
    frames: AsyncIterator[bytes],
    *,
    encoder: EventEncoder,
    keepalive: Optional[float],
    headers: dict[str, str],
) -> None:
    """Send a 200 event-stream response made of ``frames``, with keepalives, until the frames
    end or the client leaves (which only stops the reading)."""
    raw_headers = [
        (b"content-type", encoder.get_content_type().encode("latin-1")),
        (b"cache-control", b"no-cache"),
        (b"x-accel-buffering", b"no"),
    ]
    raw_headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": 200, "headers": raw_headers})
    writer = Writer(send)
    outbox = Outbox()

    async def pump() -> None:
        try:
            async with closing(frames) as source:
                async for chunk in source:
                    await outbox.put(chunk)
        finally:
            outbox.close()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watch_disconnect, receive, writer, tasks.cancel_scope)
        tasks.start_soon(pump)
        comment = encoder.encode_keepalive()
        if keepalive is not None and comment:
            tasks.start_soon(writer.keep_alive, keepalive, comment)
        while (chunk := await outbox.take()) is not None:
            if not await writer.write(chunk):
                break
        tasks.cancel_scope.cancel()
    if not writer.disconnected:
        await writer.finish()
