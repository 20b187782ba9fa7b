"""The gate in front of the PostgreSQL thread store's pool: at most ``capacity`` holders, and a
freed place goes to an urgent waiter (a save) before an ordinary one (a load)."""

from __future__ import annotations

import anyio
import pytest

from ag_ui.store._priority_gate import PriorityGate

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_urgent_waiters_go_first_and_each_kind_in_arrival_order() -> None:
    gate = PriorityGate(1)
    order: list[str] = []
    release = anyio.Event()

    async def holder() -> None:
        async with gate.enter(urgent=False):
            await release.wait()

    async def caller(name: str, urgent: bool) -> None:
        async with gate.enter(urgent=urgent):
            order.append(name)
            await anyio.sleep(0)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(holder)
        await anyio.wait_all_tasks_blocked()
        for name, urgent in [("load1", False), ("save1", True), ("load2", False), ("save2", True)]:
            tasks.start_soon(caller, name, urgent)
            await anyio.wait_all_tasks_blocked()
        assert gate.waiting == 4
        release.set()
    assert order == ["save1", "save2", "load1", "load2"]
    assert gate.waiting == 0


async def test_no_more_than_capacity_hold_at_once() -> None:
    gate = PriorityGate(3)
    holding = most = 0

    async def caller(urgent: bool) -> None:
        nonlocal holding, most
        async with gate.enter(urgent=urgent):
            holding += 1
            most = max(most, holding)
            await anyio.sleep(0.001)
            holding -= 1

    async with anyio.create_task_group() as tasks:
        for n in range(40):
            tasks.start_soon(caller, n % 3 == 0)
    assert most == 3
    # All places are free again: three enter at once without waiting.
    with anyio.fail_after(1):
        async with gate.enter(urgent=False), gate.enter(urgent=False), gate.enter(urgent=True):
            assert gate.waiting == 0


async def test_a_cancelled_waiter_gives_up_its_turn() -> None:
    gate = PriorityGate(1)
    got: list[str] = []
    release = anyio.Event()

    async def holder() -> None:
        async with gate.enter(urgent=False):
            await release.wait()

    async def caller(name: str) -> None:
        async with gate.enter(urgent=True):
            got.append(name)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(holder)
        await anyio.wait_all_tasks_blocked()
        with anyio.move_on_after(0.05):
            await caller("timed out")
        assert gate.waiting == 0
        tasks.start_soon(caller, "next")
        await anyio.wait_all_tasks_blocked()
        release.set()
    assert got == ["next"]


async def test_a_place_handed_to_a_waiter_cancelled_meanwhile_passes_on() -> None:
    """The holder leaves and hands its place to the first waiter, whose wait is cancelled in
    the same turn, before it runs: the place goes on to the next waiter, not lost."""
    gate = PriorityGate(1)
    got: list[str] = []
    holding = anyio.Event()
    release = anyio.Event()

    async def holder() -> None:
        async with gate.enter(urgent=False):
            holding.set()
            await release.wait()

    with anyio.fail_after(2):  # a lost place would leave "second" waiting for ever
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(holder)
            await holding.wait()
            first = anyio.CancelScope()

            async def cancelled_waiter() -> None:
                with first:
                    async with gate.enter(urgent=True):
                        got.append("cancelled")

            tasks.start_soon(cancelled_waiter)
            await anyio.wait_all_tasks_blocked()

            async def second() -> None:
                async with gate.enter(urgent=False):
                    got.append("second")

            tasks.start_soon(second)
            await anyio.wait_all_tasks_blocked()
            release.set()  # hands the place to the first waiter...
            first.cancel()  # ...which is cancelled before it wakes
    assert got == ["second"]
    with anyio.fail_after(1):
        async with gate.enter(urgent=False):
            pass


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError, match="capacity must be at least 1, got 0"):
        PriorityGate(0)
