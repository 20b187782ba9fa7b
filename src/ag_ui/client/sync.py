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
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any, Optional

from anyio.from_thread import BlockingPortal, start_blocking_portal

from ag_ui.client.agent import HttpAgent
from ag_ui.client.result import RunAgentResult
from ag_ui.core.capabilities import AgentCapabilities

__all__ = ["SyncHttpAgent"]


class SyncHttpAgent:
    """Blocking twin of ``HttpAgent`` (same keyword arguments, except ``http_client``).

    ``agent`` is the wrapped ``HttpAgent`` (for ``use`` and the rest). The conversation edits
    notify subscribers as on ``HttpAgent`` (async callbacks run to completion before the edit
    returns). Call ``close()`` or use ``with`` to stop the background thread.
    """

    def __init__(self, url: str, **options: Any) -> None:
        if "http_client" in options:
            raise TypeError("SyncHttpAgent opens its own connections; http_client is async-only")
        self.agent = HttpAgent(url, **options)
        self._portal_manager: Optional[AbstractContextManager[BlockingPortal]] = None
        self._portal: Optional[BlockingPortal] = None

    @property
    def messages(self) -> list[Any]:
        return self.agent.messages

    @property
    def state(self) -> Any:
        return self.agent.state

    @property
    def pending_interrupts(self) -> list[Any]:
        return self.agent.pending_interrupts

    def add_message(self, message: Any) -> None:
        self.agent.add_message(message)

    def add_messages(self, messages: Any) -> None:
        self.agent.add_messages(messages)

    def set_messages(self, messages: Any) -> None:
        self.agent.set_messages(messages)

    def set_state(self, state: Any) -> None:
        self.agent.set_state(state)

    def subscribe(self, subscriber: Any = None, **callbacks: Any) -> Any:
        return self.agent.subscribe(subscriber, **callbacks)

    def _loop(self) -> BlockingPortal:
        if self._portal is None:
            self._portal_manager = start_blocking_portal()
            self._portal = self._portal_manager.__enter__()
        return self._portal

    def run_agent(self, **parameters: Any) -> RunAgentResult:
        """Run once and block until the run ended; same parameters and errors as the async
        ``run_agent``."""
        return self._loop().call(functools.partial(self.agent.run_agent, **parameters))

    def connect_agent(self, **parameters: Any) -> RunAgentResult:
        """Attach to a detached run or a thread's history and block until it ended; same
        parameters as the async ``connect_agent`` (docs/resume.md)."""
        return self._loop().call(functools.partial(self.agent.connect_agent, **parameters))

    def stream(self, **parameters: Any) -> Iterator[Any]:
        """Iterate the run's events as they arrive (closing the iterator stops the run)."""
        portal = self._loop()
        with portal.wrap_async_context_manager(self.agent.stream(**parameters)) as events:
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
