"""``SyncHttpAgent``: the async client behind blocking calls, for scripts and notebooks.

The event loop runs in a private thread (an anyio blocking portal), so this also works inside
Jupyter, where a loop is already running in the main thread.

>>> # with SyncHttpAgent("http://127.0.0.1:8000/agent") as agent:
>>> #     agent.add_message({"id": "u1", "role": "user", "content": "hi"})
>>> #     result = agent.run_agent()
>>> #     for event in agent.stream(): print(event.type)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Optional

from anyio.from_thread import BlockingPortal, start_blocking_portal

from ag_ui.client._agent import HttpAgent
from ag_ui.client._config import ReconnectCallback
from ag_ui.client._conversation import MessageLike
from ag_ui.client._debug import DebugOption
from ag_ui.client._input import ContextLike, ResumeLike, ToolLike
from ag_ui.client._reconnect import ReconnectPolicy
from ag_ui.client._result import RunAgentResult
from ag_ui.client._subscribers import Callback, SubscriberLike, Subscription
from ag_ui.client._tools import ToolHandler
from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.events import Event
from ag_ui.core.types import Interrupt, Message, ToolMessage
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE
from ag_ui.tools import FunctionTool

__all__ = ["SyncHttpAgent"]


class SyncHttpAgent:
    """Blocking twin of ``HttpAgent``: the same keyword arguments, except ``http_client`` (an
    ``httpx.AsyncClient`` cannot serve the private event loop; the agent opens its own).

    ``agent`` is the wrapped ``HttpAgent`` (for ``use`` and the rest). The conversation edits
    notify subscribers as on ``HttpAgent`` (async callbacks run to completion before the edit
    returns). Call ``close()`` or use ``with`` to stop the background thread.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
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
        reconnect: Optional[ReconnectPolicy] = None,
        on_reconnect: Optional[ReconnectCallback] = None,
        debug: DebugOption = False,
        max_protocol_version: str = SPOKEN_PROTOCOL_VERSION,
        tools: Iterable[ToolHandler] = (),
        max_tool_rounds: int = 10,
    ) -> None:
        self.agent = HttpAgent(
            url,
            headers=headers,
            agent_id=agent_id,
            description=description,
            thread_id=thread_id,
            initial_messages=initial_messages,
            initial_state=initial_state,
            timeout=timeout,
            idle_timeout=idle_timeout,
            proto=proto,
            max_event_size=max_event_size,
            strict=strict,
            reconnect=reconnect,
            on_reconnect=on_reconnect,
            debug=debug,
            max_protocol_version=max_protocol_version,
            tools=tools,
            max_tool_rounds=max_tool_rounds,
        )
        self._portal_manager: Optional[AbstractContextManager[BlockingPortal]] = None
        self._portal: Optional[BlockingPortal] = None

    @property
    def messages(self) -> list[Message]:
        """The conversation as typed messages."""
        return self.agent.messages

    @property
    def state(self) -> Any:
        """The agent state (any JSON value)."""
        return self.agent.state

    @property
    def pending_interrupts(self) -> list[Interrupt]:
        """The interrupts the last run left open."""
        return self.agent.pending_interrupts

    def add_message(self, message: MessageLike) -> None:
        """As ``HttpAgent.add_message`` (async callbacks finish before it returns)."""
        self.agent.add_message(message)

    def add_messages(self, messages: Iterable[MessageLike]) -> None:
        """As ``HttpAgent.add_messages``."""
        self.agent.add_messages(messages)

    def set_messages(self, messages: Iterable[MessageLike]) -> None:
        """As ``HttpAgent.set_messages``."""
        self.agent.set_messages(messages)

    def set_state(self, state: Any) -> None:
        """As ``HttpAgent.set_state``."""
        self.agent.set_state(state)

    def add_tool(
        self,
        handler: ToolHandler,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        parameters: Optional[Mapping[str, Any]] = None,
    ) -> FunctionTool:
        """As ``HttpAgent.add_tool`` (an async handler runs on the agent's loop)."""
        return self.agent.add_tool(
            handler, name=name, description=description, parameters=parameters
        )

    def add_tool_result(
        self, tool_call_id: str, content: Any, *, error: Optional[str] = None
    ) -> ToolMessage:
        """As ``HttpAgent.add_tool_result``."""
        return self.agent.add_tool_result(tool_call_id, content, error=error)

    def subscribe(
        self, subscriber: Optional[SubscriberLike] = None, **callbacks: Callback
    ) -> Subscription:
        """As ``HttpAgent.subscribe``."""
        return self.agent.subscribe(subscriber, **callbacks)

    def _loop(self) -> BlockingPortal:
        if self._portal is None:
            self._portal_manager = start_blocking_portal()
            self._portal = self._portal_manager.__enter__()
        return self._portal

    def run_agent(
        self,
        *,
        run_id: Optional[str] = None,
        tools: Optional[Sequence[ToolLike]] = None,
        context: Optional[Sequence[ContextLike]] = None,
        forwarded_props: Any = None,
        resume: Optional[Sequence[ResumeLike]] = None,
        subscriber: Optional[SubscriberLike] = None,
    ) -> RunAgentResult:
        """Run once and block until the run ended; same parameters and errors as the async
        ``run_agent``."""
        run = functools.partial(
            self.agent.run_agent,
            run_id=run_id,
            tools=tools,
            context=context,
            forwarded_props=forwarded_props,
            resume=resume,
            subscriber=subscriber,
        )
        return self._loop().call(run)

    def connect_agent(
        self,
        *,
        last_event_id: Optional[str] = None,
        run_key: Optional[str] = None,
        thread_id: Optional[str] = None,
        subscriber: Optional[SubscriberLike] = None,
    ) -> RunAgentResult:
        """Attach to a detached run or a thread's history and block until it ended; same
        parameters as the async ``connect_agent`` (docs/resume.md)."""
        connect = functools.partial(
            self.agent.connect_agent,
            last_event_id=last_event_id,
            run_key=run_key,
            thread_id=thread_id,
            subscriber=subscriber,
        )
        return self._loop().call(connect)

    def stream(
        self,
        *,
        run_id: Optional[str] = None,
        tools: Optional[Sequence[ToolLike]] = None,
        context: Optional[Sequence[ContextLike]] = None,
        forwarded_props: Any = None,
        resume: Optional[Sequence[ResumeLike]] = None,
        subscriber: Optional[SubscriberLike] = None,
    ) -> Iterator[Event]:
        """Iterate the run's events as they arrive (closing the iterator stops the run)."""
        portal = self._loop()
        events = self.agent.stream(
            run_id=run_id,
            tools=tools,
            context=context,
            forwarded_props=forwarded_props,
            resume=resume,
            subscriber=subscriber,
        )
        with portal.wrap_async_context_manager(events):
            while True:
                try:
                    yield portal.call(events.__anext__)
                except StopAsyncIteration:
                    return

    def abort_run(self) -> None:
        """Stop the active run (call it from another thread than the one blocked in a run)."""
        if self._portal is not None:
            self._portal.call(self.agent.abort_run)

    def get_capabilities(self) -> Optional[AgentCapabilities]:
        """As ``HttpAgent.get_capabilities``."""
        return self._loop().call(self.agent.get_capabilities)

    def close(self) -> None:
        """Stop the background event loop thread."""
        if self._portal_manager is not None:
            manager, self._portal_manager, self._portal = self._portal_manager, None, None
            manager.__exit__(None, None, None)

    def __enter__(self) -> SyncHttpAgent:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
