"""The AG-UI binary transport: events as protobuf messages in length-prefixed frames.

Media type ``application/vnd.ag-ui.event+proto``; each frame is a 4-byte big-endian length and
one ``ag_ui.Event`` message, with the field numbers of ``@ag-ui/proto`` 1.0 so both SDKs read
each other's bytes (PROTOCOL.md §4.3-4.5). Needs the ``proto`` extra::

    pip install 'ag-ui-sdk[proto]'

>>> from ag_ui.core import TextMessageContentEvent
>>> frame = encode_frame(TextMessageContentEvent(message_id="m", delta="hi"))
>>> FrameDecoder().feed(frame)[0].delta
'hi'
"""

from __future__ import annotations

try:
    import google.protobuf  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "ag_ui.proto needs the protobuf package: pip install 'ag-ui-sdk[proto]'"
    ) from exc

try:
    from ag_ui.proto._generated import events_pb2 as _events_pb2  # noqa: F401
except Exception as exc:  # protobuf's VersionError when the runtime predates the gencode
    raise ImportError(
        f"ag_ui.proto cannot load its generated code with this protobuf ({exc}); "
        "upgrade it: pip install -U 'ag-ui-sdk[proto]'"
    ) from exc

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.core._wire import AGUI_MEDIA_TYPE
from ag_ui.core.errors import (
    FrameTooLargeError,
    MalformedFrameError,
    TruncatedFrameError,
    UnknownEventArmError,
)
from ag_ui.proto._codec import decode_event, encode_event
from ag_ui.proto._framing import DEFAULT_MAX_FRAME_SIZE, FrameDecoder, encode_frame

__all__ = [
    "AGUI_MEDIA_TYPE",
    "DEFAULT_MAX_FRAME_SIZE",
    "FrameDecoder",
    "FrameTooLargeError",
    "MalformedFrameError",
    "TruncatedFrameError",
    "UnknownEventArmError",
    "decode_event",
    "encode_event",
    "encode_frame",
]
