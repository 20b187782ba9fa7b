"""The proxy's read timeout versus the SDK's keepalive, through a real nginx whose
``proxy_read_timeout`` is cut to 1 s (the file says 60 s) in front of workers sending an SSE
comment after 0.5 s of silence, and an agent silent for 2 s between its deltas."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import httpx
import pytest

from ag_ui.core.events import EventType
from tests.deploy.harness import Deployment
from tests.deploy.streams import AgentRun, StreamResult, body, expected_text, read_stream, run_agent
from tests.redis_helpers import RedisServer

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def short_timeout(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    deployed = Deployment(
        redis_server, tmp_path_factory.mktemp("timeouts"), keepalive=0.5, read_timeout="1s"
    )
    try:
        yield deployed
    finally:
        deployed.close()


async def test_keepalives_keep_a_silent_stream_open_and_protobuf_resumes(
    short_timeout: Deployment,
) -> None:
    """SSE: the keepalive comments keep the stream under the read timeout, nothing is cut.
    Protobuf frames have no comments: nginx cuts the silent stream after 1 s, and
    ``HttpAgent`` resumes it through the proxy, so the run still arrives whole."""
    url = f"{short_timeout.url}/agent"
    sse: list[StreamResult] = []
    sse_agent: list[AgentRun] = []
    proto: list[AgentRun] = []
    async with httpx.AsyncClient(timeout=30) as client:

        async def plain() -> None:
            sse.append(await read_stream(client, url, body("ka-plain", 2, 2.0)))

        async def agent() -> None:
            sse_agent.append(await run_agent(client, url, "ka-sse", 2, 2.0))

        async def frames() -> None:
            proto.append(await run_agent(client, url, "ka-proto", 2, 2.0, proto=True))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(plain)
            tasks.start_soon(agent)
            tasks.start_soon(frames)
    sse[0].check(2)
    assert sse_agent[0].reconnects == 0
    assert sse_agent[0].text == expected_text(2)
    assert proto[0].failure is None, proto[0].failure
    assert proto[0].types[-1] == EventType.RUN_FINISHED
    assert proto[0].text == expected_text(2)
    assert proto[0].reconnects >= 1
