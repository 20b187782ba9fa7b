"""The protobuf transport end to end: Accept negotiation, frames decoded into the same
conversation as SSE, unknown event kinds skipped, truncated streams refused."""

from __future__ import annotations

import io
import json
import re
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ag_ui.cli.run import run_client
from ag_ui.client import UnknownEventWarning
from ag_ui.core import parse_event
from ag_ui.core.errors import TruncatedFrameError
from ag_ui.encoder import AGUI_MEDIA_TYPE, EventEncoder
from tests.client.client_helpers import LiveServer, Recorder, asgi_agent

pytestmark = pytest.mark.anyio

SCENARIO: list[dict[str, Any]] = [
    {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
    {"type": "STATE_SNAPSHOT", "snapshot": {"n": 0, "tags": []}},
    {"type": "REASONING_START", "messageId": "rs"},
    {"type": "REASONING_MESSAGE_START", "messageId": "think", "role": "reasoning"},
    {"type": "REASONING_MESSAGE_CONTENT", "messageId": "think", "delta": "hmm"},
    {"type": "REASONING_MESSAGE_END", "messageId": "think"},
    {"type": "REASONING_END", "messageId": "rs"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Grüße "},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "🚀"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", "parentMessageId": "m1"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"x": 1}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "TOOL_CALL_RESULT", "messageId": "tr", "toolCallId": "c1", "content": "ok"},
    {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/tags/-", "value": "a"}]},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": "chunk"},
    {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "result": {"done": True}},
]

UNKNOWN_ARM_FRAME = struct.pack(">I", 5) + b"\x9a\x06\x02\x08\x01"  # field 99: a future event


def negotiating_app(events: list[dict[str, Any]], *, recorder: Recorder | None = None) -> Starlette:
    """Answers in whatever the Accept header negotiates, like a real server would."""

    async def endpoint(request: Request) -> Response:
        if recorder is not None:
            await recorder.record(request)
        encoder = EventEncoder(accept=request.headers.get("accept"))
        body = b"".join(encoder.encode_binary(parse_event(e)) for e in events)
        return Response(body, media_type=encoder.get_binary_content_type())

    return Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])


def wire(agent: Any) -> list[dict[str, Any]]:
    return [m.model_dump(by_alias=True, mode="json") for m in agent.messages]


async def test_protobuf_run_ends_with_the_same_conversation_as_sse() -> None:
    recorder = Recorder()
    by_sse = asgi_agent(negotiating_app(SCENARIO, recorder=recorder), thread_id="t1")
    by_proto = asgi_agent(negotiating_app(SCENARIO, recorder=recorder), thread_id="t1", proto=True)
    sse_result = await by_sse.run_agent(run_id="r1")
    proto_result = await by_proto.run_agent(run_id="r1")
    assert [h["accept"] for h in recorder.headers] == [
        "text/event-stream",
        f"{AGUI_MEDIA_TYPE}, text/event-stream;q=0.5",
    ]
    assert wire(by_proto) == wire(by_sse)
    assert [m["id"] for m in wire(by_proto)] == ["think", "m1", "tr", "m2"]
    assert by_proto.state == by_sse.state == {"n": 0, "tags": ["a"]}
    assert proto_result.result == sse_result.result == {"done": True}


def integration_style_app(events: list[dict[str, Any]]) -> Starlette:
    """What every framework endpoint does: ``encode()`` bodies under ``get_content_type()``."""

    async def endpoint(request: Request) -> Response:
        encoder = EventEncoder(accept=request.headers.get("accept"))
        body = "".join(encoder.encode(parse_event(e)) for e in events)
        return Response(body, media_type=encoder.get_content_type())

    return Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])


async def test_an_integration_writing_encode_under_get_content_type_is_read_by_a_proto_client() -> (
    None
):
    # Before: get_content_type() followed the negotiation, so the protobuf-asking client got
    # "application/vnd.ag-ui.event+proto" over SSE text and read "data" as a frame length.
    by_proto = asgi_agent(integration_style_app(SCENARIO), thread_id="t1", proto=True)
    by_sse = asgi_agent(negotiating_app(SCENARIO), thread_id="t1")
    await by_proto.run_agent(run_id="r1")
    await by_sse.run_agent(run_id="r1")
    assert wire(by_proto) == wire(by_sse)
    assert by_proto.state == {"n": 0, "tags": ["a"]}


async def test_an_unknown_protobuf_event_kind_is_skipped_with_a_warning() -> None:
    frames_app = _raw_proto_app(_frames(SCENARIO[:8]) + UNKNOWN_ARM_FRAME + _frames(SCENARIO[8:]))
    agent = asgi_agent(frames_app, proto=True)
    with pytest.warns(UnknownEventWarning, match="skipped frame 8"):
        await agent.run_agent()
    assert [m.id for m in agent.messages] == ["think", "m1", "tr", "m2"]


async def test_a_stream_cut_inside_a_frame_is_a_truncated_frame_error() -> None:
    body = _frames(SCENARIO)
    agent = asgi_agent(_raw_proto_app(body[:-3]), proto=True)
    with pytest.raises(TruncatedFrameError):
        await agent.run_agent()


def _frames(events: list[dict[str, Any]]) -> bytes:
    encoder = EventEncoder(accept=AGUI_MEDIA_TYPE)
    return b"".join(encoder.encode_binary(parse_event(e)) for e in events)


def _raw_proto_app(body: bytes) -> Starlette:
    async def endpoint(request: Request) -> Response:
        return Response(body, media_type=AGUI_MEDIA_TYPE)

    return Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])


async def test_frames_from_the_typescript_encoder_give_the_same_conversation() -> None:
    interop = Path(__file__).resolve().parents[1] / "interop"
    frames = subprocess.run(
        ["node", str(interop / "ts_proto_frames.mjs")],
        input=json.dumps(SCENARIO).encode(),
        capture_output=True,
        check=True,
        cwd=interop,
        timeout=60,
    ).stdout
    by_ts_frames = asgi_agent(_raw_proto_app(frames), proto=True)
    by_sse = asgi_agent(negotiating_app(SCENARIO))
    await by_ts_frames.run_agent()
    await by_sse.run_agent()
    assert wire(by_ts_frames) == wire(by_sse)
    assert by_ts_frames.state == by_sse.state == {"n": 0, "tags": ["a"]}


async def test_agui_run_proto_over_loopback(live_server: LiveServer) -> None:
    async def source(request: Request) -> Any:
        encoder = EventEncoder(accept=request.headers.get("accept"))
        for event in SCENARIO:
            yield encoder.encode_binary(parse_event(event))

    url = live_server.add("proto_run", source, media_type=AGUI_MEDIA_TYPE)
    out = io.StringIO()
    code = await run_client(url, message="hi", output="json", proto=True, stream=out)
    report = json.loads(out.getvalue())
    assert code == 0, report
    assert report["state"] == {"n": 0, "tags": ["a"]}
    ids = [m["id"] for m in report["messages"]]
    assert re.fullmatch(r"user-[0-9a-f]{32}", ids[0]), ids  # a new id per message (agui run)
    assert ids[1:] == ["think", "m1", "tr", "m2"]
    assert report["events"]["TEXT_MESSAGE_CHUNK"] == 1
