"""Telemetry off costs nothing: no OpenTelemetry module is imported, no header is added."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from ag_ui import telemetry
from ag_ui.server import create_app
from tests.support.servers import serve

pytestmark = pytest.mark.anyio


def test_the_sdk_imports_no_opentelemetry_while_telemetry_is_off() -> None:
    program = (
        "import sys, ag_ui.server, ag_ui.client, ag_ui.providers, ag_ui.telemetry\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'opentelemetry'))\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "[]"


async def test_a_run_without_telemetry_has_no_trace_header() -> None:
    assert not telemetry.is_instrumented()

    async def agent(run_input: object, ctx: object) -> None:
        return None

    with serve(create_app(agent)) as base:
        async with httpx.AsyncClient() as http:
            response = await http.post(
                f"{base}/agent",
                json={"threadId": "t", "runId": "r", "messages": [], "tools": [], "context": []},
            )
    assert response.status_code == 200
    assert telemetry.TRACE_ID_HEADER not in response.headers


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
