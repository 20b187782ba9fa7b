"""Build a small run, encode it as SSE, decode it back, and show both ends.

Run: ``.venv/bin/python examples/roundtrip.py``
"""

from __future__ import annotations

from ag_ui.core import (
    PROTOCOL_VERSION,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    parse_event,
)
from ag_ui.encoder import EventEncoder


def main() -> None:
    events = [
        RunStartedEvent(thread_id="thread-1", run_id="run-1", protocol_version=PROTOCOL_VERSION),
        StateSnapshotEvent(snapshot={"city": None, "steps": 0}),
        TextMessageStartEvent(message_id="msg-1"),
        TextMessageContentEvent(message_id="msg-1", delta="Hello from "),
        TextMessageContentEvent(message_id="msg-1", delta="AG-UI ✓"),
        TextMessageEndEvent(message_id="msg-1"),
        StateDeltaEvent(delta=[{"op": "replace", "path": "/city", "value": "Zürich"}]),
        RunFinishedEvent(thread_id="thread-1", run_id="run-1", result={"ok": True}),
    ]
    encoder = EventEncoder(accept="text/event-stream")
    wire = "".join(encoder.encode(event) for event in events)
    print(f"--- {encoder.get_content_type()} ({len(wire.encode())} bytes) ---")
    print(wire, end="")
    decoded = [parse_event(frame[len("data: ") :]) for frame in wire.split("\n\n") if frame]
    assert decoded == events
    text = "".join(e.delta for e in decoded if isinstance(e, TextMessageContentEvent))
    print(f"--- decoded {len(decoded)} events back; assistant said: {text!r} ---")


if __name__ == "__main__":
    main()
