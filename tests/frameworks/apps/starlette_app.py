"""A plain Starlette endpoint written the way framework integrations write theirs.

POST /agent (AG-UI), GET /health. It imports ``ag_ui.core`` and ``ag_ui.encoder`` only (what
``ag-ui-protocol`` provides), declares ``PROTOCOL_VERSION`` in ``RUN_STARTED`` as pydantic-ai,
ADK, Strands, LlamaIndex and CrewAI do, and answers every request with one text message. Served
from a framework venv, so the same file runs on this SDK and on the official package.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from _serve import health, serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from ag_ui.core import (
    PROTOCOL_VERSION,
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder


async def agent(request: Request) -> StreamingResponse:
    run = RunAgentInput.model_validate_json(await request.body())
    encoder = EventEncoder(accept=request.headers.get("accept"))
    ids = {"thread_id": run.thread_id, "run_id": run.run_id}
    message_id = f"{run.run_id}-reply"

    async def events() -> AsyncIterator[str]:
        yield encoder.encode(
            RunStartedEvent(type=EventType.RUN_STARTED, **ids, protocol_version=PROTOCOL_VERSION)
        )
        yield encoder.encode(
            TextMessageStartEvent(
                type=EventType.TEXT_MESSAGE_START, message_id=message_id, role="assistant"
            )
        )
        yield encoder.encode(
            TextMessageContentEvent(
                type=EventType.TEXT_MESSAGE_CONTENT, message_id=message_id, delta="Hello!"
            )
        )
        yield encoder.encode(
            TextMessageEndEvent(type=EventType.TEXT_MESSAGE_END, message_id=message_id)
        )
        yield encoder.encode(RunFinishedEvent(type=EventType.RUN_FINISHED, **ids))

    return StreamingResponse(events(), media_type=encoder.get_content_type())


app = Starlette(
    routes=[Route("/agent", agent, methods=["POST"]), Route("/health", health)],
)

if __name__ == "__main__":
    serve(app)
