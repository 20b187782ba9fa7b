"""Against a real agent built with the official ``ag-ui-protocol==1.0.0`` + FastAPI (in its own
venv, on 127.0.0.1), our client must end with the same messages and state as the official
TypeScript ``@ag-ui/client@1.0.0`` and reject the same illegal sequence."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ag_ui.client import HttpAgent
from ag_ui.core import ProtocolError, RunError
from tests.support.servers import FD, serve_process

REPO = Path(__file__).resolve().parents[2]
INTEROP = REPO / "tests" / "interop"
OFFICIAL_PYTHON = REPO / ".venv-official" / "bin" / "python"
INITIAL_MESSAGES = [{"id": "u1", "role": "user", "content": "hi"}]
INITIAL_STATE = {"x": 1}

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def official_url() -> Iterator[str]:
    if not OFFICIAL_PYTHON.exists():
        pytest.fail("run scripts/test once to create .venv-official (the official package)")
    command = [str(OFFICIAL_PYTHON), str(INTEROP / "official_peer_server.py"), "--fd", FD]
    with serve_process(command) as url:
        yield url


def ts_client(url: str) -> dict[str, Any]:
    """The official TypeScript client's final conversation after one run against ``url``."""
    completed = subprocess.run(
        [
            "node",
            str(INTEROP / "ts_client_run.mjs"),
            url,
            json.dumps(INITIAL_MESSAGES),
            json.dumps(INITIAL_STATE),
        ],
        capture_output=True,
        check=True,
        timeout=60,
        cwd=INTEROP,
    )
    return dict(json.loads(completed.stdout))


def our_agent(url: str, **options: Any) -> HttpAgent:
    return HttpAgent(
        url,
        thread_id="thread-1",
        initial_messages=INITIAL_MESSAGES,
        initial_state=INITIAL_STATE,
        **options,
    )


def wire_messages(agent: HttpAgent) -> list[dict[str, Any]]:
    return [m.model_dump(by_alias=True, mode="json") for m in agent.messages]


@pytest.mark.parametrize("scenario", ["text", "tool", "state", "reasoning", "chunks"])
@pytest.mark.parametrize("proto", [False, True], ids=["sse", "proto-accept-falls-back-to-sse"])
async def test_same_final_conversation_as_the_typescript_client(
    official_url: str, scenario: str, proto: bool
) -> None:
    url = f"{official_url}/{scenario}"
    expected = ts_client(url)
    assert expected["error"] is None
    agent = our_agent(url, proto=proto)
    result = await agent.run_agent(run_id="run-1")
    assert wire_messages(agent) == expected["messages"]
    assert agent.state == expected["state"]
    assert result.result == expected["result"] == {"scenario": scenario}
    assert [m.id for m in result.new_messages] == expected["newMessageIds"]


@pytest.mark.parametrize("scenario", ["interrupt", "snapshot"])
async def test_interrupts_snapshots_and_activity_match_the_typescript_client(
    official_url: str, scenario: str
) -> None:
    url = f"{official_url}/{scenario}"
    expected = ts_client(url)
    assert expected["error"] is None
    agent = our_agent(url)
    result = await agent.run_agent(run_id="run-1")
    assert wire_messages(agent) == expected["messages"]
    assert agent.state == expected["state"]
    pending = [i.model_dump(by_alias=True, mode="json") for i in agent.pending_interrupts]
    assert pending == expected["pendingInterrupts"]
    assert [m.id for m in result.new_messages] == expected["newMessageIds"]


async def test_illegal_sequence_is_rejected_like_the_typescript_client(official_url: str) -> None:
    url = f"{official_url}/illegal"
    expected = ts_client(url)
    agent = our_agent(url)
    with pytest.raises(ProtocolError) as info:
        await agent.run_agent(run_id="run-1")
    assert expected["error"] == str(info.value)
    assert info.value.event_type == "TEXT_MESSAGE_CONTENT"
    assert wire_messages(agent) == expected["messages"]


async def test_run_error_raises_with_the_same_messages_as_the_typescript_client(
    official_url: str,
) -> None:
    url = f"{official_url}/error"
    expected = ts_client(url)
    agent = our_agent(url)
    with pytest.raises(RunError) as info:
        await agent.run_agent(run_id="run-1")
    assert expected["runError"] == {"message": info.value.message, "code": info.value.code}
    assert wire_messages(agent) == expected["messages"]
    assert agent.state == expected["state"]
