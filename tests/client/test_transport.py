"""HTTP behaviour and errors of HttpAgent: request shape, status, content type, decoding."""

from __future__ import annotations

import json
import warnings

import pytest

from ag_ui.client import UnknownEventWarning
from ag_ui.core import (
    ContentTypeError,
    DecodeError,
    HTTPStatusError,
    IncompleteStreamError,
    MalformedJSONError,
    RunError,
)
from tests.client.client_helpers import Recorder, asgi_agent, frames, run_frames, static_app

pytestmark = pytest.mark.anyio

STARTED = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}


async def test_request_is_camel_case_json_with_unset_fields_omitted_and_activity_stripped() -> None:
    recorder = Recorder()
    agent = asgi_agent(
        static_app(run_frames(), recorder=recorder),
        thread_id="t1",
        headers={"Authorization": "Bearer x", "Accept": "text/html"},
        initial_messages=[
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "a1", "role": "activity", "activityType": "plan", "content": {"s": 1}},
        ],
        initial_state={"count": 1},
    )
    await agent.run_agent(
        run_id="r1",
        tools=[{"name": "search", "description": "Search the web"}],
        context=[{"description": "tz", "value": "UTC"}],
        forwarded_props={"model": "x"},
    )
    assert recorder.bodies == [
        {
            "threadId": "t1",
            "runId": "r1",
            "protocolVersion": "1.1",
            "state": {"count": 1},
            "messages": [{"id": "u1", "role": "user", "content": "hi"}],
            "tools": [{"name": "search", "description": "Search the web"}],
            "context": [{"description": "tz", "value": "UTC"}],
            "forwardedProps": {"model": "x"},
        }
    ]
    headers = recorder.headers[0]
    assert headers["authorization"] == "Bearer x"
    assert headers["accept"] == "text/event-stream"
    assert headers["content-type"] == "application/json"


async def test_non_2xx_raises_http_status_error_with_parsed_json_body() -> None:
    app = static_app(b'{"detail": "no such agent"}', status=404, media_type="application/json")
    with pytest.raises(HTTPStatusError) as info:
        await asgi_agent(app).run_agent()
    assert (info.value.status, info.value.body) == (404, {"detail": "no such agent"})


async def test_non_2xx_with_text_body_keeps_the_text() -> None:
    app = static_app(b"upstream exploded", status=502, media_type="text/plain")
    with pytest.raises(HTTPStatusError) as info:
        await asgi_agent(app).run_agent()
    assert (info.value.status, info.value.body) == (502, "upstream exploded")


async def test_2xx_html_page_raises_content_type_error() -> None:
    app = static_app(b"<html><body>Please log in</body></html>", media_type="text/html")
    with pytest.raises(ContentTypeError) as info:
        await asgi_agent(app).run_agent()
    assert info.value.content_type == "text/html; charset=utf-8"
    assert info.value.snippet == "<html><body>Please log in</body></html>"


async def test_malformed_json_names_the_event_index() -> None:
    body = frames(STARTED) + b"data: {not json}\n\n" + frames(FINISHED)
    with pytest.raises(DecodeError) as info:
        await asgi_agent(static_app(body)).run_agent()
    assert info.value.frame_index == 1
    assert isinstance(info.value.__cause__, MalformedJSONError)


async def test_unknown_event_type_is_skipped_with_a_warning() -> None:
    body = frames(STARTED, {"type": "FROM_THE_FUTURE", "x": 1}, FINISHED)
    seen: list[str] = []
    with pytest.warns(UnknownEventWarning, match="FROM_THE_FUTURE"):
        result = await asgi_agent(static_app(body)).run_agent(
            subscriber={"on_event": lambda p: seen.append(p.event.type.value)}
        )
    assert seen == ["RUN_STARTED", "RUN_FINISHED"]
    assert result.outcome_type == "success"


async def test_stream_without_terminal_event_raises_incomplete_stream_error() -> None:
    body = frames(STARTED, {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})
    with pytest.raises(IncompleteStreamError) as info:
        await asgi_agent(static_app(body)).run_agent()
    assert info.value.events_received == 2
    assert "TEXT_MESSAGE_START" in str(info.value)


async def test_empty_stream_raises_incomplete_stream_error() -> None:
    with pytest.raises(IncompleteStreamError) as info:
        await asgi_agent(static_app(b": just a comment\n\n")).run_agent()
    assert info.value.events_received == 0


async def test_run_error_raises_run_error_after_subscribers_saw_it() -> None:
    body = frames(STARTED, {"type": "RUN_ERROR", "message": "model overloaded", "code": "busy"})
    seen: list[tuple[str, str | None]] = []

    def on_run_error_event(params: object) -> None:
        event = params.event  # type: ignore[attr-defined]
        seen.append((event.message, event.code))

    with pytest.raises(RunError) as info:
        await asgi_agent(static_app(body)).run_agent(
            subscriber={"on_run_error_event": on_run_error_event}
        )
    assert (info.value.code, info.value.message) == ("busy", "model overloaded")
    assert seen == [("model overloaded", "busy")]


async def test_event_stream_content_type_with_parameters_is_accepted() -> None:
    app = static_app(run_frames(), media_type="text/event-stream; charset=utf-8")
    result = await asgi_agent(app).run_agent()
    assert result.outcome_type == "success"


def test_warning_filter_sanity() -> None:
    # The unknown-event warning must be a UserWarning subclass so default filters show it.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("x", UnknownEventWarning, stacklevel=1)
    assert issubclass(caught[0].category, UserWarning)
    assert json.loads("1") == 1


async def test_a_gzip_encoded_stream_is_decompressed() -> None:
    import gzip

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    async def endpoint(request: Request) -> Response:
        body = gzip.compress(run_frames({"type": "CUSTOM", "name": "n", "value": 1}))
        return Response(body, media_type="text/event-stream", headers={"content-encoding": "gzip"})

    app = Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])
    seen: list[str] = []
    await asgi_agent(app).run_agent(
        subscriber={"on_custom_event": lambda p: seen.append(p.event.name)}
    )
    assert seen == ["n"]


async def test_an_in_memory_response_from_a_mock_transport_is_read() -> None:
    import httpx

    from ag_ui.client import HttpAgent

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=run_frames(), headers={"content-type": SSE})

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    result = await HttpAgent("http://memory/agent", http_client=client).run_agent()
    assert result.outcome_type == "success"


SSE = "text/event-stream"
