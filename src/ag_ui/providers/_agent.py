"""``ModelAgent``: a model behind AG-UI, with backend tools, frontend tools and shared state.

Serve it with ``create_app(ModelAgent("openai:gpt-4o-mini"))``. Each run loops:

1. the run's messages (plus what this run added) become a request; the stream is translated
   into AG-UI events as it arrives (``ag_ui.server``'s guard checks and frames them);
2. no tool calls: the run finishes, with the turns' token usage on ``RUN_FINISHED``;
3. backend tool calls (the agent's Python functions) run, concurrently, each answered by a
   ``TOOL_CALL_RESULT``; a call naming no tool is answered with an error the model can read;
4. frontend tool calls (tools the request offered) end the run with the calls pending
   (``outcome.pendingToolCallIds``); the client answers them and the next run continues;
5. otherwise back to 1, at most ``max_rounds`` model calls per run.

Provider failures end the run with ``RUN_ERROR`` and a stable code (``ProviderError``); the
client leaving cancels the run, which closes the provider's stream.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Optional, Union

import anyio

from ag_ui.core.capabilities import (
    AgentCapabilities,
    ExecutionCapabilities,
    IdentityCapabilities,
    MultimodalCapabilities,
    MultimodalInputCapabilities,
    ReasoningCapabilities,
    StateCapabilities,
    ToolsCapabilities,
    TransportCapabilities,
)
from ag_ui.core.errors import ProviderConfigError, ProviderError, RunError, ToolDefinitionError
from ag_ui.core.events import BaseEvent, RunFinishedSuccessOutcome
from ag_ui.core.token_usage import TokenUsage, aggregate_token_usage
from ag_ui.core.types import Message, RunAgentInput, Tool, ToolCall, ToolMessage
from ag_ui.providers._failures import described, failure, not_an_event_stream, unreadable
from ag_ui.providers._history import Conversation, prepare_messages, system_text
from ag_ui.providers._provider import ModelProvider, ModelStream
from ag_ui.providers._retry import open_within_budget
from ag_ui.providers._spec import provider_from_spec
from ag_ui.providers._state_tool import STATE_TOOL_NAME, state_tool
from ag_ui.providers._turn import Turn
from ag_ui.providers._value_types import for_client_before_1_1, predates_value_types
from ag_ui.server import RunContext
from ag_ui.telemetry import _switch as telemetry_switch
from ag_ui.tools import FunctionTool, ToolResult

if TYPE_CHECKING:
    from ag_ui.telemetry._model_call import ModelCall

__all__ = [
    "DEFAULT_MAX_ROUNDS",
    "MAX_ROUNDS_CODE",
    "TOOL_NAME_CONFLICT_CODE",
    "ModelAgent",
]

logger = logging.getLogger("ag_ui.providers")

DEFAULT_MAX_ROUNDS = 10
MAX_ROUNDS_CODE = "max_rounds_exceeded"
TOOL_NAME_CONFLICT_CODE = "tool_name_conflict"
_CLOSE_TIMEOUT = 2.0
"""Seconds closing a provider stream may take, also while the run is being cancelled."""

ToolLike = Union[FunctionTool, Callable[..., Any]]


def _as_it_is(event: BaseEvent) -> BaseEvent:
    return event


def _as_tool(item: ToolLike) -> FunctionTool:
    if isinstance(item, FunctionTool):
        return item
    return FunctionTool(item, context_type=RunContext)


def _unknown_tool(call: ToolCall, available: Iterable[str]) -> ToolResult:
    names = ", ".join(sorted(available)) or "none"
    text = f"There is no tool named {call.function.name!r}; the tools available are: {names}."
    return ToolResult(call.function.name, text, error=text)


class ModelAgent:
    """An AG-UI agent answering with a model (see the module docstring for the loop).

    * ``model``: a ``ModelProvider`` (``OpenAIChat(...)``, ``OpenAIResponses(...)``,
      ``AnthropicMessages(...)``) or a ``PROVIDER:MODEL`` spec (``"openai:gpt-4o-mini"``,
      ``"openai-responses:o4-mini"``, ``"anthropic:claude-sonnet-4-5"``), with ``base_url`` and
      ``api_key`` for the spec form;
    * ``system``: the instructions, put first in the system prompt (then the run's ``context``
      entries, then the shared state);
    * ``tools``: backend tools, plain functions (sync or async) or ``FunctionTool``s; a parameter
      annotated ``RunContext`` receives the run's context (``ctx.state``, ``ctx.emit``...);
    * ``max_rounds``: model calls per run (default 10); past it the run ends with ``RUN_ERROR``
      ``max_rounds_exceeded``;
    * ``share_state``: show the shared state to the model and give it the ``update_state`` tool
      (each change reaches the client as ``STATE_DELTA``). ``None`` (default): when the run's
      state is not empty. ``True``: always; ``False``: never;
    * ``expose_tool_errors``: put a failing tool's exception text in its result (default: only
      when the endpoint runs with ``debug``; a ``ToolError``'s message is always shown).
    """

    def __init__(
        self,
        model: Union[str, ModelProvider],
        *,
        system: Optional[str] = None,
        tools: Sequence[ToolLike] = (),
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        share_state: Optional[bool] = None,
        expose_tool_errors: Optional[bool] = None,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
    ) -> None:
        if isinstance(model, str):
            self.provider = provider_from_spec(model, base_url=base_url, api_key=api_key)
        elif isinstance(model, ModelProvider):
            if base_url is not None or api_key is not None:
                raise ProviderConfigError(
                    "base_url and api_key go with a PROVIDER:MODEL spec; give them to the "
                    f"provider instead ({type(model).__name__}(..., base_url=..., api_key=...))"
                )
            self.provider = model
        else:
            raise ProviderConfigError(
                "model must be a PROVIDER:MODEL spec or a ModelProvider, "
                f"got {type(model).__name__}"
            )
        if max_rounds < 1:
            raise ProviderConfigError(f"max_rounds must be at least 1, got {max_rounds}")
        self.system = system
        self.max_rounds = max_rounds
        self.share_state = share_state
        self.expose_tool_errors = expose_tool_errors
        self.tools: dict[str, FunctionTool] = {}
        for item in tools:
            backend = _as_tool(item)
            if backend.name in self.tools or backend.name == STATE_TOOL_NAME:
                raise ToolDefinitionError(f"two backend tools are named {backend.name!r}")
            self.tools[backend.name] = backend
        self._state_tool = state_tool()

    def __repr__(self) -> str:
        return f"ModelAgent({self.provider!r}, tools={sorted(self.tools)})"

    def capabilities(self) -> AgentCapabilities:
        """What this agent offers, for ``create_app(agent, capabilities=agent.capabilities())``
        (served at ``GET <path>/capabilities``)."""
        api = self.provider.api
        encrypted = api in ("anthropic", "openai-responses")
        return AgentCapabilities(
            identity=IdentityCapabilities(
                name=self.provider.model, type=api, provider=self.provider.provider
            ),
            transport=TransportCapabilities(streaming=True),
            tools=ToolsCapabilities(
                supported=True,
                items=[tool.definition for tool in self.tools.values()],
                parallel_calls=True,
                client_provided=True,
            ),
            state=StateCapabilities(snapshots=False, deltas=self.share_state is not False),
            reasoning=ReasoningCapabilities(supported=True, streaming=True, encrypted=encrypted),
            multimodal=MultimodalCapabilities(
                input=MultimodalInputCapabilities(
                    image=True, audio=api == "openai", video=False, pdf=True, file=True
                )
            ),
            execution=ExecutionCapabilities(max_iterations=self.max_rounds),
        )

    async def aclose(self) -> None:
        """Close the provider client's connections (e.g. in the app's lifespan, on shutdown)."""
        await self.provider.aclose()

    # -- one run ----------------------------------------------------------------------------

    async def __call__(self, run_input: RunAgentInput, ctx: RunContext) -> None:
        # RUN_STARTED before the model is asked: its first token can take seconds, and the
        # client should see the run begin now.
        await ctx.start()
        backend = dict(self.tools)
        sharing = self._shares_state(run_input)
        if sharing:
            backend[STATE_TOOL_NAME] = self._state_tool
        frontend = {tool.name: tool for tool in run_input.tools}
        clashing = sorted(set(frontend) & set(backend))
        if clashing:
            raise RunError(
                f"the request offers tools named like the agent's own: {', '.join(clashing)}; "
                "rename them on one side",
                code=TOOL_NAME_CONFLICT_CODE,
            )
        definitions: list[Tool] = [tool.definition for tool in backend.values()]
        definitions += run_input.tools
        history: list[Message] = prepare_messages(run_input.messages)
        usage: list[TokenUsage] = []
        legacy_values = predates_value_types(run_input.protocol_version)
        for _ in range(self.max_rounds):
            conversation = Conversation(
                messages=history,
                system=system_text(
                    self.system,
                    run_input.context,
                    state=ctx.state.current if sharing else None,
                    share_state=sharing,
                    state_tool=STATE_TOOL_NAME,
                ),
                tools=definitions,
            )
            turn = await self._turn(conversation, ctx, legacy_values=legacy_values)
            if turn.usage is not None:
                usage.append(turn.usage)
            history.extend(turn.messages)
            self._check_stop(turn)
            if not turn.tool_calls:
                if turn.stop_reason == "pause_turn":
                    continue  # the API paused a long turn; sending it back resumes it
                await ctx.finish(usage=aggregate_token_usage(usage) or None)
                return
            history.extend(await self._run_backend_tools(turn.tool_calls, backend, frontend, ctx))
            pending = [call.id for call in turn.tool_calls if call.function.name in frontend]
            if pending:
                await ctx.finish(
                    outcome=RunFinishedSuccessOutcome(pending_tool_call_ids=pending),
                    usage=aggregate_token_usage(usage) or None,
                )
                return
        raise RunError(
            f"the model was still calling tools after {self.max_rounds} rounds "
            f"(max_rounds={self.max_rounds})",
            code=MAX_ROUNDS_CODE,
        )

    def _shares_state(self, run_input: RunAgentInput) -> bool:
        if self.share_state is not None:
            return self.share_state
        return run_input.state not in (None, {}, [], "")

    def _check_stop(self, turn: Turn) -> None:
        provider = self.provider.provider
        if turn.stop_reason == "max_tokens":
            raise failure("max_tokens_reached", provider)
        if turn.stop_reason == "content_filter":
            raise failure("content_filtered", provider)

    async def _turn(
        self, conversation: Conversation, ctx: RunContext, *, legacy_values: bool = False
    ) -> Turn:
        """Stream one model turn to the client; returns what it produced (the turn's own
        messages keep their typed values: the next round's request reads both forms)."""
        shaped = for_client_before_1_1 if legacy_values else _as_it_is
        provider = self.provider
        request = provider.build_request(conversation)
        adapter = provider.adapter(message_id=ctx.new_id("msg"), new_id=ctx.new_id, debug=ctx.debug)
        stream: Optional[ModelStream] = None
        streaming = False
        telemetry = telemetry_switch.current
        call: Optional[ModelCall] = None
        if telemetry is not None:
            call = telemetry.model_call(
                provider=provider.provider,
                model=provider.model,
                system=conversation.system,
                messages=conversation.messages,
            )
        try:
            stream = await open_within_budget(provider, request, debug=ctx.debug)
            async for chunk in stream:
                streaming = True
                try:
                    events = adapter.feed(chunk)
                except ProviderError:
                    raise
                except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
                    # JSON of a shape the API does not send; logged whole, in case the adapter
                    # is the one at fault.
                    logger.warning("run %s: unreadable stream event %r", ctx.run_id, chunk)
                    raise unreadable(provider.provider, exc, debug=ctx.debug) from exc
                if call is not None and events:
                    call.first_output()
                for event in events:
                    await ctx.emit(shaped(event))
            if not streaming:  # nothing could be read: say so if the answer was no stream
                wrong = not_an_event_stream(stream, provider.provider, debug=ctx.debug)
                if wrong is not None:
                    raise wrong
            closing = adapter.close()
        except ProviderError as exc:
            logger.warning("run %s: %s (%s)", ctx.run_id, exc.code, exc.detail or exc.message)
            if call is not None:
                call.fail(exc.code, exc.message)
            raise
        except Exception as exc:
            error = provider.classify(exc, debug=ctx.debug, streaming=streaming)
            if call is not None:
                call.fail(error.code if error is not None else type(exc).__qualname__, str(exc))
            if error is None:
                raise
            logger.warning(
                "run %s: model provider %s failed: %s", ctx.run_id, provider.where, described(exc)
            )
            raise error from exc
        except BaseException:  # cancelled: the client left, the time limit passed
            if call is not None:
                call.fail("cancelled", "the run was cancelled during the model call")
            raise
        finally:
            if stream is not None:
                # Shielded: when the client left, the run is being cancelled, and the provider's
                # connection must still be closed (it stops generating, and billing).
                with anyio.move_on_after(_CLOSE_TIMEOUT, shield=True):
                    await stream.close()
        turn = adapter.turn
        if call is not None:
            call.finish(stop_reason=turn.stop_reason, usage=turn.usage, output=turn.messages)
        for event in closing:
            await ctx.emit(shaped(event))
        return turn

    async def _run_backend_tools(
        self,
        calls: list[ToolCall],
        backend: dict[str, FunctionTool],
        frontend: dict[str, Tool],
        ctx: RunContext,
    ) -> list[Message]:
        """Run the backend calls (concurrently), send their results in call order."""
        expose = self.expose_tool_errors if self.expose_tool_errors is not None else ctx.debug
        answered = [call for call in calls if call.function.name not in frontend]
        results: list[Optional[ToolResult]] = [None] * len(answered)

        async def run(index: int, call: ToolCall) -> None:
            tool = backend.get(call.function.name)
            telemetry = telemetry_switch.current
            if telemetry is None:
                results[index] = await _answer(tool, call)
                return
            with telemetry.tool(call.function.name, call.id, call.function.arguments) as span:
                result = results[index] = await _answer(tool, call)
                span.done(result.content, result.error)

        async def _answer(tool: Optional[FunctionTool], call: ToolCall) -> ToolResult:
            if tool is None:
                return _unknown_tool(call, [*backend, *frontend])
            return await tool.run(call.function.arguments, context=ctx, expose_errors=expose)

        async with anyio.create_task_group() as tasks:
            for index, call in enumerate(answered):
                tasks.start_soon(run, index, call)
        messages: list[Message] = []
        for call, result in zip(answered, results, strict=True):
            assert result is not None
            message_id = await ctx.tool_result(call.id, result.content)
            # A failure is the message's error (the APIs mark it: is_error, "Error: ..."); its
            # text is the content the client got, so it is not repeated.
            messages.append(
                ToolMessage(
                    id=message_id,
                    tool_call_id=call.id,
                    content="" if result.error else result.content,
                    error=result.error,
                )
            )
        return messages
