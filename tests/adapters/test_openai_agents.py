"""ag_ui.adapters.openai_agents: an Agents SDK agent on the fake provider's Responses API (the
SDK's own OpenAIResponsesModel over HTTP), served by a real uvicorn, read by our HttpAgent; every
run's full event list checked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from agents import Agent

from ag_ui.adapters.openai_agents import APPROVAL_SCHEMA
from ag_ui.core import RunError
from ag_ui.testing import AgentClient
from tests.adapters import responses_script as script
from tests.adapters.openai_agents_helpers import (
    Served,
    client,
    delete_file,
    model,
    run,
    shape,
    weather_agent,
)
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import RESPONSES, FakeProvider, Reply

pytestmark = pytest.mark.anyio

RUN_1 = {"threadId": "thread-1", "runId": "run-1"}
RUN_2 = {"threadId": "thread-1", "runId": "run-2"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


def usage(calls: int, **extra: Any) -> list[dict[str, Any]]:
    """The RUN_FINISHED usage of ``calls`` scripted responses (50 in, 10 out each)."""
    return [
        {
            "provider": "openai",
            "model": "gpt-5-mini",
            "inputTokens": 50 * calls,
            "outputTokens": 10 * calls,
            "totalTokens": 60 * calls,
            "reasoningTokens": 0,
            "cachedInputTokens": 0,
            **extra,
        }
    ]


def start(call_id: str, name: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    return ("TOOL_CALL_START", {"toolCallId": call_id, "toolCallName": name, **extra})


def args(call_id: str, delta: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    return ("TOOL_CALL_ARGS", {"toolCallId": call_id, "delta": delta, **extra})


def end(call_id: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    return ("TOOL_CALL_END", {"toolCallId": call_id, **extra})


def result(n: int, call_id: str, content: str, run: str = "run-1", **extra: Any) -> Any:
    return (
        "TOOL_CALL_RESULT",
        {
            "messageId": f"result-{run}-{n}",
            "toolCallId": call_id,
            "content": content,
            "role": "tool",
            **extra,
        },
    )


def text(message_id: str, *deltas: str, **extra: Any) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("TEXT_MESSAGE_START", {"messageId": message_id, "role": "assistant", **extra}),
        *(("TEXT_MESSAGE_CONTENT", {"messageId": message_id, "delta": d, **extra}) for d in deltas),
        ("TEXT_MESSAGE_END", {"messageId": message_id, **extra}),
    ]


async def test_text_segments_reasoning_and_usage(fake: FakeProvider) -> None:
    fake.queue(
        RESPONSES,
        script.response(
            script.reasoning("rs_1", "Weather", " question."),
            script.text("m1", "Hel", "lo."),
            script.text("m2", "Sunny."),
            reasoning_tokens=4,
        ),
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url)
        events, _ = await run(agent, tap, run_id="run-1")
    assert shape(events) == [
        ("RUN_STARTED", RUN_1),
        ("REASONING_START", {"messageId": "reasoning-run-1-1-span"}),
        ("REASONING_MESSAGE_START", {"messageId": "reasoning-run-1-1", "role": "reasoning"}),
        ("REASONING_MESSAGE_CONTENT", {"messageId": "reasoning-run-1-1", "delta": "Weather"}),
        ("REASONING_MESSAGE_CONTENT", {"messageId": "reasoning-run-1-1", "delta": " question."}),
        ("REASONING_MESSAGE_END", {"messageId": "reasoning-run-1-1"}),
        ("REASONING_END", {"messageId": "reasoning-run-1-1-span"}),
        *text("msg-run-1-2", "Hel", "lo."),
        *text("msg-run-1-3", "Sunny."),
        ("RUN_FINISHED", {**RUN_1, "usage": usage(1, reasoningTokens=4)}),
    ]
    # The run's messages reached the model as the SDK's input items, the instructions apart.
    (request,) = fake.bodies(RESPONSES)
    assert request["instructions"] == "Be brief."
    assert request["input"] == [
        {"type": "message", "role": "user", "content": "What is the weather in Paris?"}
    ]
    assert [m.content for m in agent.messages[-2:]] == ["Hello.", "Sunny."]


async def test_backend_tool_and_its_result(fake: FakeProvider) -> None:
    fake.queue(
        RESPONSES,
        script.response(script.call("fc_1", "call_w", "get_weather", '{"city":', '"Paris"}')),
        script.response(script.text("m2", "Sunny in Paris.")),
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url)
        events, _ = await run(agent, tap, run_id="run-1")
    assert shape(events) == [
        ("RUN_STARTED", RUN_1),
        start("call_w", "get_weather"),
        args("call_w", '{"city":'),
        args("call_w", '"Paris"}'),
        end("call_w"),
        result(1, "call_w", "Sunny in Paris."),
        *text("msg-run-1-2", "Sunny in Paris."),
        ("RUN_FINISHED", {**RUN_1, "usage": usage(2)}),
    ]
    second = fake.bodies(RESPONSES)[1]["input"]
    assert second[-1] == {
        "type": "function_call_output",
        "call_id": "call_w",
        "output": "Sunny in Paris.",
    }


async def test_parallel_calls_streamed_and_whole_each_under_its_own_id(
    fake: FakeProvider,
) -> None:
    fake.queue(
        RESPONSES,
        script.response(
            script.text("m1", "Checking."),
            script.call("fc_1", "call_p", "get_weather", '{"city":"Pa', 'ris"}'),
            script.whole_call("fc_2", "call_l", "get_weather", {"city": "London"}),
        ),
        script.response(script.text("m2", "Both sunny.")),
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url)
        events, _ = await run(agent, tap, run_id="run-1")
    parent = {"parentMessageId": "msg-run-1-1"}
    assert shape(events) == [
        ("RUN_STARTED", RUN_1),
        *text("msg-run-1-1", "Checking."),
        start("call_p", "get_weather", **parent),
        args("call_p", '{"city":"Pa'),
        args("call_p", 'ris"}'),
        end("call_p"),
        start("call_l", "get_weather", **parent),
        args("call_l", '{"city": "London"}'),  # arrived whole: one ARGS, never none
        end("call_l"),
        result(2, "call_p", "Sunny in Paris."),
        result(3, "call_l", "Sunny in London."),
        *text("msg-run-1-4", "Both sunny."),
        ("RUN_FINISHED", {**RUN_1, "usage": usage(2)}),
    ]
    (assistant,) = [m for m in agent.messages if m.role == "assistant" and m.tool_calls]
    assert [(c.id, c.function.arguments) for c in assistant.tool_calls or ()] == [
        ("call_p", '{"city":"Paris"}'),
        ("call_l", '{"city": "London"}'),
    ]


BOOKING_TOOL = {
    "name": "confirm_booking",
    "description": "Ask the user to confirm a booking.",
    "parameters": {
        "type": "object",
        "properties": {"hotel": {"type": "string"}},
        "required": ["hotel"],
    },
}


async def test_frontend_tool_call_ends_the_run_for_the_client(fake: FakeProvider) -> None:
    fake.queue(
        RESPONSES,
        script.response(script.whole_call("fc_1", "call_b", "confirm_booking", {"hotel": "Ritz"})),
        script.response(script.text("m2", "Booked.")),
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url)
        events, first = await run(agent, tap, run_id="run-1", tools=[BOOKING_TOOL])
        assert shape(events) == [
            ("RUN_STARTED", RUN_1),
            start("call_b", "confirm_booking"),
            args("call_b", '{"hotel": "Ritz"}'),
            end("call_b"),
            (
                "RUN_FINISHED",
                {
                    **RUN_1,
                    "outcome": {"type": "success", "pendingToolCallIds": ["call_b"]},
                    "usage": usage(1),
                },
            ),
        ]
        assert first.pending_tool_call_ids == ["call_b"]
        # The model was offered the client's tool beside the agent's own.
        offered = [t["name"] for t in fake.bodies(RESPONSES)[0]["tools"]]
        assert offered == ["get_weather", "delete_file", "explode", "confirm_booking"]
        agent.add_message(
            {"id": "tool-1", "role": "tool", "toolCallId": "call_b", "content": "confirmed"}
        )
        events, _ = await run(agent, tap, run_id="run-2", tools=[BOOKING_TOOL])
    assert shape(events) == [
        ("RUN_STARTED", RUN_2),
        *text("msg-run-2-1", "Booked."),
        ("RUN_FINISHED", {**RUN_2, "usage": usage(1)}),
    ]
    assert fake.bodies(RESPONSES)[1]["input"][-2:] == [
        {
            "type": "function_call",
            "call_id": "call_b",
            "name": "confirm_booking",
            "arguments": '{"hotel": "Ritz"}',
        },
        {"type": "function_call_output", "call_id": "call_b", "output": "confirmed"},
    ]


async def test_handoff_is_a_subagent(fake: FakeProvider) -> None:
    billing = Agent(
        name="billing", handoff_description="Answers billing questions.", model=model(fake)
    )
    triage = Agent(name="triage", model=model(fake), handoffs=[billing])
    fake.queue(
        RESPONSES,
        script.response(script.whole_call("fc_1", "call_h", "transfer_to_billing", {})),
        script.response(script.text("m2", "Billing ", "here.")),
    )
    with AgentServer(Served(triage)) as server:
        agent, tap = client(server.url, "Why was I charged twice?")
        events, _ = await run(agent, tap, run_id="run-1")
    sub = {"subagentRunId": "subagent-run-1-2"}
    assert shape(events) == [
        ("RUN_STARTED", RUN_1),
        start("call_h", "transfer_to_billing"),
        args("call_h", "{}"),
        end("call_h"),
        result(1, "call_h", '{"assistant": "billing"}'),
        (
            "SUBAGENT_STARTED",
            {
                **sub,
                "name": "billing",
                "description": "Answers billing questions.",
                "parentToolCallId": "call_h",
            },
        ),
        *text("msg-run-1-3", "Billing ", "here.", **sub),
        ("SUBAGENT_FINISHED", sub),
        ("RUN_FINISHED", {**RUN_1, "usage": usage(2)}),
    ]


async def test_approval_is_an_interrupt_and_resume_runs_the_tool(fake: FakeProvider) -> None:
    fake.queue(
        RESPONSES,
        script.response(script.whole_call("fc_1", "call_d", "delete_file", {"path": "/tmp/x"})),
        script.response(script.text("m2", "Deleted.")),
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url, "Delete /tmp/x")
        events, first = await run(agent, tap, run_id="run-1")
        interrupt = {
            "id": "call_d",
            "reason": "tool_call",
            "message": "Approve the call to delete_file?",
            "toolCallId": "call_d",
            "responseSchema": APPROVAL_SCHEMA,
            "metadata": {"toolName": "delete_file", "agent": "assistant"},
        }
        assert shape(events) == [
            ("RUN_STARTED", RUN_1),
            start("call_d", "delete_file"),
            args("call_d", '{"path": "/tmp/x"}'),
            end("call_d"),
            (
                "RUN_FINISHED",
                {
                    **RUN_1,
                    "outcome": {"type": "interrupt", "interrupts": [interrupt]},
                    "usage": usage(1),
                },
            ),
        ]
        assert [i.id for i in first.interrupts] == ["call_d"]
        # A run without resume while the approval is open (past the client's own check) is
        # refused by the server, and the approval stays open.
        agent.pending_interrupts = []
        _, refused = await run(agent, tap, run_id="run-x")
        assert isinstance(refused, RunError)
        assert refused.code == "interrupt_pending"
        agent.pending_interrupts = first.interrupts
        events, _ = await run(
            agent,
            tap,
            run_id="run-2",
            resume=[{"interruptId": "call_d", "status": "resolved", "payload": {"approved": True}}],
        )
    # The call is not sent again: its result, then the model's answer (this run's usage only).
    assert shape(events) == [
        ("RUN_STARTED", RUN_2),
        result(1, "call_d", "deleted /tmp/x", run="run-2"),
        *text("msg-run-2-2", "Deleted."),
        ("RUN_FINISHED", {**RUN_2, "usage": usage(1)}),
    ]
    assert len(fake.bodies(RESPONSES)) == 2


async def test_rejected_approval_tells_the_model(fake: FakeProvider) -> None:
    fake.queue(
        RESPONSES,
        script.response(script.whole_call("fc_1", "call_d", "delete_file", {"path": "/etc"})),
        script.response(script.text("m2", "I did not delete it.")),
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url, "Delete /etc")
        _, first = await run(agent, tap, run_id="run-1")
        events, bad = await run(
            agent,
            tap,
            run_id="run-2",
            resume=[{"interruptId": "call_d", "status": "resolved", "payload": "yes"}],
        )
        assert isinstance(bad, RunError)
        assert bad.code == "invalid_resume_payload"
        agent.pending_interrupts = first.interrupts
        events, _ = await run(
            agent,
            tap,
            run_id="run-3",
            resume=[
                {
                    "interruptId": "call_d",
                    "status": "resolved",
                    "payload": {"approved": False, "message": "Not that one."},
                }
            ],
        )
    run_3 = {"threadId": "thread-1", "runId": "run-3"}
    assert shape(events) == [
        ("RUN_STARTED", run_3),
        result(1, "call_d", "Not that one.", run="run-3"),
        *text("msg-run-3-2", "I did not delete it."),
        ("RUN_FINISHED", {**run_3, "usage": usage(1)}),
    ]
    assert fake.bodies(RESPONSES)[1]["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_d",
        "output": "Not that one.",
    }


async def test_model_failure_ends_run_error(fake: FakeProvider) -> None:
    fake.queue(RESPONSES, Reply.error(500, {"error": {"message": "failure with a secret"}}))
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url)
        events, error = await run(agent, tap, run_id="run-1")
    assert isinstance(error, RunError)
    assert "secret" not in error.message
    kinds = [kind for kind, _ in shape(events)]
    assert kinds == ["RUN_STARTED", "RUN_ERROR"]


async def test_raising_tool_ends_run_error_with_everything_closed(fake: FakeProvider) -> None:
    fake.queue(
        RESPONSES,
        script.response(
            script.text("m1", "Trying."),
            script.whole_call("fc_1", "call_x", "explode", {"reason": "boom"}),
        ),
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url)
        events, error = await run(agent, tap, run_id="run-1")
    assert isinstance(error, RunError)
    assert error.code == "agent_error"
    assert "secret detail" not in error.message
    assert shape(events)[:-1] == [
        ("RUN_STARTED", RUN_1),
        *text("msg-run-1-1", "Trying."),
        start("call_x", "explode", parentMessageId="msg-run-1-1"),
        args("call_x", '{"reason": "boom"}'),
        end("call_x"),
    ]
    assert shape(events)[-1][0] == "RUN_ERROR"


async def test_a_factory_builds_each_runs_agent_from_its_input(fake: FakeProvider) -> None:
    fake.queue(RESPONSES, script.response(script.text("m1", "Bonjour.")))
    seen: list[str] = []

    async def build(run_input: Any) -> Agent[Any]:
        seen.append(run_input.run_id)
        language = run_input.context[0].value
        return Agent(name="greeter", instructions=f"Answer in {language}.", model=model(fake))

    with AgentServer(Served(build)) as server:
        agent, tap = client(server.url, "Hello")
        events, _ = await run(
            agent, tap, run_id="run-1", context=[{"description": "language", "value": "French"}]
        )
    assert seen == ["run-1"]
    assert shape(events) == [
        ("RUN_STARTED", RUN_1),
        *text("msg-run-1-1", "Bonjour."),
        ("RUN_FINISHED", {**RUN_1, "usage": usage(1)}),
    ]
    assert fake.bodies(RESPONSES)[0]["instructions"] == "Answer in French."


async def test_a_client_that_leaves_closes_the_models_stream(fake: FakeProvider) -> None:
    fake.queue(
        RESPONSES, Reply(script.response(script.text("m1", "a", "b", "c")).body, stall_after=4)
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        result = await AgentClient(url=server.url).run("Hello", stop_after=3)
        assert result.cancelled
        # The server cancels the agent, which stops the SDK's run and its HTTP stream.
        with anyio.fail_after(10):
            while not fake.client_left.is_set():
                await anyio.sleep(0.05)


async def test_encrypted_reasoning_goes_out_and_comes_back(fake: FakeProvider) -> None:
    thinking = script.reasoning("rs_1", "Plan.")
    thinking.done["encrypted_content"] = "gAAAA-opaque"
    fake.queue(
        RESPONSES,
        script.response(thinking, script.text("m1", "First.")),
        script.response(script.text("m2", "Second.")),
    )
    with AgentServer(Served(weather_agent(fake))) as server:
        agent, tap = client(server.url)
        events, _ = await run(agent, tap, run_id="run-1")
        assert shape(events)[1:7] == [
            ("REASONING_START", {"messageId": "reasoning-run-1-1-span"}),
            ("REASONING_MESSAGE_START", {"messageId": "reasoning-run-1-1", "role": "reasoning"}),
            ("REASONING_MESSAGE_CONTENT", {"messageId": "reasoning-run-1-1", "delta": "Plan."}),
            (
                "REASONING_ENCRYPTED_VALUE",
                {
                    "subtype": "message",
                    "entityId": "reasoning-run-1-1",
                    "encryptedValue": "gAAAA-opaque",
                    "encryptedValueType": "openai.encrypted_content",
                },
            ),
            ("REASONING_MESSAGE_END", {"messageId": "reasoning-run-1-1"}),
            ("REASONING_END", {"messageId": "reasoning-run-1-1-span"}),
        ]
        agent.add_message({"id": "user-2", "role": "user", "content": "And then?"})
        await run(agent, tap, run_id="run-2")
    second = fake.bodies(RESPONSES)[1]["input"]
    assert second[1] == {
        "type": "reasoning",
        "id": "reasoning-run-1-1",
        "summary": [{"type": "summary_text", "text": "Plan."}],
        "encrypted_content": "gAAAA-opaque",
    }


async def test_an_approval_in_a_handed_off_agent_suspends_its_subagent(fake: FakeProvider) -> None:
    ops = Agent(name="ops", model=model(fake), tools=[delete_file])
    triage = Agent(name="triage", model=model(fake), handoffs=[ops])
    fake.queue(
        RESPONSES,
        script.response(script.whole_call("fc_1", "call_h", "transfer_to_ops", {})),
        script.response(script.whole_call("fc_2", "call_d", "delete_file", {"path": "/x"})),
        script.response(script.text("m3", "Done.")),
    )
    with AgentServer(Served(triage)) as server:
        agent, tap = client(server.url, "Clean up /x")
        events, first = await run(agent, tap, run_id="run-1")
        sub = {"subagentRunId": "subagent-run-1-2"}
        interrupt = {
            "subagentRunId": "subagent-run-1-2",
            "id": "call_d",
            "reason": "tool_call",
            "message": "Approve the call to delete_file?",
            "toolCallId": "call_d",
            "responseSchema": APPROVAL_SCHEMA,
            "metadata": {"toolName": "delete_file", "agent": "ops"},
        }
        assert shape(events) == [
            ("RUN_STARTED", RUN_1),
            start("call_h", "transfer_to_ops"),
            args("call_h", "{}"),
            end("call_h"),
            result(1, "call_h", '{"assistant": "ops"}'),
            ("SUBAGENT_STARTED", {**sub, "name": "ops", "parentToolCallId": "call_h"}),
            start("call_d", "delete_file", **sub),
            args("call_d", '{"path": "/x"}', **sub),
            end("call_d", **sub),
            (
                "SUBAGENT_FINISHED",
                {**sub, "outcome": {"type": "suspended", "interruptIds": ["call_d"]}},
            ),
            (
                "RUN_FINISHED",
                {
                    **RUN_1,
                    "outcome": {"type": "interrupt", "interrupts": [interrupt]},
                    "usage": usage(2),
                },
            ),
        ]
        assert [(i.id, i.subagent_run_id) for i in first.interrupts] == [
            ("call_d", "subagent-run-1-2")
        ]
        events, _ = await run(
            agent,
            tap,
            run_id="run-2",
            resume=[{"interruptId": "call_d", "status": "resolved", "payload": {"approved": True}}],
        )
    # The resumed run continues in the agent that asked: a new invocation of the same subagent.
    sub2 = {"subagentRunId": "subagent-run-2-1"}
    assert shape(events) == [
        ("RUN_STARTED", RUN_2),
        ("SUBAGENT_STARTED", {**sub2, "name": "ops"}),
        result(2, "call_d", "deleted /x", run="run-2", **sub2),
        *text("msg-run-2-3", "Done.", **sub2),
        ("SUBAGENT_FINISHED", sub2),
        ("RUN_FINISHED", {**RUN_2, "usage": usage(1)}),
    ]
