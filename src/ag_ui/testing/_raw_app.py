"""A bare ASGI app that streams a ``ScriptedAgent``'s events exactly, with no server toolkit.

For testing clients and graders against servers that get things wrong: nothing is added,
dropped or checked. It answers ``POST <path>`` with a valid ``RunAgentInput`` (400 otherwise),
negotiates SSE or protobuf from ``Accept``, serves ``GET <path>/capabilities`` when the script
has capabilities, and stops when the client leaves.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, Optional, Protocol

import anyio

from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.decoding import parse_run_agent_input
from ag_ui.core.errors import AGUIValidationError
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE, EventEncoder


class Script(Protocol):
    """What the raw app needs from a ``ScriptedAgent``."""

    capabilities: Optional[AgentCapabilities]

    def stream(self, run_input: RunAgentInput) -> AsyncIterator[Any]: ...


__all__ = ["RawScriptApp"]


async def _json(send: Any, status: int, body: Any) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": data, "more_body": False})


class RawScriptApp:
    def __init__(self, script: Script, path: str) -> None:
        self.script = script
        self.path = "/" + path.strip("/")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        path = scope["path"].rstrip("/") or "/"
        if path == self.path + "/capabilities" and self.script.capabilities is not None:
            document = self.script.capabilities.model_dump(mode="json", by_alias=True)
            await _json(send, 200, document)
            return
        if path != self.path:
            await _json(send, 404, {"error": {"code": "not_found", "message": "no such route"}})
            return
        if scope["method"] != "POST":
            await _json(send, 405, {"error": {"code": "method_not_allowed", "message": "POST"}})
            return
        body = b""
        while True:
            received = await receive()
            if received["type"] == "http.disconnect":
                return
            body += received.get("body", b"")
            if not received.get("more_body", False):
                break
        try:
            run_input = parse_run_agent_input(body)
        except AGUIValidationError as exc:
            await _json(send, 400, {"error": {"code": "invalid_input", "message": str(exc)}})
            return
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        encoder = EventEncoder(accept=headers.get(b"accept", b"").decode("latin-1") or None)
        proto = encoder.is_protobuf
        media = AGUI_MEDIA_TYPE if proto else SSE_MEDIA_TYPE
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", media.encode()), (b"cache-control", b"no-cache")],
            }
        )
        encode = encoder.encode_binary if proto else encoder.encode_sse
        async with anyio.create_task_group() as tasks:

            async def watch() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                tasks.cancel_scope.cancel()

            tasks.start_soon(watch)
            try:
                async for event in self.script.stream(run_input):
                    await send(
                        {"type": "http.response.body", "body": encode(event), "more_body": True}
                    )
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            except OSError:
                pass  # the client left
            tasks.cancel_scope.cancel()
