"""Small helpers shared by the test kit's tests."""

from __future__ import annotations

from typing import Any


def run_body(**extra: Any) -> dict[str, Any]:
    """A minimal valid RunAgentInput body (thread "t1", run "r1")."""
    body: dict[str, Any] = {"threadId": "t1", "runId": "r1", "messages": []}
    body.update(extra)
    return body


def run(*inner: dict[str, Any], thread: str = "t", run_id: str = "r") -> list[dict[str, Any]]:
    """A whole scripted run: RUN_STARTED, the given events, RUN_FINISHED."""
    return [
        {"type": "RUN_STARTED", "threadId": thread, "runId": run_id},
        *inner,
        {"type": "RUN_FINISHED", "threadId": thread, "runId": run_id},
    ]


def text(message_id: str, *pieces: str) -> list[dict[str, Any]]:
    """TEXT_MESSAGE_START, one CONTENT per piece, END."""
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": p} for p in pieces),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]
