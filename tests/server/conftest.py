"""Helpers for the server tests: request bodies (uvicorn: ``tests.support.servers``)."""

from __future__ import annotations

from typing import Any


def run_body(**extra: Any) -> dict[str, Any]:
    """A minimal valid RunAgentInput body (thread "t1", run "r1")."""
    body: dict[str, Any] = {"threadId": "t1", "runId": "r1", "messages": []}
    body.update(extra)
    return body


def user_body(text: str, **extra: Any) -> dict[str, Any]:
    """A RunAgentInput body with one user message."""
    return run_body(messages=[{"id": "u1", "role": "user", "content": text}], **extra)
