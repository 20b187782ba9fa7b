"""Creating a run in ``RedisRunStore`` is one round trip to Redis while there is room.

Counted at the transport seam: every request redis-py sends (a command or a whole pipeline) is
one ``send_packed_command`` on a connection. Making room (``max_runs`` reached) is the slow path
and may take more; the store contract tests cover what it does.
"""

from __future__ import annotations

from typing import Any

import pytest
from redis.asyncio.connection import AbstractConnection

from ag_ui.store import RedisRunStore
from tests.redis_helpers import RedisServer, free_port

pytestmark = pytest.mark.anyio


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    requests: list[Any] = []
    send = AbstractConnection.send_packed_command

    async def counted(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        requests.append(command)
        await send(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    return requests


async def test_creating_a_run_is_one_round_trip(redis_server: RedisServer, sent: list[Any]) -> None:
    store = RedisRunStore(redis_server.url, prefix=f"trips{free_port()}:", max_runs=10)
    try:
        await store.create("warm", "t0")  # the pool's first connection says hello first
        sent.clear()
        await store.create("k1", "t1", owner="ada")
        assert len(sent) == 1
        record = await store.get("k1")
        assert (record.thread_id, record.owner, record.finished) == ("t1", "ada", False)
        assert await store.thread_runs("t1") == ["k1"]
        sent.clear()
        with pytest.raises(ValueError, match="already exists"):
            await store.create("k1", "t1")
        assert len(sent) == 1
    finally:
        await store.aclose()
