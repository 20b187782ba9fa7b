"""Every bad request gets its status and a JSON error, before anything streams; the server
keeps serving afterwards."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.requests import Request

from ag_ui.server import AgentEndpoint, RequestRejectedError, RunContext, create_app
from tests.support.sse import sse_events

from .conftest import run_body

pytestmark = pytest.mark.anyio

RAN: list[str] = []


async def hello(run_input: Any, ctx: RunContext) -> None:
    RAN.append(run_input.run_id)
    await ctx.say("hi")


def client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost")


async def assert_still_serving(http: httpx.AsyncClient) -> None:
    response = await http.post("/agent", json=run_body())
    assert response.status_code == 200
    assert [e["type"] for e in sse_events(response.text)][-1] == "RUN_FINISHED"


def error_of(response: httpx.Response) -> dict[str, Any]:
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert isinstance(body["error"]["message"], str)
    return {"code": body["error"]["code"], "details": body["error"]["details"]}


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
async def test_method_other_than_post_is_405(method: str) -> None:
    async with client(create_app(hello)) as http:
        response = await http.request(method, "/agent")
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"
        assert error_of(response) == {"code": "method_not_allowed", "details": []}
        await assert_still_serving(http)


@pytest.mark.parametrize(
    ("content_type", "shown"),
    [("text/plain", "got text/plain"), (None, "got no Content-Type header")],
)
async def test_non_json_body_is_415(content_type: str | None, shown: str) -> None:
    headers = {"content-type": content_type} if content_type else {}
    async with client(create_app(hello)) as http:
        response = await http.post("/agent", content=json.dumps(run_body()), headers=headers)
        assert response.status_code == 415
        assert error_of(response) == {"code": "unsupported_media_type", "details": [shown]}
        await assert_still_serving(http)


async def test_json_with_charset_is_accepted() -> None:
    async with client(create_app(hello)) as http:
        response = await http.post(
            "/agent",
            content=json.dumps(run_body()),
            headers={"content-type": "application/json; charset=utf-8"},
        )
        assert response.status_code == 200


async def test_declared_oversized_body_is_413() -> None:
    async with client(create_app(hello, max_body_size=100)) as http:
        response = await http.post("/agent", json=run_body(state={"x": "y" * 200}))
        assert response.status_code == 413
        assert error_of(response) == {
            "code": "payload_too_large",
            "details": ["limit: 100 bytes"],
        }
        await assert_still_serving(http)


async def test_streamed_oversized_body_is_413() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"threadId":"t1",'
        yield b'"runId":"r1","messages":[],"state":"' + b"y" * 200 + b'"}'

    async with client(create_app(hello, max_body_size=100)) as http:
        response = await http.post(
            "/agent", content=chunks(), headers={"content-type": "application/json"}
        )
        assert "content-length" not in response.request.headers
        assert response.status_code == 413
        assert error_of(response)["code"] == "payload_too_large"
        await assert_still_serving(http)


async def test_malformed_json_is_400() -> None:
    async with client(create_app(hello)) as http:
        response = await http.post(
            "/agent", content=b'{"threadId": ', headers={"content-type": "application/json"}
        )
        assert response.status_code == 400
        error = error_of(response)
        assert error["code"] == "malformed_json"
        assert len(error["details"]) == 1
        assert error["details"][0].startswith("not valid JSON")
        await assert_still_serving(http)


async def test_schema_errors_are_422_with_wire_paths() -> None:
    body = {"threadId": "t1", "messages": [{"role": "user", "content": "hi"}]}
    async with client(create_app(hello)) as http:
        response = await http.post("/agent", json=body)
        assert response.status_code == 422
        assert error_of(response) == {
            "code": "invalid_run_input",
            "details": [
                'missing required field "runId"',
                'messages[0] (role "user"): missing required field "id"',
            ],
        }
        await assert_still_serving(http)


async def test_non_object_body_is_422() -> None:
    async with client(create_app(hello)) as http:
        response = await http.post("/agent", json=[1, 2])
        assert response.status_code == 422
        assert error_of(response) == {
            "code": "invalid_run_input",
            "details": ["expected a JSON object, got [1, 2]"],
        }


def bearer_hook(request: Request) -> Any:
    token = request.headers.get("authorization")
    if token is None:
        raise RequestRejectedError(
            401, "unauthorized", "send a bearer token", headers={"www-authenticate": "Bearer"}
        )
    if token != "Bearer good":
        return False
    return {"user": "alice"}


async def test_authorize_hook_401_403_and_identity_reaches_the_agent() -> None:
    seen: list[Any] = []

    async def agent(run_input: Any, ctx: RunContext) -> None:
        seen.append(ctx.auth)
        await ctx.say("hi")

    RAN.clear()
    async with client(create_app(agent, authorize=bearer_hook)) as http:
        missing = await http.post("/agent", json=run_body())
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"] == "Bearer"
        assert error_of(missing) == {"code": "unauthorized", "details": []}
        wrong = await http.post("/agent", json=run_body(), headers={"authorization": "Bearer x"})
        assert wrong.status_code == 403
        assert error_of(wrong) == {"code": "forbidden", "details": []}
        # Authorization runs before the body is read or checked.
        bad_body = await http.post("/agent", content=b"{", headers={"content-type": "text/plain"})
        assert bad_body.status_code == 401
        ok = await http.post("/agent", json=run_body(), headers={"authorization": "Bearer good"})
        assert ok.status_code == 200
    assert seen == [{"user": "alice"}]


async def test_async_authorize_hook_and_hook_failure_is_500() -> None:
    async def deny(request: Request) -> Any:
        raise RequestRejectedError(403, "forbidden", "nope")

    async def broken(request: Request) -> Any:
        raise KeyError("secret-config")

    async with client(create_app(hello, authorize=deny)) as http:
        response = await http.post("/agent", json=run_body())
        assert response.status_code == 403
    async with client(create_app(hello, authorize=broken)) as http:
        response = await http.post("/agent", json=run_body())
        assert response.status_code == 500
        assert error_of(response) == {"code": "internal_error", "details": []}
        assert "secret-config" not in response.text


async def test_rejected_requests_never_run_the_agent() -> None:
    RAN.clear()
    async with client(create_app(hello, max_body_size=50)) as http:
        await http.get("/agent")
        await http.post("/agent", content=b"x", headers={"content-type": "text/plain"})
        await http.post("/agent", content=b"{", headers={"content-type": "application/json"})
        await http.post("/agent", json={"threadId": "t"})
        await http.post("/agent", json=run_body(state="z" * 100))
    assert RAN == []


async def test_endpoint_refuses_non_http_scopes() -> None:
    endpoint = AgentEndpoint(hello)

    async def receive() -> Any:
        raise AssertionError("not called")

    async def send(message: Any) -> None:
        raise AssertionError("not called")

    with pytest.raises(RuntimeError):
        await endpoint({"type": "websocket"}, receive, send)
