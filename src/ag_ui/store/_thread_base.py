"""What a thread store is: a principal's conversations, kept after their runs end.

A run store keeps a run's *events* while the run is resumable; a thread store keeps the
*conversation* for good: each thread's messages and state as the reducer leaves them after a
run, plus one ``RunSummary`` per run. The server writes a thread when a run ends (and when it
stops at an interrupt), in one atomic step: a crash mid-write leaves the previous version whole.

Threads belong to a principal (``owner``, the value the server's ``authorize`` hook maps a
request to; ``None`` is anonymous). Every call names the owner, and a thread of another owner
is indistinguishable from one that does not exist (``ThreadNotFoundError``): a store never
lets one principal read, overwrite, rename or delete another's thread.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from ag_ui.core._surrogates import replace_lone_surrogates
from ag_ui.core.types import Message

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "INCOMPLETE_KEY",
    "MAX_PAGE_SIZE",
    "MAX_THREAD_ID_LENGTH",
    "TITLE_LENGTH",
    "RunSummary",
    "StoredThread",
    "ThreadPage",
    "ThreadStore",
    "ThreadSummary",
    "thread_id_problem",
    "title_from_messages",
]

TITLE_LENGTH = 80
"""A thread's default title is its first user message's text, cut to this many characters."""

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500

MAX_THREAD_ID_LENGTH = 256
"""The longest thread id (and run id) a thread is kept under, in characters: every store takes
it (a UUID is 36)."""

INCOMPLETE_KEY = "ag-ui-sdk"
"""The ``metadata`` key of a message a run left half written: ``{"ag-ui-sdk": {"incomplete":
"cancelled"}}`` marks the reply a cancelled run (the client left, the server shut down) was
writing when it stopped: it is kept as far as it went."""


def thread_id_problem(thread_id: str, what: str = "threadId") -> Optional[str]:
    """Why ``thread_id`` cannot name a stored thread (``None``: it can). Every store refuses
    the same ids: empty, longer than ``MAX_THREAD_ID_LENGTH``, holding a NUL character (a
    PostgreSQL text column cannot) or a lone UTF-16 surrogate (no UTF-8 form)."""
    if not thread_id:
        return f"{what} is empty"
    if len(thread_id) > MAX_THREAD_ID_LENGTH:
        return (
            f"{what} has {len(thread_id)} characters; a kept thread's ids have at most "
            f"{MAX_THREAD_ID_LENGTH}"
        )
    if "\x00" in thread_id:
        return f"{what} holds a NUL character (\\u0000), which no thread store can keep"
    try:
        thread_id.encode("utf-8")
    except UnicodeEncodeError:
        return f"{what} holds a lone UTF-16 surrogate (half a character), which has no UTF-8 form"
    return None


@dataclass(frozen=True)
class RunSummary:
    """One run of a thread, as the thread store keeps it.

    ``outcome`` is ``"success"``, ``"interrupt"``, ``"error"`` or ``"cancelled"``; ``usage`` is
    the run's token usage as wire JSON (the terminal event's ``TokenUsage`` list, dumped), when
    the agent reported one.
    Times are seconds since the epoch.
    """

    run_id: str
    outcome: str
    started_at: float
    finished_at: float
    error_code: Optional[str] = None
    usage: Optional[list[dict[str, Any]]] = None


@dataclass(frozen=True)
class ThreadSummary:
    """A thread in a listing: no messages, no state."""

    thread_id: str
    owner: Optional[str]
    title: str
    created_at: float
    updated_at: float
    message_count: int
    run_count: int

    def to_json(self) -> dict[str, Any]:
        """The wire form (camelCase) the threads endpoints and ``agui threads`` send."""
        return {
            "threadId": self.thread_id,
            "title": self.title,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "messageCount": self.message_count,
            "runCount": self.run_count,
        }


@dataclass(frozen=True)
class StoredThread:
    """A whole stored thread. ``version`` counts its saves (1 after the first)."""

    summary: ThreadSummary
    messages: list[Message]
    state: Any
    runs: list[RunSummary] = field(default_factory=list)
    version: int = 1

    @property
    def thread_id(self) -> str:
        return self.summary.thread_id

    def to_json(self) -> dict[str, Any]:
        """The wire form: the summary's, with ``messages`` (wire JSON), ``state``, ``runs``
        (camelCase) and ``version``."""
        return {
            **self.summary.to_json(),
            "messages": [m.model_dump(by_alias=True, mode="json") for m in self.messages],
            "state": self.state,
            "runs": [
                {
                    "runId": run.run_id,
                    "outcome": run.outcome,
                    "startedAt": run.started_at,
                    "finishedAt": run.finished_at,
                    "errorCode": run.error_code,
                    "usage": run.usage,
                }
                for run in self.runs
            ],
            "version": self.version,
        }


@dataclass(frozen=True)
class ThreadPage:
    """One page of a listing, newest ``updated_at`` first; ``next_cursor`` (opaque) asks for
    the next page, ``None`` on the last."""

    threads: list[ThreadSummary]
    next_cursor: Optional[str] = None


def title_from_messages(messages: Sequence[Message]) -> str:
    """The default title: the first user message's text (its text parts joined), whitespace
    collapsed, cut to ``TITLE_LENGTH``; ``""`` when there is none."""
    for message in messages:
        if message.role != "user":
            continue
        content = message.content
        if isinstance(content, str):
            text = content
        else:
            text = " ".join(getattr(part, "text", "") or "" for part in content)
        # A lone surrogate (half an emoji) has no UTF-8 form: a title column could not hold it,
        text = str(replace_lone_surrogates(" ".join(text.split())))
        # Nor a NUL character a PostgreSQL text column (the stores agree: U+FFFD in both).
        text = text.replace("\x00", "\ufffd")
        if text:
            return text if len(text) <= TITLE_LENGTH else text[: TITLE_LENGTH - 1] + "…"
    return ""


class ThreadStore(abc.ABC):
    """Storage for conversations. Implementations: ``InMemoryThreadStore`` (tests, one
    process), ``SqliteThreadStore`` (the embedded default) and ``PostgresThreadStore``.

    Every method raises ``StoreUnavailableError`` when the backing database cannot be reached
    (within the store's documented timeout), never hangs.
    """

    @abc.abstractmethod
    async def save(
        self,
        thread_id: str,
        *,
        owner: Optional[str],
        messages: Sequence[Message],
        state: Any,
        run: Optional[RunSummary] = None,
    ) -> ThreadSummary:
        """Replace the thread's messages and state and append ``run`` to its runs, in one
        atomic step; creates the thread (owned by ``owner``) on first save. The title is the
        one ``rename`` set, else ``title_from_messages``. Raises ``ThreadNotFoundError`` when the
        thread exists and belongs to another owner."""

    @abc.abstractmethod
    async def load(self, thread_id: str, *, owner: Optional[str]) -> StoredThread:
        """The whole thread. Raises ``ThreadNotFoundError``."""

    @abc.abstractmethod
    async def list_threads(
        self,
        *,
        owner: Optional[str],
        limit: int = DEFAULT_PAGE_SIZE,
        cursor: Optional[str] = None,
    ) -> ThreadPage:
        """The owner's threads, newest ``updated_at`` first (ties by thread id), ``limit`` at a
        time (1 to ``MAX_PAGE_SIZE``, else ``ValueError``). A cursor from another listing or a
        malformed one raises ``ValueError``."""

    @abc.abstractmethod
    async def rename(self, thread_id: str, *, owner: Optional[str], title: str) -> ThreadSummary:
        """Set the thread's title (kept over later saves). Raises ``ThreadNotFoundError``."""

    @abc.abstractmethod
    async def delete(self, thread_id: str, *, owner: Optional[str]) -> None:
        """Remove the thread and its runs. Raises ``ThreadNotFoundError``."""

    async def ping(self) -> None:  # noqa: B027 - an in-process store is always reachable
        """Raise ``StoreUnavailableError`` unless the database answers (health checks)."""

    async def aclose(self) -> None:  # noqa: B027 - a store without resources needs no close
        """Release connections."""
