"""The PostgreSQL thread store's schema: one migration script per version, and the migration
itself, run in one transaction under ``pg_advisory_xact_lock`` so that several processes
starting at once migrate once and the others wait for it. A database migrated by a newer SDK
is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ag_ui.core.errors import StoreUnavailableError
from ag_ui.store._postgres_connection import redacted_url

if TYPE_CHECKING:
    from psycopg import AsyncConnection

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate"]

MIGRATIONS: tuple[str, ...] = (
    # 1: threads with their conversation as wire JSON, and one row per run.
    """
    CREATE TABLE ag_ui_threads (
        thread_id     TEXT PRIMARY KEY,
        owner         TEXT,
        title         TEXT,
        default_title TEXT NOT NULL,
        created_at    DOUBLE PRECISION NOT NULL,
        updated_at    DOUBLE PRECISION NOT NULL,
        message_count INTEGER NOT NULL,
        run_count     INTEGER NOT NULL,
        version       INTEGER NOT NULL,
        messages      TEXT NOT NULL,
        state         TEXT NOT NULL
    );
    CREATE INDEX ag_ui_threads_by_owner ON ag_ui_threads (owner, updated_at DESC, thread_id);
    CREATE TABLE ag_ui_thread_runs (
        thread_id   TEXT NOT NULL REFERENCES ag_ui_threads (thread_id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        run_id      TEXT NOT NULL,
        outcome     TEXT NOT NULL,
        started_at  DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        error_code  TEXT,
        usage       TEXT,
        PRIMARY KEY (thread_id, seq)
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version this SDK writes (``ag_ui_schema``'s row for ``threads``)."""

# Any fixed 64-bit number: the advisory lock every process migrating this schema takes.
MIGRATION_LOCK = 0x4147_5549_5448_5244  # "AGUITHRD"


async def migrate(db: AsyncConnection[tuple[Any, ...]], url: str) -> None:
    """Bring the database at ``url`` (named redacted in errors) to ``SCHEMA_VERSION``."""
    async with db.transaction():
        await db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await db.execute(
            "CREATE TABLE IF NOT EXISTS ag_ui_schema "
            "(component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
        cursor = await db.execute("SELECT version FROM ag_ui_schema WHERE component = 'threads'")
        row = await cursor.fetchone()
        version = row[0] if row is not None else 0
        if version > SCHEMA_VERSION:
            raise StoreUnavailableError(
                f"the thread database {redacted_url(url)} has schema version {version}, "
                f"newer than this SDK's {SCHEMA_VERSION}; upgrade ag-ui-sdk to open it"
            )
        for number in range(version, SCHEMA_VERSION):
            await db.execute(MIGRATIONS[number])
        if version != SCHEMA_VERSION:
            await db.execute(
                "INSERT INTO ag_ui_schema VALUES ('threads', %s) "
                "ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version",
                (SCHEMA_VERSION,),
            )
