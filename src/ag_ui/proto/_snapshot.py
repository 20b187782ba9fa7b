"""The compiled fast path of MESSAGES_SNAPSHOT: the envelope written here, its messages by
``_speedups.encode_messages`` (``_c/messages.c``) from the message models themselves.

The general path dumps every message to its wire dict (pydantic) and fills the generated
classes field by field: a 30-message snapshot cost 2.2x the instructions of its SSE frame
(benchmarks/README.md, Protobuf). The compiled writer takes the plain shape only (string
content, no extras, the exact message, tool-call and function classes, JSON the Struct writer
takes); anything else, and every event without the compiled module (``AG_UI_PURE_PYTHON=1``),
returns None and takes the general path, which gives the same bytes and the precise errors.
"""

from __future__ import annotations

from typing import Any, Optional

from ag_ui.core._wire import MAX_SAFE_INTEGER
from ag_ui.core.events import EventType, MessagesSnapshotEvent
from ag_ui.core.types import (
    AssistantMessage,
    DeveloperMessage,
    FunctionCall,
    ReasoningMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from ag_ui.proto._accelerator import speedups
from ag_ui.proto._generated import events_pb2
from ag_ui.proto._varint import write_varint

__all__ = ["encode_messages_snapshot"]

_ARM = events_pb2.Event.DESCRIPTOR.fields_by_name["messages_snapshot"]
_ARM_TAG = bytes([_ARM.number << 3 | 2])  # one byte: arm numbers are below 16
_BASE_TYPE = b"\x08" + bytes([events_pb2.EventType.Value("MESSAGES_SNAPSHOT")])
_SNAPSHOT = EventType.MESSAGES_SNAPSHOT

if speedups is not None:
    # Not the activity message: its content is a Struct, written by the general path.
    speedups.register_messages(
        (
            DeveloperMessage,
            SystemMessage,
            AssistantMessage,
            UserMessage,
            ToolMessage,
            ReasoningMessage,
        ),
        ToolCall,
        FunctionCall,
    )


def encode_messages_snapshot(event: Any, framed: bool = False) -> Optional[bytes]:
    """The ``ag_ui.Event`` bytes of a MESSAGES_SNAPSHOT of plain messages (with the 4-byte
    length prefix when ``framed``); None for any other event or shape (the general path)."""
    if speedups is None or type(event) is not MessagesSnapshotEvent:
        return None
    stored = event.__dict__  # as given, like the other fast paths (see _codec.encode_event)
    if (
        stored.get("type") is not _SNAPSHOT
        or stored.get("raw_event") is not None
        or stored.get("metadata") is not None
    ):
        return None
    messages = speedups.encode_messages(stored.get("messages"))
    if messages is None:
        return None
    base = _BASE_TYPE
    timestamp = stored.get("timestamp")
    if timestamp is not None:
        if type(timestamp) is not int or not -MAX_SAFE_INTEGER <= timestamp <= MAX_SAFE_INTEGER:
            return None
        base += b"\x10" + write_varint(timestamp & 0xFFFFFFFFFFFFFFFF)
    inner = b"".join((b"\x0a", bytes([len(base)]), base, messages))
    message = b"".join((_ARM_TAG, write_varint(len(inner)), inner))
    if not framed:
        return message
    if len(message) > 0xFFFFFFFF:
        return None  # the general path raises the EncodingError
    return len(message).to_bytes(4, "big") + message
