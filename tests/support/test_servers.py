"""The shared server helpers keep their promises: bound before start, stopped after, and a
server that cannot start fails the test with a clear error instead of hanging."""

from __future__ import annotations

import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tests.conftest import REPO
from tests.support.servers import FD, serve, serve_process


async def _hello(request: object) -> PlainTextResponse:
    return PlainTextResponse("hello")


def _app() -> Starlette:
    return Starlette(routes=[Route("/", _hello)])


def test_serve_answers_on_its_own_port_and_frees_it_after() -> None:
    with serve(_app()) as first, serve(_app()) as second:
        assert first != second
        assert httpx.get(first, timeout=10).text == "hello"
        assert httpx.get(second, timeout=10).text == "hello"
    port = int(first.rsplit(":", 1)[1])
    with (
        pytest.raises(ConnectionRefusedError),
        socket.create_connection(("127.0.0.1", port), timeout=2),
    ):
        pass


def test_a_failing_lifespan_fails_serve_with_a_clear_error() -> None:
    @asynccontextmanager
    async def broken(app: Starlette) -> AsyncIterator[None]:
        raise RuntimeError("startup failed on purpose")
        yield

    app = Starlette(routes=[Route("/", _hello)], lifespan=broken)
    with pytest.raises(RuntimeError, match="uvicorn stopped during startup"), serve(app):
        pass


def test_serve_process_hands_the_bound_socket_to_uvicorn() -> None:
    command = [sys.executable, "-m", "uvicorn", "tests.support.test_servers:app", "--fd", FD]
    with serve_process([*command, "--log-level", "warning"], cwd=REPO) as url:
        assert httpx.get(url, timeout=10).text == "hello"


def test_serve_process_refuses_a_command_that_does_not_take_the_socket() -> None:
    with pytest.raises(ValueError, match="put FD where its number goes"), serve_process(["true"]):
        pass


def test_serve_process_reports_a_server_that_exits() -> None:
    command = [sys.executable, "-c", "import sys; sys.exit(3)", FD]
    with pytest.raises(RuntimeError, match="exited with code 3"), serve_process(command):
        pass


app = _app()
