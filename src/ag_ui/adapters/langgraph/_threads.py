"""``CheckpointThreads``: a thread store whose conversations are the graph's own.

The server keeps a thread (``create_app(..., threads=)``) as the client's reducer left it. A
graph's conversation is its checkpoint: messages a node wrote without streaming them, state
the stream never showed, edits made with ``graph.aupdate_state``. Wrapping the thread store
keeps everything the server needs from it (owners, listing, titles, run summaries) and answers
a load, so ``GET <path>/connect?threadId=`` and ``HttpAgent.load_thread``, with the
checkpoint's messages and state: a reload restores what the graph will continue from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Optional

from ag_ui.adapters.langgraph._agent import LangGraphAgent
from ag_ui.adapters.langgraph._messages import from_langchain
from ag_ui.adapters.langgraph._values import agui_state
from ag_ui.core.types import Message
from ag_ui.store import (
    RunSummary,
    StoredThread,
    ThreadPage,
    ThreadStore,
    ThreadSummary,
)
from ag_ui.store._thread_base import DEFAULT_PAGE_SIZE

__all__ = ["CheckpointThreads"]


class CheckpointThreads(ThreadStore):
    """``threads=CheckpointThreads(agent, store)``: ``store`` keeps owners, titles and runs;
    ``agent``'s checkpointer is the source of each thread's messages and state.

    A thread the checkpointer does not have (a graph without one, a thread saved before the
    graph ran) loads as ``store`` has it.
    """

    def __init__(self, agent: LangGraphAgent, store: ThreadStore) -> None:
        self.agent = agent
        self.store = store

    async def save(
        self,
        thread_id: str,
        *,
        owner: Optional[str],
        messages: Sequence[Message],
        state: Any,
        run: Optional[RunSummary] = None,
    ) -> ThreadSummary:
        return await self.store.save(
            thread_id, owner=owner, messages=messages, state=state, run=run
        )

    async def load(self, thread_id: str, *, owner: Optional[str]) -> StoredThread:
        stored = await self.store.load(thread_id, owner=owner)  # ownership, as the store says
        snapshot = await self.agent.checkpoint(thread_id)
        values = getattr(snapshot, "values", None)
        if not values:
            return stored
        messages = from_langchain(values.get(self.agent.messages_key) or [])
        summary = replace(stored.summary, message_count=len(messages))
        return replace(
            stored,
            summary=summary,
            messages=messages,
            state=agui_state(values, self.agent.messages_key),
        )

    async def list_threads(
        self, *, owner: Optional[str], limit: int = DEFAULT_PAGE_SIZE, cursor: Optional[str] = None
    ) -> ThreadPage:
        return await self.store.list_threads(owner=owner, limit=limit, cursor=cursor)

    async def rename(self, thread_id: str, *, owner: Optional[str], title: str) -> ThreadSummary:
        return await self.store.rename(thread_id, owner=owner, title=title)

    async def delete(self, thread_id: str, *, owner: Optional[str]) -> None:
        await self.store.delete(thread_id, owner=owner)
        deleter = getattr(getattr(self.agent.graph, "checkpointer", None), "adelete_thread", None)
        if deleter is not None:
            await deleter(thread_id)  # the graph forgets it too: a deleted thread stays deleted

    async def ping(self) -> None:
        await self.store.ping()

    async def aclose(self) -> None:
        await self.store.aclose()
