"""Clients for the deployment tests: a light SSE reader that checks one stream's positions and
text (cheap enough for a thousand at once), and ``HttpAgent`` runs that resume."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import httpx

from ag_ui.client import HttpAgent, Reconnect, ReconnectPolicy
from ag_ui.core.errors import HTTPStatusError
from ag_ui.core.events import EventType
from tests.deploy.counting import piece

__all__ = ["AgentRun", "StreamResult", "body", "expected_text", "read_stream", "run_agent"]

# Reconnects that outlast a worker's restart (a few seconds) but give up on a dead deployment.
PATIENT = ReconnectPolicy(max_attempts=8, initial_delay=0.05, max_delay=1.0)


def expected_text(pieces: int, size: int = 0) -> str:
    return "".join(piece(i, size) for i in range(pieces))


def body(run_id: str, pieces: int, delay: float, size: int = 0) -> dict[str, Any]:
    orders = {"id": f"u-{run_id}", "role": "user", "content": f"{pieces} {delay} {size}"}
    return {
        "threadId": f"t-{run_id}",
        "runId": run_id,
        "messages": [orders],
        "tools": [],
        "context": [],
    }


@dataclass
class StreamResult:
    """One stream as read: the ``id:`` positions, the text of its deltas, its event types."""

    positions: list[int] = field(default_factory=list)
    text: str = ""
    types: list[str] = field(default_factory=list)
    first_event_after: Optional[float] = None
    headers: dict[str, str] = field(default_factory=dict)
    http_version: str = ""

    def check(self, pieces: int, size: int = 0) -> None:
        """Nothing lost, repeated or reordered, and the run ended well."""
        assert self.positions == list(range(1, len(self.positions) + 1)), self.positions[:20]
        assert self.text == expected_text(pieces, size)
        assert self.types[0] == "RUN_STARTED", self.types
        assert self.types[-1] == "RUN_FINISHED", self.types


async def read_stream(client: httpx.AsyncClient, url: str, request: dict[str, Any]) -> StreamResult:
    """POST one run and read its SSE stream to the end (no resume: a cut fails the check)."""
    result = StreamResult()
    began = time.monotonic()
    headers = {"accept": "text/event-stream"}
    async with client.stream("POST", url, json=request, headers=headers) as response:
        response.raise_for_status()
        result.headers = dict(response.headers)
        result.http_version = response.http_version
        async for line in response.aiter_lines():
            if line.startswith("id:"):
                result.positions.append(int(line[3:].strip().rsplit(":", 1)[1]))
            elif line.startswith("data:"):
                if result.first_event_after is None:
                    result.first_event_after = time.monotonic() - began
                event = json.loads(line[5:])
                result.types.append(event["type"])
                if event["type"] == "TEXT_MESSAGE_CONTENT":
                    result.text += event["delta"]
    return result


@dataclass
class AgentRun:
    """What an ``HttpAgent`` run got: its events' types, its text, how it ended."""

    types: list[EventType] = field(default_factory=list)
    text: str = ""
    error_code: Optional[str] = None
    ended_at: float = 0.0
    reconnects: int = 0
    refusals: int = 0
    """Of the reconnects, the times the run was refused before it started (503 + Retry-After)
    and sent again."""
    failure: Optional[BaseException] = None


async def run_agent(
    client: httpx.AsyncClient,
    url: str,
    run_id: str,
    pieces: int,
    delay: float,
    *,
    proto: bool = False,
) -> AgentRun:
    """One run through ``HttpAgent`` (resuming through the proxy when its stream is cut;
    ``proto``: protobuf frames)."""
    outcome = AgentRun()
    agent = HttpAgent(
        url, http_client=client, thread_id=f"t-{run_id}", reconnect=PATIENT, proto=proto
    )

    def on_event(params: Any) -> None:
        event = params.event
        outcome.types.append(event.type)
        if event.type == EventType.TEXT_MESSAGE_CONTENT:
            outcome.text += event.delta
        elif event.type == EventType.RUN_ERROR:
            outcome.error_code = event.code

    def on_reconnect(info: Reconnect) -> None:
        outcome.reconnects += 1
        if info.last_event_id is None and isinstance(info.error, HTTPStatusError):
            outcome.refusals += 1

    agent.subscribe(on_event=on_event)
    agent.on_reconnect = on_reconnect
    agent.add_message({"id": f"u-{run_id}", "role": "user", "content": f"{pieces} {delay} 0"})
    try:
        await agent.run_agent(run_id=run_id)
    except Exception as exc:  # a RUN_ERROR raises; the events above say which
        outcome.failure = exc
    outcome.ended_at = time.monotonic()
    return outcome
