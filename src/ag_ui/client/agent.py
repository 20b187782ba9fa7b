"""``HttpAgent``: run an AG-UI agent over HTTP and keep its conversation (§6.6, §6.7).

>>> agent = HttpAgent("http://127.0.0.1:8000/agent")
>>> # result = await agent.run_agent()            # messages and state now updated
>>> # async with agent.stream() as events:        # or watch each event as it arrives
>>> #     async for event in events: ...
"""

from __future__ import annotations

import asyncio
import copy
import uuid
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from typing import Any, Optional, Union

import anyio
import httpx

from ag_ui.apply import AgentState
from ag_ui.client._connect import ConnectMixin
from ag_ui.client._conversation import ConversationMixin
from ag_ui.client._http_events import http_events
from ag_ui.client._messages import as_message
from ag_ui.client._pipeline import RunPipeline
from ag_ui.client._run import RunProcessor, finalize_run, initialize_run, report_failure
from ag_ui.client.debug import DebugConfig, DebugLog, DebugOption, resolve_debug
from ag_ui.client.downgrade import downgrade_middlewares
from ag_ui.client.event_stream import AgentEventStream, closing
from ag_ui.client.interrupts import check_resume_covers
from ag_ui.client.middleware import MiddlewareLike, chain
from ag_ui.client.reconnect import Reconnect, ReconnectPolicy
from ag_ui.client.result import RunAgentResult
from ag_ui.client.subscriber import (
    AgentSubscriber,
    Subscription,
    as_subscriber,
)
from ag_ui.client.transport import (
    AbortSignal,
    ConnectionLostError,
    fetch_capabilities,
    new_http_client,
)
from ag_ui.client.versions import parse_version
from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import AGUIError, IncompleteStreamError, TransportError
from ag_ui.core.types import Context, Interrupt, Message, ResumeEntry, RunAgentInput, Tool
from ag_ui.core.version import PROTOCOL_VERSION
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE

__all__ = ["HttpAgent"]

ToolLike = Union[Tool, Mapping[str, Any]]
ContextLike = Union[Context, Mapping[str, Any]]
ResumeLike = Union[ResumeEntry, Mapping[str, Any]]


class _Transport:
    """The innermost layer of the middleware chain: ``agent.run(input)``, the request itself."""

    def __init__(self, agent: HttpAgent) -> None:
        self.agent = agent

    def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]:
        return self.agent.run(input)


def _log_run_end(
    log: DebugLog, agent: HttpAgent, result: RunAgentResult, failure: Optional[BaseException]
) -> None:
    # As in TypeScript, "finished" closes every run, after "errored" when it failed.
    if failure is not None:
        log.lifecycle("LIFECYCLE", "Run errored:", agentId=agent.agent_id, error=str(failure))
    elif result.aborted:
        log.lifecycle("LIFECYCLE", "Run aborted:", agentId=agent.agent_id)
    log.lifecycle(
        "LIFECYCLE",
        "Run finished:",
        agentId=agent.agent_id,
        threadId=agent.thread_id,
        runId=result.run_id,
    )


class HttpAgent(ConversationMixin, ConnectMixin):
    """A remote AG-UI agent reached with one POST per run, plus the conversation it builds.

    ``messages`` and ``state`` are updated as events arrive (decode -> compatibility -> chunks
    -> verify -> apply). Pass ``http_client`` to reuse an ``httpx.AsyncClient`` (never closed
    by the agent); otherwise each run opens and closes its own, or ``async with HttpAgent(...)``
    keeps one open (connection reuse) until the block ends. ``timeout`` bounds connecting
    and sending; ``idle_timeout`` bounds the silence between two reads of the event stream
    (keepalive comments count), ``None`` waits forever. ``proto=True`` asks for protobuf frames
    (SSE stays acceptable as a fallback). ``strict`` makes a protocol violation fatal.

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
        initial_messages: Optional[Iterable[Union[Message, Mapping[str, Any]]]] = None,
        initial_state: Any = None,
        timeout: float = 30.0,
        idle_timeout: Optional[float] = 300.0,
        proto: bool = False,
        max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
        strict: bool = True,
        reconnect: Optional[ReconnectPolicy] = None,
        on_reconnect: Optional[Callable[[Reconnect], Any]] = None,
        debug: DebugOption = False,
        max_protocol_version: str = PROTOCOL_VERSION,
    ) -> None:
        self.url = url
        self.headers: dict[str, str] = dict(headers or {})
        self.http_client = http_client
        self.agent_id = agent_id or str(uuid.uuid4())
        self.description = description
        self.thread_id = thread_id or str(uuid.uuid4())
        self._agent_state = AgentState(
            messages=[as_message(m) for m in initial_messages or []],
            state=copy.deepcopy(initial_state) if initial_state is not None else {},
        )
        self._typed: Optional[list[Message]] = None
        self._typed_for: Optional[AgentState] = None
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.proto = proto
        self.max_event_size = max_event_size
        self.strict = strict
        self.reconnect = reconnect if reconnect is not None else ReconnectPolicy()
        self.on_reconnect = on_reconnect
        self.debug = debug  # the setter resolves the option into a DebugConfig
        self.max_protocol_version = max_protocol_version  # validated by the setter
        self.reconnects = 0  # reconnects during the current (or last) run
        self.subscribers: list[Any] = []
        self.middlewares: list[MiddlewareLike] = []
        self.pending_interrupts: list[Interrupt] = []
        self.is_running = False
        self._signal: Optional[AbortSignal] = None
        self._owns_client = False
        self._background_notifications: set[asyncio.Task[None]] = set()

    # -- configuration -------------------------------------------------------------------

    @property
    def max_protocol_version(self) -> str:
        """The peer ceiling (``ag_ui.client.versions``); ``"1.0"`` unless pinned lower."""
        return self._max_protocol_version

    @max_protocol_version.setter
    def max_protocol_version(self, version: str) -> None:
        self._peer_ceiling = parse_version(version)  # raises ValueError before anything changes
        self._max_protocol_version = version

    @property
    def debug(self) -> DebugConfig:
        """What the agent logs (``ag_ui.client.debug``); assign any ``debug=`` option."""
        return self._debug

    @debug.setter
    def debug(self, option: DebugOption) -> None:
        self._debug = resolve_debug(option)
        self.debug_log: Optional[DebugLog] = DebugLog(self._debug) if self._debug.enabled else None

    def subscribe(self, subscriber: Any = None, **callbacks: Any) -> Subscription:
        """Add a subscriber (an object, or a ``{"on_event": fn}`` mapping), or callbacks as
        keywords (``on_event=print``)."""
        if subscriber is None:
            subscriber = AgentSubscriber(**callbacks)
        elif callbacks:
            raise TypeError("pass a subscriber object or callbacks, not both")
        subscriber = as_subscriber(subscriber)
        self.subscribers.append(subscriber)
        return Subscription(self, subscriber)

    def use(self, *middlewares: MiddlewareLike) -> HttpAgent:
        """Append middlewares (objects or ``fn(input, next)`` async generators); chainable."""
        self.middlewares.extend(middlewares)
        return self

    def clone(self) -> HttpAgent:
        """A copy with the same configuration, thread and subscribers, and its own copies of
        messages, state and pending interrupts (no active run)."""
        twin = copy.copy(self)
        twin.headers = dict(self.headers)
        self._sync_typed_messages()
        twin._typed = twin._typed_for = None
        twin._agent_state = self._agent_state  # immutable: sharing it is copying it
        twin.pending_interrupts = copy.deepcopy(self.pending_interrupts)
        twin.subscribers = list(self.subscribers)
        twin.middlewares = list(self.middlewares)
        twin.is_running = False
        twin._signal = None
        twin._owns_client = False  # a shared client stays the original's to close
        twin._background_notifications = set()
        return twin

    def abort_run(self) -> None:
        """Stop the active run: the connection is closed and the run returns ``aborted``."""
        if self._signal is not None:
            self._signal.abort()

    # -- running -------------------------------------------------------------------------

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
        """The ``RunAgentInput`` a run would send (activity messages are client-only)."""
        fields: dict[str, Any] = {
            "thread_id": self.thread_id,
            "run_id": run_id or str(uuid.uuid4()),
            "messages": [m for m in self._agent_state.messages if m.get("role") != "activity"],
            "tools": list(tools or []),
            "context": list(context or []),
            "state": copy.deepcopy(self.state),
        }
        # An agent pinned below 1.0 predates the field; a strict old parser may reject it.
        if self._peer_ceiling >= parse_version(PROTOCOL_VERSION):
            fields["protocol_version"] = PROTOCOL_VERSION
        if forwarded_props is not None:
            fields["forwarded_props"] = forwarded_props
        if resume is not None:
            fields["resume"] = list(resume)
        if parent_run_id is not None:
            fields["parent_run_id"] = parent_run_id
        return RunAgentInput.model_validate(fields)

    def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]:
        """The raw events of one run as the transport decodes them (no middleware, no
        pipeline); override to source events elsewhere."""
        return http_events(self, input, self._signal or AbortSignal())

    def stream(
        self,
        *,
        run_id: Optional[str] = None,
        tools: Optional[Sequence[ToolLike]] = None,
        context: Optional[Sequence[ContextLike]] = None,
        forwarded_props: Any = None,
        resume: Optional[Sequence[ResumeLike]] = None,
        subscriber: Any = None,
    ) -> AgentEventStream:
        """Start a run and iterate its processed events (chunks expanded, verified, applied).

        Use ``async with agent.stream() as events: async for event in events: ...`` so leaving
        early closes the connection; plain ``async for event in agent.stream()`` works too.
        ``events.result`` holds the ``RunAgentResult`` once the stream is exhausted.
        """
        return AgentEventStream(
            self,
            {
                "run_id": run_id,
                "tools": tools,
                "context": context,
                "forwarded_props": forwarded_props,
                "resume": resume,
            },
            subscriber,
        )

    async def run_agent(
        self,
        *,
        run_id: Optional[str] = None,
        tools: Optional[Sequence[ToolLike]] = None,
        context: Optional[Sequence[ContextLike]] = None,
        forwarded_props: Any = None,
        resume: Optional[Sequence[ResumeLike]] = None,
        subscriber: Any = None,
    ) -> RunAgentResult:
        """Run the agent once and return the ``RunAgentResult``.

        Raises ``RunError`` (after subscribers saw RUN_ERROR), ``IncompleteStreamError``,
        ``HTTPStatusError``, ``ContentTypeError``, ``DecodeError``, ``ProtocolError`` (strict),
        ``IdleTimeoutError``, ``TransportError`` or ``InterruptError``.
        """
        events = self.stream(
            run_id=run_id,
            tools=tools,
            context=context,
            forwarded_props=forwarded_props,
            resume=resume,
            subscriber=subscriber,
        )
        async with events:
            async for _ in events:
                pass
        assert events.result is not None
        return events.result

    async def _run(
        self, parameters: dict[str, Any], subscriber: Any, record: list[RunAgentResult]
    ) -> AsyncGenerator[Any, None]:
        if self.is_running:
            raise AGUIError("this agent is already running; clone() it for concurrent runs")
        self._sync_typed_messages()
        parameters = dict(parameters)
        connect: Optional[dict[str, str]] = parameters.pop("connect", None)
        input = self.prepare_input(**parameters)
        check_resume_covers(self.pending_interrupts, input.resume)
        extra = [] if subscriber is None else [as_subscriber(subscriber)]
        subscribers = [*self.subscribers, *extra]
        signal = self._signal = AbortSignal()
        result = RunAgentResult(run_id=input.run_id)
        record.append(result)
        known_ids = {message["id"] for message in self._agent_state.messages}
        self.is_running = True
        self.reconnects = 0
        processor: Optional[RunProcessor] = None
        failure: Optional[BaseException] = None
        log = self.debug_log
        if log is not None:
            log.lifecycle(
                "LIFECYCLE",
                "Run started:",
                agentId=self.agent_id,
                threadId=self.thread_id,
                runId=input.run_id,
            )
        try:
            input = await initialize_run(self, input, subscribers)
            # Joining a run in its middle: the verifier would miss RUN_STARTED and the opening
            # events (the server's guard verified the whole sequence).
            mid_run = connect is not None and not connect.get("lastEventId", ":0").endswith(":0")
            pipeline = RunPipeline(strict=self.strict and not mid_run, debug=log)
            processor = RunProcessor(self, subscribers, input, result)
            if connect is None:
                layers = [*downgrade_middlewares(self._peer_ceiling), *self.middlewares]
                source = chain(layers, _Transport(self)).run(input)
            else:
                source = http_events(self, None, signal, connect)
            async with closing(source):
                async for raw in source:
                    for event in pipeline.expand(raw):
                        await processor.process(event)
                        yield event
                        processor.raise_if_failed()
            if signal.aborted:
                result.aborted = True
            elif not processor.run_ended:
                raise IncompleteStreamError(
                    processor.describe_incomplete(), events_received=processor.count
                )
            else:
                pipeline.finish()
        except ConnectionLostError as exc:
            # The connection broke. After a terminal event nothing was lost: the run stands.
            if processor is None or not processor.run_ended:
                cut = IncompleteStreamError(
                    f"{processor.describe_incomplete() if processor else 'no events'}: {exc}",
                    events_received=processor.count if processor else 0,
                )
                cut.__cause__ = exc
                failure = cut
                if not await report_failure(self, cut, input, subscribers):
                    raise cut from exc
                result.error = cut
        except Exception as exc:
            if signal.aborted and isinstance(exc, TransportError):
                result.aborted = True
            else:
                failure = exc
                if not await report_failure(self, exc, input, subscribers):
                    raise
                result.error = exc
        finally:
            self.is_running = False
            result.reconnects = self.reconnects
            result.new_messages = [m for m in self.messages if m.id not in known_ids]
            # Shielded: on_run_finalized runs even when the task is being cancelled.
            if log is not None:
                _log_run_end(log, self, result, failure)
            with anyio.CancelScope(shield=True):
                await finalize_run(self, input, subscribers)

    # -- resources -----------------------------------------------------------------------

    async def __aenter__(self) -> HttpAgent:
        """Keep one HTTP client (and its connections) for every run inside the block."""
        if self.http_client is None:
            self.http_client = new_http_client(self.timeout)
            self._owns_client = True
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client the agent opened in ``async with`` (never a caller's)."""
        if self._owns_client and self.http_client is not None:
            client, self.http_client, self._owns_client = self.http_client, None, False
            await client.aclose()

    # -- discovery -----------------------------------------------------------------------

    async def get_capabilities(self) -> Optional[AgentCapabilities]:
        """GET ``<url>/capabilities``; ``None`` when the agent declares nothing (404)."""
        return await fetch_capabilities(
            self.http_client, self.url, headers=self.headers, timeout=self.timeout
        )
