"""A graph served with a run store (``store=``) runs detached: a client cut mid-run by the
network reconnects through ``GET <path>/connect`` and ends with the same event list as a reader
of the whole stored run (real uvicorn, the connection cut at the transport seam)."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

from ag_ui.adapters.langgraph import LangGraphAgent
from ag_ui.client import HttpAgent, ReconnectPolicy
from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.testing import serve
from ag_ui.testing.faults import Cut, FaultyTransport
from tests.adapters.langgraph_graphs import PARALLEL, assert_calls, tool_graph

pytestmark = pytest.mark.anyio

FAST = ReconnectPolicy(max_attempts=5, initial_delay=0.001, max_delay=0.01)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def dumped(events: list[Any]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


async def test_a_cut_client_resumes_with_the_same_event_list() -> None:
    app = create_app(LangGraphAgent(tool_graph(PARALLEL)), store=InMemoryRunStore())
    with serve(app) as server:
        url = server.url + "/agent"
        # The first response breaks after 700 bytes (inside the tool calls); reconnects are not cut.
        cutting = FaultyTransport(httpx.AsyncHTTPTransport(), per_response=[[Cut(after_bytes=700)]])
        async with httpx.AsyncClient(transport=cutting) as http:
            agent = HttpAgent(url, http_client=http, thread_id="cut", reconnect=FAST)
            agent.add_message({"id": "u1", "role": "user", "content": "weather and time?"})
            seen: list[Any] = []
            with anyio.fail_after(30):
                async with agent.stream(run_id="run-cut") as stream:
                    async for event in stream:
                        seen.append(event)
            assert stream.result is not None
            assert stream.result.reconnects == 1
        resumed_from = cutting.requests[1].headers["last-event-id"]
        key = resumed_from.rsplit(":", 1)[0]

        whole = HttpAgent(url)
        replayed: list[Any] = []
        async with whole.stream_connect(run_key=key) as stream:
            async for event in stream:
                replayed.append(event)
    assert dumped(seen) == dumped(replayed)
    assert_calls(dumped(seen), {"call_a": "get_weather", "call_b": "get_time"})
    assert dumped(seen)[-1]["runId"] == "run-cut"
