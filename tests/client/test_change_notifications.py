"""Direct edits (add_message(s), set_messages, set_state) notify subscribers in the same order,
with the same arguments, as the official TypeScript client, which each scenario also runs
(``tests/interop/ts_notifications.mjs``)."""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import warnings
from pathlib import Path
from typing import Any, Optional

import pytest

from ag_ui.client import AgentStateMutation, HttpAgent
from ag_ui.core.types import AssistantMessage, ToolCall

INTEROP = Path(__file__).resolve().parents[1] / "interop"

CALLBACKS = {
    "onNewMessage": "on_new_message",
    "onNewToolCall": "on_new_tool_call",
    "onMessagesChanged": "on_messages_changed",
    "onStateChanged": "on_state_changed",
}


def _call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


USER = {"id": "u1", "role": "user", "content": "hi"}
ASSISTANT_WITH_CALLS = {
    "id": "a1",
    "role": "assistant",
    "content": "",
    "toolCalls": [_call("c1", "search"), _call("c2", "fetch")],
}
EDITS: list[dict[str, Any]] = [
    {"op": "addMessage", "message": ASSISTANT_WITH_CALLS},
    {
        "op": "addMessages",
        "messages": [
            {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "found"},
            {"id": "a2", "role": "assistant", "content": "ok", "toolCalls": [_call("c3", "x")]},
            # Tool calls of a non-assistant message are not announced.
            {"id": "u2", "role": "user", "content": "thanks"},
        ],
    },
    {"op": "addMessages", "messages": []},
    {"op": "setMessages", "messages": [USER]},
    {"op": "setState", "state": {"count": 2}},
]

SCENARIOS: dict[str, dict[str, Any]] = {
    "sync-subscribers": {
        "subscribers": [{"name": "a"}, {"name": "b"}],
        "actions": EDITS,
    },
    "async-subscribers": {
        "subscribers": [{"name": "a", "async": True}, {"name": "b"}, {"name": "c", "async": True}],
        "actions": EDITS,
    },
    "sync-raise-skips-the-rest": {
        "subscribers": [{"name": "a", "raiseIn": "onNewMessage"}, {"name": "b"}],
        "actions": EDITS,
    },
    "async-raise-skips-the-rest": {
        "subscribers": [{"name": "a"}, {"name": "b", "async": True, "raiseIn": "onNewToolCall"}],
        "actions": EDITS,
    },
}


def typescript_records(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    completed = subprocess.run(
        ["node", str(INTEROP / "ts_notifications.mjs")],
        input=json.dumps({"initialMessages": [USER], "initialState": {"count": 1}, **scenario}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=INTEROP,
    )
    records: list[dict[str, Any]] = json.loads(completed.stdout)
    return records


class Recorder:
    """Records every notification like the node script does; may be async and may raise."""

    def __init__(self, spec: dict[str, Any], records: list[dict[str, Any]]) -> None:
        self.spec = spec
        self.records = records
        for ts_name, name in CALLBACKS.items():
            setattr(self, name, self._callback(ts_name))

    def _callback(self, ts_name: str) -> Any:
        def record(params: Any) -> Any:
            entry: dict[str, Any] = {
                "subscriber": self.spec["name"],
                "callback": ts_name,
                "messageIds": [m.id for m in params.messages],
                "state": params.state,
                "hasInput": params.input is not None,
            }
            if params.message is not None:
                entry["message"] = params.message.id
            if params.tool_call is not None:
                entry["toolCall"] = params.tool_call.id

            def finish() -> Any:
                self.records.append(entry)
                if self.spec.get("raiseIn") == ts_name:
                    raise RuntimeError(f"{self.spec['name']} failed in {ts_name}")
                # A returned mutation is ignored: notifications cannot steer anything.
                return AgentStateMutation(state={"ignored": True})

            if self.spec.get("async"):

                async def later() -> Any:
                    await asyncio.sleep(0.001)
                    return finish()

                return later()
            return finish()

        return record


def _agent(scenario: dict[str, Any], records: list[dict[str, Any]]) -> HttpAgent:
    agent = HttpAgent(
        "http://127.0.0.1:9/agent", initial_messages=[USER], initial_state={"count": 1}
    )
    for spec in scenario["subscribers"]:
        agent.subscribe(Recorder(spec, records))
    return agent


def _edit(agent: HttpAgent, action: dict[str, Any]) -> None:
    op = action["op"]
    if op == "addMessage":
        agent.add_message(action["message"])
    elif op == "addMessages":
        agent.add_messages(action["messages"])
    elif op == "setMessages":
        agent.set_messages(action["messages"])
    else:
        agent.set_state(action["state"])


def run_without_loop(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """A plain script: async callbacks finish before the edit returns; errors propagate."""
    records: list[dict[str, Any]] = []
    agent = _agent(scenario, records)
    for action in scenario["actions"]:
        try:
            _edit(agent, action)
        except RuntimeError as error:
            records.append({"action": action["op"], "error": str(error)})
    return records


def run_inside_loop(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """Inside a running loop: async callbacks finish in the background; errors go to the
    loop's exception handler."""
    records: list[dict[str, Any]] = []

    async def main() -> None:
        current: list[Optional[str]] = [None]

        def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            records.append({"action": current[0], "error": str(context["exception"])})

        asyncio.get_running_loop().set_exception_handler(handler)
        agent = _agent(scenario, records)
        for action in scenario["actions"]:
            current[0] = action["op"]
            try:
                _edit(agent, action)
            except RuntimeError as error:  # a synchronous callback raised
                records.append({"action": action["op"], "error": str(error)})
            await agent.flush_notifications()

    asyncio.run(main())
    return records


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_notifications_match_the_typescript_client(name: str) -> None:
    scenario = SCENARIOS[name]
    expected = typescript_records(scenario)
    assert expected, "the TypeScript client fired nothing"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an un-awaited coroutine would be a RuntimeWarning
        assert run_without_loop(scenario) == expected
        assert run_inside_loop(scenario) == expected


def test_add_message_sequence_and_arguments() -> None:
    records = run_without_loop({"subscribers": [{"name": "a"}], "actions": EDITS[:1]})
    assert [(r["callback"], r.get("message"), r.get("toolCall")) for r in records] == [
        ("onNewMessage", "a1", None),
        ("onNewToolCall", None, "c1"),
        ("onNewToolCall", None, "c2"),
        ("onMessagesChanged", None, None),
    ]
    # The message is already in the conversation when it is announced; there is no run input.
    assert all(r["messageIds"] == ["u1", "a1"] and not r["hasInput"] for r in records)


def test_callbacks_get_the_models_that_are_in_the_conversation() -> None:
    agent = HttpAgent("http://127.0.0.1:9/agent")
    seen: list[Any] = []
    agent.subscribe(on_new_message=lambda p: seen.append(p.message))
    agent.subscribe(on_new_tool_call=lambda p: seen.append(p.tool_call))
    agent.add_message(ASSISTANT_WITH_CALLS)
    assert isinstance(seen[0], AssistantMessage)
    assert seen[0] is agent.messages[-1]
    assert all(isinstance(call, ToolCall) for call in seen[1:])
    assert [call.function.name for call in seen[1:]] == ["search", "fetch"]


def test_set_state_and_set_messages_copy_what_they_are_given() -> None:
    agent = HttpAgent("http://127.0.0.1:9/agent")
    states: list[Any] = []
    agent.subscribe(on_state_changed=lambda p: states.append(p.state))
    state = {"items": [1]}
    agent.set_state(state)
    state["items"].append(2)
    assert states == [{"items": [1]}]
    assert agent.state == {"items": [1]}


def test_a_raising_sync_callback_propagates_after_the_edit_is_made() -> None:
    agent = HttpAgent("http://127.0.0.1:9/agent")
    later: list[str] = []

    def broken(params: Any) -> None:
        raise ValueError("broken hook")

    agent.subscribe(on_new_message=broken)
    agent.subscribe(on_new_message=lambda p: later.append("second"))
    with pytest.raises(ValueError, match="broken hook"):
        agent.add_message(USER)
    assert [m.id for m in agent.messages] == ["u1"]
    assert later == []


def test_a_raising_async_callback_without_a_loop_propagates_and_leaves_nothing_unawaited() -> None:
    agent = HttpAgent("http://127.0.0.1:9/agent")
    calls: list[str] = []

    async def broken(params: Any) -> None:
        calls.append("broken")
        raise ValueError("async hook")

    async def second(params: Any) -> None:
        calls.append("second")

    agent.subscribe(on_state_changed=broken)
    agent.subscribe(on_state_changed=second)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="async hook"):
            agent.set_state({"a": 1})
    assert calls == ["broken"]
    assert agent.state == {"a": 1}


def test_inside_a_loop_async_callbacks_run_in_order_in_the_background() -> None:
    async def main() -> list[str]:
        agent = HttpAgent("http://127.0.0.1:9/agent")
        calls: list[str] = []

        async def slow(params: Any) -> None:
            await asyncio.sleep(0.01)
            calls.append("slow")

        agent.subscribe(on_messages_changed=lambda p: calls.append("first"))
        agent.subscribe(on_messages_changed=slow)
        agent.subscribe(on_messages_changed=lambda p: calls.append("last"))
        agent.set_messages([USER])
        calls.append("returned")
        await agent.flush_notifications()
        return calls

    # The synchronous callback before the first awaitable runs at once; the rest waits its turn.
    assert asyncio.run(main()) == ["first", "returned", "slow", "last"]


def test_a_failed_background_notification_reaches_the_loop_exception_handler() -> None:
    async def main() -> list[dict[str, Any]]:
        contexts: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda loop, c: contexts.append(c))
        agent = HttpAgent("http://127.0.0.1:9/agent")

        async def broken(params: Any) -> None:
            raise KeyError("lost")

        agent.subscribe(on_state_changed=broken)
        agent.set_state({})
        await agent.flush_notifications()
        return contexts

    contexts = asyncio.run(main())
    assert len(contexts) == 1
    assert isinstance(contexts[0]["exception"], KeyError)
    assert "change notification" in contexts[0]["message"]


def test_only_the_agents_subscribers_are_told_and_unsubscribed_ones_are_not() -> None:
    agent = HttpAgent("http://127.0.0.1:9/agent")
    calls: list[str] = []
    subscription = agent.subscribe(on_messages_changed=lambda p: calls.append("gone"))
    agent.subscribe(on_messages_changed=lambda p: calls.append("kept"))
    subscription.unsubscribe()
    agent.add_messages([])
    assert calls == ["kept"]


def test_assigning_messages_or_state_directly_does_not_notify() -> None:
    agent = HttpAgent("http://127.0.0.1:9/agent")
    calls: list[str] = []
    agent.subscribe(
        on_messages_changed=lambda p: calls.append("messages"),
        on_state_changed=lambda p: calls.append("state"),
    )
    agent.messages = [USER]
    agent.state = {"x": 1}
    assert calls == []


def test_a_notification_cancelled_before_it_started_leaves_no_unawaited_coroutine() -> None:
    async def main() -> None:
        agent = HttpAgent("http://127.0.0.1:9/agent")

        async def never_started(params: Any) -> None:
            raise AssertionError("cancelled before it could run")

        agent.subscribe(on_state_changed=never_started)
        agent.set_state({})
        # What a loop shutting down does to a task that has not had its first step yet.
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()
        await agent.flush_notifications()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(main())
        gc.collect()
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []
