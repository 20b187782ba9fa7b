"""A SQL thread store's rows as the thread-store contract's values, and back.

The SQLite and PostgreSQL stores keep the same columns in the same order (a thread's summary
columns, then its messages, state and version; a run's six columns), so one reading of a row
serves both; each store keeps only its own SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, Optional

from ag_ui.core.types import Message
from ag_ui.store._message_json import (
    messages_from_json,
    messages_to_json,
    state_from_json,
    state_to_json,
)
from ag_ui.store._thread_base import RunSummary, StoredThread, ThreadSummary, title_from_messages

__all__ = ["SUMMARY_COLUMNS", "SavedColumns", "saved_columns", "stored_thread", "thread_summary"]

SUMMARY_COLUMNS = (
    "thread_id, owner, COALESCE(title, default_title), created_at, updated_at, "
    "message_count, run_count"
)
"""The columns ``thread_summary`` reads, in its order (a thread's title falls back to the one
taken from its messages)."""


def thread_summary(row: Sequence[Any]) -> ThreadSummary:
    """The summary of a row that starts with ``SUMMARY_COLUMNS``."""
    return ThreadSummary(
        thread_id=row[0],
        owner=row[1],
        title=row[2],
        created_at=row[3],
        updated_at=row[4],
        message_count=row[5],
        run_count=row[6],
    )


class SavedColumns(NamedTuple):
    """The text columns one save writes."""

    messages: str
    state: str
    default_title: str
    usage: Optional[str]
    """The run's token usage as JSON (None when there is no run or no usage)."""


def saved_columns(
    thread_id: str, messages: Sequence[Message], state: Any, run: Optional[RunSummary]
) -> SavedColumns:
    """What a save writes, computed before its transaction (a state that is not JSON is a
    ``ValueError`` naming the thread, and nothing is written)."""
    return SavedColumns(
        messages=messages_to_json(messages).decode(),
        state=state_to_json(thread_id, state),
        default_title=title_from_messages(messages),
        usage=json.dumps(run.usage) if run is not None and run.usage is not None else None,
    )


def _run_summary(row: Sequence[Any]) -> RunSummary:
    run_id, outcome, started_at, finished_at, error_code, usage = row
    return RunSummary(
        run_id=run_id,
        outcome=outcome,
        started_at=started_at,
        finished_at=finished_at,
        error_code=error_code,
        usage=json.loads(usage) if usage is not None else None,
    )


def stored_thread(row: Sequence[Any], runs: Iterable[Sequence[Any]]) -> StoredThread:
    """The thread of a row of ``SUMMARY_COLUMNS`` then messages, state and version, with its
    runs' rows (run_id, outcome, started_at, finished_at, error_code, usage) in order."""
    return StoredThread(
        summary=thread_summary(row),
        messages=messages_from_json(row[7]),
        state=state_from_json(row[8]),
        runs=[_run_summary(run) for run in runs],
        version=row[9],
    )
