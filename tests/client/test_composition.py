"""HttpAgent is composed: an immutable HttpConfig, a Conversation, one Run at a time; and the
client's public surface is ``ag_ui.client``."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import ag_ui.client
from ag_ui.client import DebugConfig, HttpAgent, HttpConfig, ReconnectPolicy
from tests.client.client_helpers import Recorder, asgi_agent, run_frames, sequence_app, static_app

pytestmark = pytest.mark.anyio


def test_every_module_behind_the_public_surface_is_private() -> None:
    from pathlib import Path

    # Documented module paths of their own; the never-released re-export modules
    # (ag_ui.client.agent, .transport...) were deleted before the first release.
    public = {"downgrade", "versions"}
    folder = Path(ag_ui.client.__file__).parent
    for path in folder.glob("*.py"):
        name = path.stem
        if name == "__init__" or name.startswith("_"):
            continue
        assert name in public, f"ag_ui.client.{name} should be private (_{name})"


def test_settings_live_in_one_immutable_config() -> None:
    agent = HttpAgent("http://127.0.0.1:8000/agent", headers={"X-A": "1"}, proto=True, debug=True)
    config = agent.config
    assert isinstance(config, HttpConfig)
    assert (config.url, config.proto, dict(config.headers)) == (agent.url, True, {"X-A": "1"})
    assert config.debug == DebugConfig(events=True, lifecycle=True, verbose=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.proto = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        agent.headers["X-B"] = "2"  # type: ignore[index]
    agent.proto = False  # assigning a setting replaces the config...
    agent.headers = {"X-B": "2"}
    agent.reconnect = ReconnectPolicy(max_attempts=0)
    assert config.proto is True  # ...and leaves the old one as it was
    assert (agent.config.proto, dict(agent.headers), agent.config.reconnect.max_attempts) == (
        False,
        {"X-B": "2"},
        0,
    )
    with pytest.raises(ValueError, match="not a version"):
        agent.max_protocol_version = "1.x"
    assert agent.max_protocol_version == "1.1"
    agent.max_protocol_version = "0.0.39"
    assert agent.config.peer_ceiling == (0, 0, 39)


async def test_a_run_keeps_the_config_it_started_with() -> None:
    recorder = Recorder()
    agent = asgi_agent(
        sequence_app(run_frames(), run_frames(run="r2"), recorder=recorder),
        headers={"X-Run": "first"},
    )

    def change_headers(params: Any) -> None:
        agent.headers = {"X-Run": "second"}  # during the run: for the next one

    agent.subscribe(on_run_initialized=change_headers)
    await agent.run_agent()
    await agent.run_agent()
    assert [headers["x-run"] for headers in recorder.headers] == ["first", "second"]


async def test_the_conversation_is_the_only_state_a_run_changes() -> None:
    body = run_frames(
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}},
    )
    agent = asgi_agent(static_app(body))
    before = {k: v for k, v in vars(agent).items() if k != "_conversation"}
    result = await agent.run_agent()
    after = {k: v for k, v in vars(agent).items() if k != "_conversation"}
    assert before.keys() == after.keys()
    assert all(after[key] is before[key] for key in before)  # nothing else was reassigned
    assert (agent.state, [m.id for m in agent.messages]) == ({"n": 1}, ["m1"])
    assert (agent.is_running, agent.reconnects, result.reconnects) == (False, 0, 0)
