"""A server side for refused runs: a thread store unreachable for its first loads (the
endpoint answers ``503 thread_store_unavailable`` with ``Retry-After: 1``) and an agent that
counts the runs it was given."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Optional

from ag_ui.core import RunAgentInput, TextMessageChunkEvent
from ag_ui.core.errors import StoreUnavailableError
from ag_ui.store import InMemoryThreadStore, StoredThread


class UnreachableAtFirst(InMemoryThreadStore):
    """A thread store whose first ``failures`` loads find the database unreachable."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures
        self.loads = 0

    async def load(self, thread_id: str, *, owner: Optional[str]) -> StoredThread:
        self.loads += 1
        if self.loads <= self.failures:
            raise StoreUnavailableError("the thread database did not answer")
        return await super().load(thread_id, owner=owner)


runs_started: list[str] = []
"""The run ids ``agent`` was started with (clear it before a test)."""


async def agent(run_input: RunAgentInput, context: Any) -> AsyncIterator[Any]:
    runs_started.append(run_input.run_id)
    yield TextMessageChunkEvent(message_id="m", role="assistant", delta="hello")
