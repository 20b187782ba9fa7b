"""The virtual clock skips waiting, not order: timers fire in order and time adds up."""

from __future__ import annotations

import time

import anyio
import pytest

from tests.support.clock import run_on_virtual_clock


def test_an_hour_of_sleeps_passes_at_once_and_in_order() -> None:
    async def main() -> tuple[list[str], float]:
        fired: list[str] = []
        start = anyio.current_time()

        async def sleeper(name: str, seconds: float) -> None:
            await anyio.sleep(seconds)
            fired.append(name)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(sleeper, "late", 3600)
            tasks.start_soon(sleeper, "early", 15)
            tasks.start_soon(sleeper, "middle", 60)
        return fired, anyio.current_time() - start

    began = time.monotonic()
    fired, elapsed = run_on_virtual_clock(main)
    assert fired == ["early", "middle", "late"]
    assert 3600 <= elapsed < 3601
    assert time.monotonic() - began < 5


def test_timeouts_fire_on_the_virtual_clock() -> None:
    async def main() -> None:
        with anyio.fail_after(100):
            await anyio.sleep(1000)

    with pytest.raises(TimeoutError):
        run_on_virtual_clock(main)
