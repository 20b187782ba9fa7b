"""``LangGraphAgent``: a compiled LangGraph graph as an ``ag_ui.server`` agent.

The run's input becomes the graph's input (new messages, state keys the graph has) or a
``Command(resume=...)`` answering the checkpoint's open interrupts; the graph's stream becomes
AG-UI events (``_stream.StreamTranslator``); an interrupt ends the run with the protocol's
``interrupt`` outcome. Everything else (``RUN_STARTED``/``RUN_FINISHED`` with the input's ids,
one terminal event, a raising node as ``RUN_ERROR``, verification) is the server's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Optional

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from ag_ui.adapters._resume import answers_to_open
from ag_ui.adapters.langgraph._interrupts import to_agui_interrupt
from ag_ui.adapters.langgraph._messages import to_langchain
from ag_ui.adapters.langgraph._stream import StreamTranslator
from ag_ui.core.capabilities import (
    AgentCapabilities,
    HumanInTheLoopCapabilities,
    IdentityCapabilities,
    MultiAgentCapabilities,
    StateCapabilities,
    TransportCapabilities,
)
from ag_ui.core.errors import RunError
from ag_ui.core.types import ResumeEntry, RunAgentInput
from ag_ui.server import RunContext

__all__ = ["LangGraphAgent", "client_tools", "default_resume_value", "run_input_of"]

# Where a node finds the AG-UI input of its run (configurable keys starting with "__" are kept
# out of LangGraph's checkpoint metadata).
RUN_INPUT_KEY = "__ag_ui_run_input"

STREAM_MODES = ["messages", "updates", "values", "custom"]


def run_input_of(config: Mapping[str, Any]) -> Optional[RunAgentInput]:
    """The AG-UI ``RunAgentInput`` of the run a node runs in (``None`` outside one): its
    ``tools``, ``context``, ``forwarded_props``. A node takes ``config: RunnableConfig`` as its
    second parameter to get it."""
    found = (config.get("configurable") or {}).get(RUN_INPUT_KEY)
    return found if isinstance(found, RunAgentInput) else None


def client_tools(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tools the client offered for this run, in the OpenAI function format every LangChain
    chat model's ``bind_tools`` takes. The graph does not run them: a call to one ends the run
    with the call pending (route it to ``END``), and the client sends the result with its next
    message."""
    found = run_input_of(config)
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters or {"type": "object", "properties": {}},
            },
        }
        for tool in (found.tools if found is not None else [])
    ]


def default_resume_value(entry: ResumeEntry) -> Any:
    """What ``interrupt()`` returns in the graph: the payload of a ``resolved`` answer,
    ``None`` for a ``cancelled`` one."""
    return entry.payload if entry.status == "resolved" else None


class LangGraphAgent:
    """Serves a compiled graph: ``create_app(LangGraphAgent(graph))``.

    ``graph``: a compiled graph (``StateGraph(...).compile(checkpointer=...)``); without a
    checkpointer it runs, but cannot interrupt or resume, and sees the whole history each run.
    ``config``: merged into every run's config (``configurable.thread_id`` is the run's
    ``threadId``). ``messages_key``: the state key holding the conversation (left out of the
    AG-UI state). ``resume_value``: turns an AG-UI ``ResumeEntry`` into the value ``interrupt()``
    returns. ``emit_raw``: also send each stream part as ``RAW`` (off: it carries prompts).
    """

    def __init__(
        self,
        graph: Any,
        *,
        config: Optional[Mapping[str, Any]] = None,
        messages_key: str = "messages",
        resume_value: Callable[[ResumeEntry], Any] = default_resume_value,
        emit_raw: bool = False,
    ) -> None:
        if not hasattr(graph, "astream") or not hasattr(graph, "aget_state"):
            raise TypeError(
                f"LangGraphAgent needs a compiled graph (StateGraph(...).compile()), "
                f"got {type(graph).__name__}"
            )
        self.graph = graph
        self.config = dict(config or {})
        self.messages_key = messages_key
        self.resume_value = resume_value
        self.emit_raw = emit_raw

    def run_config(
        self, thread_id: str, run_input: Optional[RunAgentInput] = None
    ) -> RunnableConfig:
        """The graph config of a run on ``thread_id``; with the run's input, nodes read its
        client tools and context through ``client_tools(config)`` and ``run_input(config)``."""
        configurable = {**dict(self.config.get("configurable") or {}), "thread_id": thread_id}
        if run_input is not None:
            configurable[RUN_INPUT_KEY] = run_input
        return RunnableConfig(**{**self.config, "configurable": configurable})  # type: ignore[typeddict-item]

    def capabilities(self) -> AgentCapabilities:
        """What the graph can do, for ``GET <path>/capabilities``: streaming, state snapshots
        and deltas, subgraphs as subagents; interrupts and memory with a checkpointer."""
        checkpointed = self.has_checkpointer
        name = getattr(self.graph, "name", None)
        return AgentCapabilities(
            identity=IdentityCapabilities(name=name or None, type="langgraph"),
            transport=TransportCapabilities(streaming=True),
            state=StateCapabilities(snapshots=True, deltas=True, memory=checkpointed),
            multi_agent=MultiAgentCapabilities(supported=True),
            human_in_the_loop=HumanInTheLoopCapabilities(
                supported=checkpointed, interrupts=checkpointed
            ),
        )

    async def aclose(self) -> None:
        """Nothing to release (the graph and its checkpointer are the application's)."""

    @property
    def has_checkpointer(self) -> bool:
        return bool(getattr(self.graph, "checkpointer", None))

    async def checkpoint(self, thread_id: str) -> Any:
        """The thread's latest ``StateSnapshot``, or ``None`` without a checkpointer."""
        if not self.has_checkpointer:
            return None
        return await self.graph.aget_state(self.run_config(thread_id))

    async def __call__(self, run_input: RunAgentInput, ctx: RunContext) -> None:
        await ctx.start()
        config = self.run_config(run_input.thread_id, run_input)
        snapshot = await self.checkpoint(run_input.thread_id)
        history = list((snapshot.values or {}).get(self.messages_key) or []) if snapshot else []
        known_ids = {m.id for m in history if getattr(m, "id", None)}
        known_calls = {
            call["id"]
            for message in history
            for call in getattr(message, "tool_calls", None) or ()
            if call.get("id")
        }
        open_interrupts = list(snapshot.interrupts) if snapshot else []
        graph_input = self._input(run_input, open_interrupts, known_ids)
        translator = StreamTranslator(
            ctx,
            messages_key=self.messages_key,
            known_message_ids=known_ids,
            known_tool_call_ids=known_calls,
            emit_raw=self.emit_raw,
        )
        try:
            async for namespace, mode, chunk in self.graph.astream(
                graph_input, config, stream_mode=STREAM_MODES, subgraphs=True
            ):
                await translator.feed(namespace, mode, chunk)
        except Exception as exc:
            await translator.fail(exc)
            raise
        interrupts = list(translator.interrupts.values())
        if not interrupts and self.has_checkpointer:
            after = await self.checkpoint(run_input.thread_id)
            interrupts = list(after.interrupts) if after is not None else []
        await translator.close(interrupted=bool(interrupts))
        if interrupts:
            lanes = translator.interrupt_lanes
            await ctx.interrupt(
                *(to_agui_interrupt(i, subagent_run_id=lanes.get(str(i.id))) for i in interrupts)
            )

    def _input(
        self, run_input: RunAgentInput, open_interrupts: list[Any], known_ids: set[str]
    ) -> Any:
        open_ids = [str(i.id) for i in open_interrupts]
        if run_input.resume:
            return Command(resume=self._resume_map(run_input.resume, open_ids))
        if open_ids:
            raise RunError(
                f"thread {run_input.thread_id!r} is waiting on interrupt(s) "
                f"{', '.join(open_ids)}: answer them in the input's resume",
                code="interrupt_pending",
            )
        channels = set(getattr(self.graph, "channels", {}) or {})
        graph_input: dict[str, Any] = {}
        if not channels or self.messages_key in channels:  # a graph without a conversation
            new = [m for m in run_input.messages if m.id not in known_ids]
            graph_input[self.messages_key] = to_langchain(new)
        if isinstance(run_input.state, Mapping):
            for key, value in run_input.state.items():
                if key != self.messages_key and key in channels and not key.startswith("__"):
                    graph_input[key] = value
        return graph_input

    def _resume_map(self, resume: list[ResumeEntry], open_ids: list[str]) -> dict[str, Any]:
        if not open_ids:
            raise RunError(
                "the input resumes interrupts, but the thread has none open "
                "(no checkpointer, or they were answered already): start a run without resume",
                code="no_open_interrupt",
            )
        answers = answers_to_open(resume, open_ids)
        return {interrupt_id: self.resume_value(entry) for interrupt_id, entry in answers.items()}
