"""The run-store contract, on the in-memory store and on a real Redis."""

from __future__ import annotations

import anyio
import pytest

from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
)
from ag_ui.encoder.encoder import event_to_json
from ag_ui.store import (
    HistoryTrimmedError,
    InMemoryRunStore,
    RunNotFoundError,
    RunRecord,
    RunStore,
    StoredEvent,
    StoreFullError,
)

pytestmark = pytest.mark.anyio

STARTED = RunStartedEvent(thread_id="t1", run_id="r1")
FINISHED = RunFinishedEvent(thread_id="t1", run_id="r1")


def step(n: int) -> StepStartedEvent:
    return StepStartedEvent(step_name=f"s{n}")


async def collect(store: RunStore, run_id: str, after: int = 0) -> list[StoredEvent]:
    with anyio.fail_after(10):
        return [item async for item in store.read(run_id, after)]


async def test_positions_replay_and_finish(store: RunStore) -> None:
    record = await store.create("r1", "t1", owner="alice")
    assert record == RunRecord(key="r1", thread_id="t1", owner="alice")
    assert [await store.append("r1", e) for e in (STARTED, step(1), FINISHED)] == [1, 2, 3]
    await store.finish("r1")
    assert await collect(store, "r1") == [
        StoredEvent(1, STARTED),
        StoredEvent(2, step(1)),
        StoredEvent(3, FINISHED),
    ]
    assert await collect(store, "r1", after=2) == [StoredEvent(3, FINISHED)]
    assert await collect(store, "r1", after=3) == []
    assert (await store.get("r1")).finished is True


async def test_append_many_keeps_order_and_bounds(store: RunStore) -> None:
    await store.create("r1", "t1")
    assert await store.append_many("r1", [STARTED, step(1), step(2)]) == 3
    assert await store.append_many("r1", [step(n) for n in range(3, 8)]) == 8
    await store.append("r1", FINISHED)
    await store.finish("r1")
    assert await collect(store, "r1", after=4) == [
        StoredEvent(5, step(4)),
        StoredEvent(6, step(5)),
        StoredEvent(7, step(6)),
        StoredEvent(8, step(7)),
        StoredEvent(9, FINISHED),
    ]
    with pytest.raises(HistoryTrimmedError):
        await collect(store, "r1", after=3)
    with pytest.raises(RunNotFoundError):
        await store.append_many("nope", [STARTED])


async def test_append_encoded_stores_wire_json_in_order(store: RunStore) -> None:
    await store.create("r1", "t1")
    assert await store.append_encoded("r1", [event_to_json(STARTED), event_to_json(step(1))]) == 2
    assert await store.append_encoded("r1", [event_to_json(FINISHED)]) == 3
    await store.finish("r1")
    assert await collect(store, "r1") == [
        StoredEvent(1, STARTED),
        StoredEvent(2, step(1)),
        StoredEvent(3, FINISHED),
    ]
    with pytest.raises(RunNotFoundError):
        await store.append_encoded("nope", [event_to_json(STARTED)])


async def test_the_default_append_encoded_parses_and_appends_many(store: RunStore) -> None:
    # What a third-party store that only implements append/append_many gets.
    await store.create("r1", "t1")
    payloads = [event_to_json(STARTED), event_to_json(step(1))]
    assert await RunStore.append_encoded(store, "r1", payloads) == 2
    assert await store.append_many("r1", [FINISHED]) == 3
    await store.finish("r1")
    assert await collect(store, "r1") == [
        StoredEvent(1, STARTED),
        StoredEvent(2, step(1)),
        StoredEvent(3, FINISHED),
    ]


async def test_read_batches_hold_every_event_once_in_order(store: RunStore) -> None:
    await store.create("r1", "t1")
    await store.append_many("r1", [STARTED, step(1), step(2)])
    batches: list[list[StoredEvent]] = []

    async def reader() -> None:
        async for batch in store.read_batches("r1", after=1):
            batches.append(batch)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            while not batches:
                await anyio.sleep(0.01)
            await store.append_many("r1", [step(3), FINISHED])
            await store.finish("r1")
    assert batches[0] == [StoredEvent(2, step(1)), StoredEvent(3, step(2))]
    assert [item for batch in batches[1:] for item in batch] == [
        StoredEvent(4, step(3)),
        StoredEvent(5, FINISHED),
    ]


async def test_last_position(store: RunStore) -> None:
    await store.create("r1", "t1")
    assert await store.last_position("r1") == 0
    await store.append("r1", STARTED)
    await store.append("r1", step(1))
    assert await store.last_position("r1") == 2
    with pytest.raises(RunNotFoundError):
        await store.last_position("nope")


async def test_a_future_position_reads_from_the_end(store: RunStore) -> None:
    await store.create("r1", "t1")
    await store.append("r1", STARTED)
    await store.append("r1", FINISHED)
    await store.finish("r1")
    assert await collect(store, "r1", after=99) == []


async def test_reader_tails_live_events_until_the_run_ends(store: RunStore) -> None:
    await store.create("r1", "t1")
    await store.append("r1", STARTED)
    received: list[StoredEvent] = []

    async def reader() -> None:
        async for item in store.read("r1", after=0):
            received.append(item)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            while not received:
                await anyio.sleep(0.01)
            await store.append("r1", TextMessageContentEvent(message_id="m", delta="é"))
            await store.append("r1", FINISHED)
            await store.finish("r1")
    assert [item.position for item in received] == [1, 2, 3]
    assert received[-1].event == FINISHED


async def test_unknown_run(store: RunStore) -> None:
    with pytest.raises(RunNotFoundError) as caught:
        await store.get("nope")
    assert caught.value.key == "nope"
    with pytest.raises(RunNotFoundError):
        await collect(store, "nope")
    with pytest.raises(RunNotFoundError):
        await store.append("nope", STARTED)


async def test_duplicate_run_id_is_refused(store: RunStore) -> None:
    await store.create("r1", "t1")
    with pytest.raises(ValueError, match="already exists"):
        await store.create("r1", "t1")


async def test_event_bound_trims_and_a_trimmed_position_is_an_error(store: RunStore) -> None:
    await store.create("r1", "t1")
    for n in range(1, 9):
        await store.append("r1", step(n))
    with pytest.raises(HistoryTrimmedError) as caught:
        await collect(store, "r1", after=1)
    assert caught.value.position == 1
    await store.append("r1", FINISHED)
    await store.finish("r1")
    tail = await collect(store, "r1", after=6)
    assert [item.position for item in tail] == [7, 8, 9]


async def test_store_full_evicts_the_oldest_finished_never_a_running_one(store: RunStore) -> None:
    for run_id in ("a", "b", "c"):
        await store.create(run_id, "t")
    with pytest.raises(StoreFullError):
        await store.create("d", "t")
    await store.finish("b")
    await store.finish("a")
    await store.create("d", "t")  # evicts b (finished first), keeps a and running c
    with pytest.raises(RunNotFoundError):
        await store.get("b")
    assert (await store.get("a")).finished is True
    assert (await store.get("c")).finished is False
    assert await store.thread_runs("t") == ["a", "c", "d"]


def test_public_surface() -> None:
    import ag_ui.store

    assert ag_ui.store.__all__ == [
        "HistoryTrimmedError",
        "InMemoryRunStore",
        "InMemoryThreadStore",
        "PostgresThreadStore",
        "RedisRunStore",
        "RunAbandonedError",
        "RunNotFoundError",
        "RunRecord",
        "RunStore",
        "RunSummary",
        "SqliteThreadStore",
        "StoreFullError",
        "StoreUnavailableError",
        "StoredEvent",
        "StoredThread",
        "ThreadNotFoundError",
        "ThreadPage",
        "ThreadStore",
        "ThreadSummary",
        "open_thread_store",
    ]
    for name in ag_ui.store.__all__:
        assert getattr(ag_ui.store, name)


async def test_the_old_name_of_the_key_still_works_with_a_warning(store: RunStore) -> None:
    # The parameter was ``run_id`` though it always held the server's resume key.
    with pytest.warns(DeprecationWarning, match=r"create\(run_id=\.\.\.\) is deprecated"):
        record = await store.create(run_id="old", thread_id="t1")
    assert record.key == "old"
    with pytest.warns(DeprecationWarning, match=r"RunRecord\.run_id is deprecated"):
        assert record.run_id == "old"
    with pytest.warns(DeprecationWarning, match=r"RunRecord\(run_id=\.\.\.\) is deprecated"):
        assert RunRecord(run_id="old", thread_id="t1") == record
    with pytest.warns(DeprecationWarning, match=r"append_encoded\(run_id=\.\.\.\)"):
        await store.append_encoded(run_id="old", payloads=[event_to_json(STARTED)])
    with pytest.warns(DeprecationWarning, match=r"last_position\(run_id=\.\.\.\)"):
        assert await store.last_position(run_id="old") == 1
    with pytest.raises(RunNotFoundError) as caught:
        await store.get("nope")
    with pytest.warns(DeprecationWarning, match=r"RunNotFoundError\.run_id is deprecated"):
        assert caught.value.run_id == "nope"


async def test_a_custom_store_keeps_its_own_parameter_names() -> None:
    # A store written against the old names (``run_id``) is called positionally by the server
    # and keeps working; one naming its parameter ``key`` gets the old keyword for free.
    class OldNames(InMemoryRunStore):
        async def get(self, run_id: str) -> RunRecord:
            return await super().get(run_id)

    store = OldNames()
    await store.create("k", "t")
    assert (await store.get(run_id="k")).key == "k"
    with pytest.warns(DeprecationWarning, match=r"OldNames\.finish\(run_id=\.\.\.\)"):
        assert (await store.finish(run_id="k")) is None
