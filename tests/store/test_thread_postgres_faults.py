"""The PostgreSQL thread store under faults, against a real server: a writer killed mid-save,
four writer processes at once (migrating one fresh database together), the server stopped and
restarted under load, a server that is not there, a database from a newer SDK."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator

import anyio
import psycopg
import pytest

from ag_ui.core import UserMessage
from ag_ui.store import PostgresThreadStore, RunSummary, StoreUnavailableError
from ag_ui.store.thread_postgres import SCHEMA_VERSION, redacted_url
from tests.postgres_helpers import PostgresServer
from tests.redis_helpers import free_port
from tests.store.thread_faults import (
    assert_four_writers_threads,
    assert_one_whole_version,
    kill_a_writer_mid_save,
    writer,
)
from tests.store.thread_writer import messages_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def database(postgres_server: PostgresServer) -> Iterator[str]:
    url = postgres_server.database()
    yield url
    postgres_server.drop(url)


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.8])
async def test_a_writer_killed_mid_save_leaves_the_last_whole_version(
    database: str, delay: float
) -> None:
    await kill_a_writer_mid_save(database, delay)
    store = PostgresThreadStore(database)
    try:
        thread = await store.load("t1", owner="alice")
    finally:
        await store.aclose()
    assert_one_whole_version(thread)


async def test_four_processes_write_a_thousand_threads(database: str) -> None:
    # The database is fresh: the four processes also race to create the tables, which the
    # advisory lock turns into one migration and three waits.
    workers = [writer(database, str(worker), "250") for worker in range(4)]
    for process in workers:
        assert process.wait(timeout=120) == 0
    store = PostgresThreadStore(database)
    try:
        await assert_four_writers_threads(store)
    finally:
        await store.aclose()
    with psycopg.connect(database) as check:
        assert check.execute("SELECT component, version FROM ag_ui_schema").fetchall() == [
            ("threads", SCHEMA_VERSION)
        ]


async def test_a_restart_under_load_fails_saves_in_bounded_time_and_the_pool_recovers(
    postgres_server: PostgresServer, database: str
) -> None:
    timeout = 2.0
    store = PostgresThreadStore(database, timeout=timeout, connect_timeout=2, max_size=4)
    confirmed = dict.fromkeys(range(4), 0)  # per writer: the last save that was answered
    failures: list[float] = []  # how long each failed save took
    errors: set[str] = set()  # their messages, without the driver's reason
    restarted_at: list[float] = []
    after_restart = dict.fromkeys(range(4), 0)
    stop = asyncio.Event()

    async def write(worker: int) -> None:
        n = 1
        while not stop.is_set():
            run = RunSummary(run_id=f"r{n}", outcome="success", started_at=n, finished_at=n)
            started = time.monotonic()
            try:
                await store.save(
                    f"t{worker}", owner="load", messages=messages_of(n), state={"n": n}, run=run
                )
            except StoreUnavailableError as exc:
                failures.append(time.monotonic() - started)
                errors.add(str(exc).split(": ", 1)[0] + " ... " + str(exc).rsplit("(", 1)[1])
                await asyncio.sleep(0.05)
                continue  # the same n again: a save is whole or absent, never half
            confirmed[worker] = n
            if restarted_at:
                after_restart[worker] += 1
            n += 1

    tasks = [asyncio.create_task(write(worker)) for worker in range(4)]
    try:
        while min(confirmed.values()) < 3:
            await asyncio.sleep(0.05)
        await asyncio.to_thread(postgres_server.stop, "fast")
        await asyncio.sleep(2.5)  # several saves fail meanwhile
        stopped_confirmed = dict(confirmed)
        await asyncio.to_thread(postgres_server.start)
        restarted_at.append(time.monotonic())
        # The pool reconnects (psycopg_pool's backoff: 1, 2, 4 s between attempts).
        deadline = time.monotonic() + 20
        while min(after_restart.values()) < 3:
            assert time.monotonic() < deadline, f"no recovery after the restart: {after_restart}"
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.gather(*tasks)
    assert failures, "no save failed while the server was down"
    assert max(failures) < timeout + 1.0
    assert errors == {
        f"the thread database {database} did not answer ... timeout 2 s, connect_timeout 2 s)"
    }
    assert all(confirmed[w] > stopped_confirmed[w] for w in range(4))
    try:
        for worker in range(4):
            thread = await store.load(f"t{worker}", owner="load")
            n = thread.state["n"]
            assert n == confirmed[worker]
            assert len(thread.messages) == thread.summary.message_count == n
            # A save whose commit reached the server but whose answer was lost is retried, so
            # a run may appear twice; never a run without its conversation or the reverse.
            assert len(thread.runs) == thread.summary.run_count == thread.version >= n
            assert thread.runs[-1].run_id == f"r{n}"
    finally:
        await store.aclose()


async def test_a_hung_server_fails_within_the_timeout_and_the_store_goes_on(
    postgres_server: PostgresServer, database: str
) -> None:
    store = PostgresThreadStore(database, timeout=1.0, connect_timeout=2)
    await store.save("t1", owner=None, messages=[], state={"n": 0})
    hi = [UserMessage(id="u", content="hi")]
    with postgres_server.paused():
        for _ in range(2):  # the connection a cancelled query held is closed, not reused
            started = time.monotonic()
            with pytest.raises(
                StoreUnavailableError, match=r"did not answer: no answer in time \(timeout 1 s,"
            ):
                await store.save("t1", owner=None, messages=hi, state={"n": 1})
            assert time.monotonic() - started < 2.5
    await store.save("t1", owner=None, messages=hi, state={"n": 2})
    thread = await store.load("t1", owner=None)
    assert (thread.state, len(thread.messages)) == ({"n": 2}, 1)
    await store.aclose()


async def test_a_server_that_is_not_there_fails_within_the_timeout() -> None:
    url = f"postgresql://agui:s3cret@127.0.0.1:{free_port()}/threads"
    store = PostgresThreadStore(url, timeout=1.5, connect_timeout=2)
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError) as caught:
        await store.save("t1", owner=None, messages=[UserMessage(id="u", content="hi")], state={})
    assert time.monotonic() - started < 3
    message = str(caught.value)
    assert "\n" not in message
    assert "s3cret" not in message
    assert f"postgresql://agui:***@127.0.0.1:{url.split(':')[3]}" in message
    assert "timeout 1.5 s, connect_timeout 2 s" in message
    await store.aclose()


async def test_a_database_from_a_newer_sdk_is_refused(database: str) -> None:
    store = PostgresThreadStore(database)
    await store.ping()  # creates the schema
    await store.aclose()
    with psycopg.connect(database, autocommit=True) as admin:
        admin.execute("UPDATE ag_ui_schema SET version = %s", (SCHEMA_VERSION + 1,))
    store = PostgresThreadStore(database)
    expected = (
        rf"schema version {SCHEMA_VERSION + 1}, newer than this SDK's {SCHEMA_VERSION}; "
        "upgrade ag-ui-sdk"
    )
    with pytest.raises(StoreUnavailableError, match=expected):
        await store.ping()
    await store.aclose()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout": 0}, "timeout and connect_timeout must be positive, got 0 and 5.0"),
        ({"connect_timeout": -1}, "must be positive, got 10.0 and -1"),
        ({"min_size": 3, "max_size": 2}, "0 <= min_size <= max_size and max_size >= 1"),
        ({"min_size": 0, "max_size": 0}, "got min_size 0 and max_size 0"),
    ],
)
def test_bad_bounds_are_refused_when_the_store_is_made(
    options: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        PostgresThreadStore("postgresql://127.0.0.1/threads", **options)  # type: ignore[arg-type]


def test_urls_lose_their_password_in_messages() -> None:
    assert redacted_url("postgresql://u:pw@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert redacted_url("postgresql://u@h/db") == "postgresql://u@h/db"
    assert redacted_url("postgres://h/db?user=u&password=pw&sslmode=require") == (
        "postgres://h/db?user=u&password=***&sslmode=require"
    )


async def test_times_stay_exact_on_a_server_that_prints_floats_short(database: str) -> None:
    # extra_float_digits = 0 makes PostgreSQL print 15 significant digits, which would round
    # every time; the store sets it back on each of its connections.
    with psycopg.connect(database, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{database.rsplit("/", 1)[1]}" SET extra_float_digits = 0')
    store = PostgresThreadStore(database, clock=lambda: 1_796_593_526.2993753)
    run = RunSummary(run_id="r", outcome="success", started_at=0.1 + 0.2, finished_at=1e-7)
    try:
        await store.save("t1", owner=None, messages=[], state={}, run=run)
        thread = await store.load("t1", owner=None)
    finally:
        await store.aclose()
    assert thread.runs == [run]
    assert thread.summary.updated_at == 1_796_593_526.2993753


async def test_with_every_connection_busy_a_save_goes_before_waiting_loads(
    database: str,
) -> None:
    """One pooled connection, a load holding it, six loads then a save waiting: the save is
    served next (psycopg_pool alone serves in arrival order: the save would come last, as a
    finished run's save came behind the loads of a burst of new runs)."""
    store = PostgresThreadStore(database, min_size=1, max_size=1)
    await store.save("t", owner=None, messages=messages_of(1), state=None)
    done: list[str] = []

    async def load(n: int) -> None:
        await store.load("t", owner=None)
        done.append(f"load{n}")

    async def save() -> None:
        await store.save("t", owner=None, messages=messages_of(2), state=None)
        done.append("save")

    try:
        async with anyio.create_task_group() as tasks:
            for n in range(7):
                tasks.start_soon(load, n)
            tasks.start_soon(save)
    finally:
        await store.aclose()
    assert done[:2] == ["load0", "save"], done
