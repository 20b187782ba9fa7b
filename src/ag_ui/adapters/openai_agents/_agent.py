"""``OpenAIAgentsAgent``: an OpenAI Agents SDK ``Agent`` as an ``ag_ui.server`` agent.

Each run: the input's messages become the SDK's input items (the Responses format the SDK
takes), the client's tools are added to the agent as tools that stop the run for the client to
answer, ``Runner.run_streamed`` runs it, and ``_stream.StreamTranslator`` sends its events. A
run that stops on tool approvals ends with the ``interrupt`` outcome; its ``RunState`` waits on
the server until a run with ``resume`` answers it. Everything else (``RUN_STARTED`` and
``RUN_FINISHED`` with the input's ids, one terminal event, an exception as ``RUN_ERROR``,
verification) is the server's.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any, Optional, Union

from agents import Agent, FunctionTool, RunConfig, Runner, RunState
from agents.tool_context import ToolContext

from ag_ui.adapters.openai_agents._approvals import (
    PendingApprovals,
    PendingRun,
    call_id_of,
    decisions,
    to_interrupt,
)
from ag_ui.adapters.openai_agents._stream import StreamTranslator
from ag_ui.core.capabilities import (
    AgentCapabilities,
    HumanInTheLoopCapabilities,
    IdentityCapabilities,
    MultiAgentCapabilities,
    ReasoningCapabilities,
    SubagentInfo,
    ToolsCapabilities,
    TransportCapabilities,
)
from ag_ui.core.errors import RunError
from ag_ui.core.outcomes import (
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    SubagentFinishedSuspendedOutcome,
)
from ag_ui.core.types import RunAgentInput, Tool
from ag_ui.providers import Conversation, prepare_messages, responses_request
from ag_ui.server import RunContext

__all__ = ["AgentFactory", "OpenAIAgentsAgent", "frontend_tool", "input_items"]

AgentFactory = Callable[[RunAgentInput], Union[Agent[Any], Awaitable[Agent[Any]]]]
"""Builds the agent for a run from its input (its context, forwarded props, state)."""

TOOL_NAME_CONFLICT_CODE = "tool_name_conflict"
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def input_items(run_input: RunAgentInput) -> list[Any]:
    """The run's messages as the SDK's input items (the Responses API's ``input`` format),
    with the provider layer's fallbacks (an unanswered call gets a "not answered" result)."""
    request = responses_request(Conversation(prepare_messages(run_input.messages)))
    return list(request["input"])


async def _never_invoked(context: ToolContext[Any], arguments: str) -> str:
    # A client tool always waits for approval, which the adapter never gives: the run ends
    # with the call pending and the client answers it in its next input.
    raise RuntimeError("a client tool is run by the client, not by the server")


def frontend_tool(tool: Tool) -> FunctionTool:
    """An AG-UI client tool as an SDK ``FunctionTool`` the model can call; a call stops the run
    (as an approval the adapter never gives) and is left to the client."""
    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=dict(tool.parameters or EMPTY_PARAMETERS),
        on_invoke_tool=_never_invoked,
        strict_json_schema=False,
        needs_approval=True,
    )


class OpenAIAgentsAgent:
    """Serves an Agents SDK agent: ``create_app(OpenAIAgentsAgent(agent))``.

    ``agent``: an ``agents.Agent``, or a factory building one from the run's input (sync or
    async). ``run_config``, ``max_turns``, ``context``: passed to ``Runner.run_streamed``.
    ``approvals``: where runs waiting on tool approvals are kept, by caller (``ctx.principal``)
    and thread (in memory by default).
    """

    def __init__(
        self,
        agent: Union[Agent[Any], AgentFactory],
        *,
        run_config: Optional[RunConfig] = None,
        max_turns: int = 10,
        context: Any = None,
        approvals: Optional[PendingApprovals] = None,
    ) -> None:
        if not isinstance(agent, Agent) and not callable(agent):
            raise TypeError(
                f"OpenAIAgentsAgent needs an agents.Agent or a function building one from the "
                f"run input, got {type(agent).__name__}"
            )
        self.agent = agent
        self.run_config = run_config
        self.max_turns = max_turns
        self.context = context
        self.approvals = approvals if approvals is not None else PendingApprovals()

    def capabilities(self) -> AgentCapabilities:
        """What the agent can do, for ``GET <path>/capabilities``: streaming, client tools
        (parallel calls), reasoning, handoffs as subagents, tool approval as interrupts."""
        agent = self.agent if isinstance(self.agent, Agent) else None
        handoffs = [
            h for h in (agent.handoffs if agent is not None else []) if isinstance(h, Agent)
        ]
        return AgentCapabilities(
            identity=IdentityCapabilities(
                name=agent.name if agent is not None else None, type="openai-agents"
            ),
            transport=TransportCapabilities(streaming=True),
            tools=ToolsCapabilities(supported=True, parallel_calls=True, client_provided=True),
            reasoning=ReasoningCapabilities(supported=True, streaming=True, encrypted=True),
            multi_agent=MultiAgentCapabilities(
                supported=True,
                handoffs=True,
                subagents=[
                    SubagentInfo(name=h.name, description=h.handoff_description) for h in handoffs
                ]
                or None,
            ),
            human_in_the_loop=HumanInTheLoopCapabilities(
                supported=True, approvals=True, interrupts=True
            ),
        )

    async def aclose(self) -> None:
        """Nothing to release (the agent and its model client are the application's)."""

    async def build(self, run_input: RunAgentInput) -> Agent[Any]:
        """The agent of this run: the served one (or the factory's) with the client's tools."""
        built = self.agent(run_input) if not isinstance(self.agent, Agent) else self.agent
        if inspect.isawaitable(built):
            built = await built
        if not isinstance(built, Agent):
            raise TypeError(f"the agent factory returned {type(built).__name__}, not an Agent")
        if not run_input.tools:
            return built
        own = {str(getattr(tool, "name", "")) for tool in built.tools}
        clashes = sorted(own & {tool.name for tool in run_input.tools})
        if clashes:
            raise RunError(
                f"client tool(s) {', '.join(clashes)} have the name of a tool of agent "
                f"{built.name!r}: rename one of them",
                code=TOOL_NAME_CONFLICT_CODE,
            )
        return built.clone(tools=[*built.tools, *(frontend_tool(t) for t in run_input.tools)])

    async def __call__(self, run_input: RunAgentInput, ctx: RunContext) -> None:
        await ctx.start()
        agent = await self.build(run_input)
        pending = self.approvals.get(ctx.principal, run_input.thread_id)
        known_calls: set[str] = set()
        start: Union[list[Any], RunState[Any]]
        if run_input.resume:
            if pending is None:
                raise RunError(
                    "the input resumes interrupts, but the thread has none open (answered "
                    "already, or the server restarted): start a run without resume",
                    code="no_open_interrupt",
                )
            start = await self._resumed(agent, pending, run_input, ctx.principal)
            known_calls = set(pending.interrupt_ids)
        elif pending is not None:
            raise RunError(
                f"thread {run_input.thread_id!r} is waiting on approval(s) "
                f"{', '.join(pending.interrupt_ids)}: answer them in the input's resume",
                code="interrupt_pending",
            )
        else:
            start = input_items(run_input)
        translator = StreamTranslator(ctx, agent, known_tool_call_ids=known_calls)
        result = Runner.run_streamed(
            agent,
            start,
            context=self.context,
            max_turns=self.max_turns,
            run_config=self.run_config,
        )
        try:
            async for event in result.stream_events():
                await translator.feed(event)
        except Exception as exc:
            await translator.fail(exc)
            raise
        finally:
            result.cancel()  # the SDK stops its loop when its stream closes too; this says so
        await self._finish(run_input, ctx, agent, result, translator)

    async def _resumed(
        self,
        agent: Agent[Any],
        pending: PendingRun,
        run_input: RunAgentInput,
        owner: Optional[str],
    ) -> RunState[Any]:
        answers = decisions(list(run_input.resume or []), pending.interrupt_ids)
        # Claimed before the first await: of two runs resuming the same approvals at once, one
        # runs the tools, the other finds nothing open (an approved call never runs twice).
        self.approvals.delete(owner, run_input.thread_id)
        state: RunState[Any] = await RunState.from_string(agent, pending.state)
        for approval in state.get_interruptions():
            decision = answers.get(call_id_of(approval))
            if decision is None:
                continue  # a client tool's call: still the client's to answer
            if decision.approved:
                state.approve(approval)
            else:
                state.reject(approval, rejection_message=decision.message)
        return state

    async def _finish(
        self,
        run_input: RunAgentInput,
        ctx: RunContext,
        agent: Agent[Any],
        result: Any,
        translator: StreamTranslator,
    ) -> None:
        client_tools = {tool.name for tool in run_input.tools}
        interruptions = list(result.interruptions)
        approvals = [i for i in interruptions if i.tool_name not in client_tools]
        client_calls = [call_id_of(i) for i in interruptions if i.tool_name in client_tools]
        lane = translator.subagent_run_id
        usage = translator.usage or None
        if approvals:
            interrupts = [to_interrupt(a, subagent_run_id=lane) for a in approvals]
            ids = [interrupt.id for interrupt in interrupts]
            pending = PendingRun(result.to_state().to_string(), ids)
            self.approvals.put(ctx.principal, run_input.thread_id, pending)
            await translator.close(SubagentFinishedSuspendedOutcome(interrupt_ids=ids))
            await ctx.finish(
                outcome=RunFinishedInterruptOutcome(interrupts=interrupts), usage=usage
            )
            return
        self.approvals.delete(ctx.principal, run_input.thread_id)
        await translator.close()
        final = result.final_output
        outcome = (
            RunFinishedSuccessOutcome(pending_tool_call_ids=client_calls) if client_calls else None
        )
        await ctx.finish(result=_jsonable(final), outcome=outcome, usage=usage)


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return None  # the text is the last message already
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return None
