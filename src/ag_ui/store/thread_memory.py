"""In-memory thread store: one process, nothing persisted (tests, throwaway servers)."""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from ag_ui.core.errors import ThreadNotFoundError
from ag_ui.core.types import Message
from ag_ui.store._message_json import messages_from_json, messages_to_json
from ag_ui.store._thread_base import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    RunSummary,
    StoredThread,
    ThreadPage,
    ThreadStore,
    ThreadSummary,
    title_from_messages,
)
from ag_ui.store._thread_cursor import check_limit, decode_cursor, encode_cursor

__all__ = ["InMemoryThreadStore"]


@dataclass
class _Entry:
    owner: Optional[str]
    created_at: float
    updated_at: float
    # The wire JSON of the messages (bytes, as a database keeps them: loaded in one C pass)
    # and a copy of the state, so that a caller's later edits of the objects it saved never
    # reach the stored version.
    messages_json: bytes
    message_count: int
    state: Any
    runs: list[RunSummary] = field(default_factory=list)
    title: Optional[str] = None
    default_title: str = ""
    version: int = 0


class InMemoryThreadStore(ThreadStore):
    """Threads in a dict. Saves are atomic trivially (one event loop, no await inside)."""

    def __init__(self, *, clock: Any = time.time) -> None:
        self._threads: dict[str, _Entry] = {}
        self._clock = clock

    def _entry(self, thread_id: str, owner: Optional[str]) -> _Entry:
        entry = self._threads.get(thread_id)
        if entry is None or entry.owner != owner:
            raise ThreadNotFoundError(thread_id)
        return entry

    @staticmethod
    def _summary(thread_id: str, entry: _Entry) -> ThreadSummary:
        return ThreadSummary(
            thread_id=thread_id,
            owner=entry.owner,
            title=entry.title if entry.title is not None else entry.default_title,
            created_at=entry.created_at,
            updated_at=entry.updated_at,
            message_count=entry.message_count,
            run_count=len(entry.runs),
        )

    async def save(
        self,
        thread_id: str,
        *,
        owner: Optional[str],
        messages: Sequence[Message],
        state: Any,
        run: Optional[RunSummary] = None,
    ) -> ThreadSummary:
        now = self._clock()
        entry = self._threads.get(thread_id)
        if entry is not None and entry.owner != owner:
            raise ThreadNotFoundError(thread_id)
        messages_json = messages_to_json(messages)
        if entry is None:
            entry = _Entry(
                owner=owner,
                created_at=now,
                updated_at=now,
                messages_json=b"[]",
                message_count=0,
                state=None,
            )
            self._threads[thread_id] = entry
        entry.messages_json = messages_json
        entry.message_count = len(messages)
        entry.state = copy.deepcopy(state)
        entry.default_title = title_from_messages(messages)
        entry.updated_at = max(now, entry.updated_at)
        entry.version += 1
        if run is not None:
            entry.runs.append(run)
        return self._summary(thread_id, entry)

    async def load(self, thread_id: str, *, owner: Optional[str]) -> StoredThread:
        entry = self._entry(thread_id, owner)
        return StoredThread(
            summary=self._summary(thread_id, entry),
            messages=messages_from_json(entry.messages_json),
            state=copy.deepcopy(entry.state),
            runs=list(entry.runs),
            version=entry.version,
        )

    async def list_threads(
        self,
        *,
        owner: Optional[str],
        limit: int = DEFAULT_PAGE_SIZE,
        cursor: Optional[str] = None,
    ) -> ThreadPage:
        check_limit(limit, MAX_PAGE_SIZE)
        after = decode_cursor(cursor)
        owned = sorted(
            (
                (entry.updated_at, thread_id)
                for thread_id, entry in self._threads.items()
                if entry.owner == owner
            ),
            key=lambda item: (-item[0], item[1]),
        )
        if after is not None:
            owned = [item for item in owned if (-item[0], item[1]) > (-after[0], after[1])]
        page = owned[:limit]
        threads = [self._summary(thread_id, self._threads[thread_id]) for _, thread_id in page]
        next_cursor = encode_cursor(*page[-1]) if len(owned) > limit else None
        return ThreadPage(threads=threads, next_cursor=next_cursor)

    async def rename(self, thread_id: str, *, owner: Optional[str], title: str) -> ThreadSummary:
        entry = self._entry(thread_id, owner)
        entry.title = title
        return self._summary(thread_id, entry)

    async def delete(self, thread_id: str, *, owner: Optional[str]) -> None:
        self._entry(thread_id, owner)
        del self._threads[thread_id]
