"""``HttpAgent``: run an AG-UI agent over HTTP and keep its conversation (§6.6, §6.7).

The agent is composed of three objects, each owning its state: the ``HttpConfig`` (immutable;
assigning a setting replaces it), the ``Conversation`` (messages, state, open interrupts, the
edits that notify) and, while it runs, one ``Run`` (subscribers, pipeline, result). The agent
wires them together and owns the rest: the subscriber and middleware lists and the HTTP client.
Its faces for the settings (``_config.HttpSettings``), the conversation
(``_agent_conversation``), the client-side tools (``_agent_tools``) and the HTTP client
(``_agent_http``) are its base classes, one concept each; the runs are here.

>>> agent = HttpAgent("http://127.0.0.1:8000/agent")
>>> # result = await agent.run_agent()            # messages and state now updated
>>> # async with agent.stream() as events:        # or watch each event as it arrives
>>> #     async for event in events: ...
>>> @agent.tool                                    # a client-side tool: run_agent answers
... def get_location() -> str:                     # the agent's calls and runs again
...     return "Lisbon"
"""

from __future__ import annotations

import copy
import functools
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional

from ag_ui.client._agent_conversation import AgentConversation
from ag_ui.client._agent_http import AgentHttpClient
from ag_ui.client._agent_tools import AgentTools
from ag_ui.client._config import HttpConfig, HttpSettings, ReconnectCallback
from ag_ui.client._conversation import Conversation, MessageLike
from ag_ui.client._debug import DebugOption, resolve_debug
from ag_ui.client._event_stream import AgentEventStream
from ag_ui.client._http_source import ConnectTarget, http_events
from ag_ui.client._input import ContextLike, ResumeLike, ToolLike, build_input
from ag_ui.client._interrupts import check_resume_covers
from ag_ui.client._middleware import MiddlewareLike, chain
from ag_ui.client._reconnect import ReconnectPolicy
from ag_ui.client._result import RunAgentResult
from ag_ui.client._run import EventSource, Run, RunSlot
from ag_ui.client._signal import AbortSignal
from ag_ui.client._subscribers import (
    AgentSubscriber,
    Callback,
    SubscriberLike,
    Subscription,
    as_subscriber,
)
from ag_ui.client._tools import ClientTools, ToolHandler
from ag_ui.client.downgrade import downgrade_middlewares
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import ToolRoundsExceededError
from ag_ui.core.types import RunAgentInput, Tool
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE

if TYPE_CHECKING:
    import httpx

__all__ = ["HttpAgent"]


class HttpAgent(HttpSettings, AgentConversation, AgentTools, AgentHttpClient):
    """A remote AG-UI agent reached with one POST per run, plus the conversation it builds.

    ``messages`` and ``state`` are updated as events arrive (decode -> compatibility -> chunks
    -> verify -> apply). Pass ``http_client`` to reuse an ``httpx.AsyncClient`` (never closed
    by the agent); otherwise each run opens and closes its own, or ``async with HttpAgent(...)``
    keeps one open (connection reuse) until the block ends. ``timeout`` bounds connecting
    and sending; ``idle_timeout`` bounds the silence between two reads of the event stream
    (keepalive comments count), ``None`` waits forever. ``proto=True`` asks for protobuf frames
    (SSE stays acceptable as a fallback). ``strict`` makes a protocol violation fatal;
    ``strict_draft`` makes the draft specification's rules fatal too (a RUN_FINISHED naming
    another run or thread, a second run on another thread, duplicate interrupt ids; warned
    about by default: ``ag_ui.verify.DraftRuleWarning``).

    Against a server with detached runs (docs/resume.md) a dropped connection is reopened at
    ``<url>/connect`` from the last event received, following ``reconnect`` (a
    ``ReconnectPolicy``; ``ReconnectPolicy(max_attempts=0)`` turns it off); ``on_reconnect``
    (sync or async) is told about each attempt and ``reconnects`` counts them per run.

    ``debug`` (``True``, a ``DebugConfig`` or a dict of its fields) logs each event and the run's
    lifecycle at ``DEBUG`` on the ``ag_ui.client.events`` / ``ag_ui.client.lifecycle`` loggers
    (``ag_ui.client.debug``).

    ``max_protocol_version`` is the newest protocol the agent is known to speak (TypeScript's
    ``maxProtocolVersion``); pin an older backend (``"0.0.39"``) to stop declaring
    ``protocolVersion`` and to install the downgrades of ``ag_ui.client.downgrade``.

    The HTTP settings form one immutable ``HttpConfig`` (``config``); assigning one of them
    (``agent.proto = True``) replaces it, and a run under way keeps the one it started with.

    ``tools`` are client-side (frontend) tools: functions (sync or async) or ``ag_ui.tools``
    ``FunctionTool``s (``@tool``), also added later with ``add_tool`` or the ``@agent.tool``
    decorator. Their definitions go with every run; when a run ends with calls to them,
    ``run_agent`` runs the handlers, appends the ``ToolMessage``s and runs again, at most
    ``max_tool_rounds`` times per call (then ``ToolRoundsExceededError``). Calls of other tools
    stay pending in ``result.pending_tool_calls`` for the application (``add_tool_result``).
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        http_client: Optional[httpx.AsyncClient] = None,
        agent_id: Optional[str] = None,
        description: str = "",
        thread_id: Optional[str] = None,
        initial_messages: Optional[Iterable[MessageLike]] = None,
        initial_state: Any = None,
        timeout: float = 30.0,
        idle_timeout: Optional[float] = 300.0,
        proto: bool = False,
        max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
        strict: bool = True,
        strict_draft: bool = False,
        reconnect: Optional[ReconnectPolicy] = None,
        on_reconnect: Optional[ReconnectCallback] = None,
        debug: DebugOption = False,
        max_protocol_version: str = SPOKEN_PROTOCOL_VERSION,
        tools: Iterable[ToolHandler] = (),
        max_tool_rounds: int = 10,
    ) -> None:
        self.config = HttpConfig(
            url,
            headers=dict(headers or {}),
            timeout=timeout,
            idle_timeout=idle_timeout,
            proto=proto,
            max_event_size=max_event_size,
            strict=strict,
            strict_draft=strict_draft,
            reconnect=reconnect if reconnect is not None else ReconnectPolicy(),
            on_reconnect=on_reconnect,
            debug=resolve_debug(debug),
            max_protocol_version=max_protocol_version,
        )
        self.http_client = http_client
        self.agent_id = agent_id or str(uuid.uuid4())
        self.description = description
        self.thread_id = thread_id or str(uuid.uuid4())
        self.subscribers: list[object] = []
        self.middlewares: list[MiddlewareLike] = []
        self._conversation = Conversation(
            self, self.subscribers, messages=initial_messages or (), state=initial_state
        )
        self._runs = RunSlot()
        self._owns_client = False
        self._tools = ClientTools(tools)
        self.max_tool_rounds = max_tool_rounds

    def subscribe(
        self, subscriber: Optional[SubscriberLike] = None, **callbacks: Callback
    ) -> Subscription:
        """Add a subscriber (an object, or a ``{"on_event": fn}`` mapping), or callbacks as
        keywords (``on_event=print``)."""
        if subscriber is None:
            subscriber = AgentSubscriber(**callbacks)
        elif callbacks:
            raise TypeError("pass a subscriber object or callbacks, not both")
        added = as_subscriber(subscriber)
        self.subscribers.append(added)
        return Subscription(self.subscribers, added)

    def use(self, *middlewares: MiddlewareLike) -> HttpAgent:
        """Append middlewares (objects or ``fn(input, next)`` async generators); chainable."""
        self.middlewares.extend(middlewares)
        return self

    def clone(self) -> HttpAgent:
        """A copy with the same configuration, thread and subscribers, and its own copies of
        messages, state and pending interrupts (no active run)."""
        twin = copy.copy(self)
        twin.subscribers = list(self.subscribers)
        twin.middlewares = list(self.middlewares)
        twin._conversation = self._conversation.copy(twin, twin.subscribers)
        twin._runs = RunSlot()
        twin._tools = self._tools.copy()
        twin._owns_client = False  # a shared client stays the original's to close
        return twin

    # -- client-side tools ---------------------------------------------------------------

    # -- running -------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        """True while a run of this agent is active."""
        return self._runs.current is not None

    @property
    def reconnects(self) -> int:
        """Reconnects during the current (or last) run."""
        last = self._runs.last
        return 0 if last is None else last.reconnects

    def abort_run(self) -> None:
        """Stop the active run: the connection is closed and the run returns ``aborted``."""
        if self._runs.current is not None:
            self._runs.current.signal.abort()

    def prepare_input(
        self,
        *,
        run_id: Optional[str] = None,
        tools: Optional[Sequence[ToolLike]] = None,
        context: Optional[Sequence[ContextLike]] = None,
        forwarded_props: Any = None,
        resume: Optional[Sequence[ResumeLike]] = None,
        parent_run_id: Optional[str] = None,
    ) -> RunAgentInput:
        """The ``RunAgentInput`` a run would send (activity messages are client-only).

        ``tools`` are sent after the registered client-side tools' definitions.
        """
        extra = [
            tool if isinstance(tool, Tool) else Tool.model_validate(tool) for tool in tools or ()
        ]
        return build_input(
            self._conversation.agent_state,
            thread_id=self.thread_id,
            peer_ceiling=self.config.peer_ceiling,
            run_id=run_id,
            tools=self._tools.definitions(extra),
            context=context,
            forwarded_props=forwarded_props,
            resume=resume,
            parent_run_id=parent_run_id,
        )

    def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]:
        """The raw events of one run as the transport decodes them (no middleware, no
        pipeline); override to source events elsewhere."""
        run = self._runs.current
        if run is None:  # called directly, outside run_agent/stream
            return http_events(self.config, self.http_client, input, AbortSignal())
        return http_events(run.config, self.http_client, input, run.signal, run.reconnected)

    def stream(
        self,
        *,
        run_id: Optional[str] = None,
        tools: Optional[Sequence[ToolLike]] = None,
        context: Optional[Sequence[ContextLike]] = None,
        forwarded_props: Any = None,
        resume: Optional[Sequence[ResumeLike]] = None,
        subscriber: Optional[SubscriberLike] = None,
    ) -> AgentEventStream:
        """Start a run and iterate its processed events (chunks expanded, verified, applied).

        Use ``async with agent.stream() as events: async for event in events: ...`` so leaving
        early closes the connection; plain ``async for event in agent.stream()`` works too.
        ``events.result`` holds the ``RunAgentResult`` once the stream is exhausted.
        """
        config = self.config

        def prepare() -> RunAgentInput:
            input = self.prepare_input(
                run_id=run_id,
                tools=tools,
                context=context,
                forwarded_props=forwarded_props,
                resume=resume,
            )
            check_resume_covers(self.pending_interrupts, input.resume)
            return input

        def source(input: RunAgentInput) -> AsyncIterator[AnyEvent]:
            layers = [*downgrade_middlewares(config.peer_ceiling), *self.middlewares]
            # The agent itself is the innermost layer: its run(input) is the request.
            return chain(layers, self).run(input)

        return AgentEventStream(self._new_run(config, subscriber, prepare, source))

    async def run_agent(
        self,
        *,
        run_id: Optional[str] = None,
        tools: Optional[Sequence[ToolLike]] = None,
        context: Optional[Sequence[ContextLike]] = None,
        forwarded_props: Any = None,
        resume: Optional[Sequence[ResumeLike]] = None,
        subscriber: Optional[SubscriberLike] = None,
    ) -> RunAgentResult:
        """Run the agent and return the ``RunAgentResult``.

        When the run ends with calls of registered client-side tools, their handlers run (in
        the order of the calls), their ``ToolMessage``s are appended and the agent runs again
        with the same ``tools``, ``context``, ``forwarded_props`` and ``subscriber`` (a new run
        id, no ``resume``), up to ``max_tool_rounds`` follow-up runs. Calls of other tools stay
        pending (``result.pending_tool_calls``): the registered ones among them are answered,
        and the loop stops for the application to answer the rest. Interrupts are never
        answered here: they end the loop like any other outcome.

        Raises ``RunError`` (after subscribers saw RUN_ERROR), ``IncompleteStreamError``,
        ``HTTPStatusError``, ``ContentTypeError``, ``DecodeError``, ``ProtocolError`` (strict),
        ``IdleTimeoutError``, ``TransportError``, ``InterruptError`` or
        ``ToolRoundsExceededError``.
        """
        known = {message.id for message in self.messages}
        # The later rounds run with the same tools, context and props (a new run id, no resume).
        stream = functools.partial(
            self.stream,
            tools=tools,
            context=context,
            forwarded_props=forwarded_props,
            subscriber=subscriber,
        )

        def finish(result: RunAgentResult, rounds: int) -> RunAgentResult:
            result.tool_rounds = rounds
            result.new_messages = [m for m in self.messages if m.id not in known]
            return result

        result = await _drain(stream(run_id=run_id, resume=resume))
        rounds = 0
        while result.outcome_type == "success":
            calls = self._tools.answerable(result.pending_tool_calls)
            if not calls:
                break
            if rounds >= self.max_tool_rounds:
                raise ToolRoundsExceededError(self.max_tool_rounds, calls, finish(result, rounds))
            self.add_messages([await self._tools.answer(call) for call in calls])
            others = [call for call in result.pending_tool_calls if call not in calls]
            if others:  # the application answers these: stop here, with only them pending
                result.pending_tool_calls = others
                result.pending_tool_call_ids = [call.id for call in others]
                break
            rounds += 1
            result = await _drain(stream())
        return finish(result, rounds)

    async def connect_agent(
        self,
        *,
        last_event_id: Optional[str] = None,
        run_key: Optional[str] = None,
        thread_id: Optional[str] = None,
        subscriber: Optional[SubscriberLike] = None,
    ) -> RunAgentResult:
        """Attach to a detached run (running or finished) and process its events like a run.

        ``last_event_id`` (``"<resume key>:<position>"``) resumes after that event; ``run_key``
        reads the run from its start; with neither, the thread's stored history arrives
        compacted (``thread_id`` defaults to the agent's), then whatever is still running.
        Joining in the middle of a run skips the client's sequence verifier (it would miss
        the run's opening events; the server's guard verified them).
        ``GET <url>/connect`` (docs/resume.md); no middleware, as in TypeScript.
        """
        return await _drain(
            self.stream_connect(
                last_event_id=last_event_id,
                run_key=run_key,
                thread_id=thread_id,
                subscriber=subscriber,
            )
        )

    async def load_thread(
        self, thread_id: str, *, subscriber: Optional[SubscriberLike] = None
    ) -> RunAgentResult:
        """Continue the stored thread ``thread_id``: the agent takes the thread id and the
        server's stored messages and state replace its own (``GET <url>/connect?threadId=``,
        served by an ``AgentEndpoint(threads=...)``: docs/threads.md). The next ``run_agent``
        goes on with that conversation. A thread the server does not have for these
        credentials is an ``HTTPStatusError`` 404."""
        previous, self.thread_id = self.thread_id, thread_id
        try:
            return await self.connect_agent(thread_id=thread_id, subscriber=subscriber)
        except BaseException:
            self.thread_id = previous
            raise

    def stream_connect(
        self,
        *,
        last_event_id: Optional[str] = None,
        run_key: Optional[str] = None,
        thread_id: Optional[str] = None,
        subscriber: Optional[SubscriberLike] = None,
    ) -> AgentEventStream:
        """``connect_agent`` as an ``AgentEventStream`` of processed events."""
        target = ConnectTarget.of(
            last_event_id=last_event_id, run_key=run_key, thread_id=thread_id or self.thread_id
        )

        def prepare() -> RunAgentInput:
            input = self.prepare_input()
            check_resume_covers(self.pending_interrupts, input.resume)
            return input

        def source(input: RunAgentInput) -> AsyncIterator[AnyEvent]:
            run = self._runs.current
            assert run is not None  # a source is opened by its running run
            return http_events(run.config, self.http_client, target, run.signal, run.reconnected)

        run = self._new_run(
            self.config, subscriber, prepare, source, joins_mid_run=target.joins_mid_run
        )
        return AgentEventStream(run)

    def _new_run(
        self,
        config: HttpConfig,
        subscriber: Optional[SubscriberLike],
        prepare: Callable[[], RunAgentInput],
        source: EventSource,
        *,
        joins_mid_run: bool = False,
    ) -> Run:
        extra = [] if subscriber is None else [as_subscriber(subscriber)]
        return Run(
            self,
            conversation=self._conversation,
            config=config,
            subscribers=[*self.subscribers, *extra],
            slot=self._runs,
            prepare=prepare,
            source=source,
            joins_mid_run=joins_mid_run,
        )


async def _drain(events: AgentEventStream) -> RunAgentResult:
    async with events:
        async for _ in events:
            pass
    assert events.result is not None
    return events.result
