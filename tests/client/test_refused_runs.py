"""A run refused before it started (``503``/``429`` with ``Retry-After``) is sent again by
``HttpAgent`` after the wait, within its ``ReconnectPolicy``; other refusals are the caller's."""

from __future__ import annotations

import email.utils
from typing import Any

import anyio
import pytest

from ag_ui.client import HttpAgent, Reconnect, ReconnectPolicy
from ag_ui.client._reconnect import retry_after_seconds
from ag_ui.core import UserMessage
from ag_ui.core.errors import HTTPStatusError
from ag_ui.server import create_app
from ag_ui.store import InMemoryThreadStore
from tests.support.refusing import UnreachableAtFirst, agent, runs_started
from tests.support.servers import serve

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def app_with(store: InMemoryThreadStore) -> Any:
    return create_app(agent, threads=store, public_thread_history=True)


def http_agent(url: str, policy: ReconnectPolicy, reports: list[Reconnect]) -> HttpAgent:
    return HttpAgent(
        f"{url}/agent",
        thread_id="t1",
        reconnect=policy,
        on_reconnect=reports.append,
        initial_messages=[UserMessage(id="u1", content="hi")],
    )


async def test_a_run_refused_while_the_store_is_unreachable_is_sent_again() -> None:
    runs_started.clear()
    store = UnreachableAtFirst(failures=2)
    reports: list[Reconnect] = []
    with serve(app_with(store)) as url:
        client = http_agent(url, ReconnectPolicy(max_attempts=3, initial_delay=0.05), reports)
        with anyio.fail_after(10):
            result = await client.run_agent(run_id="r1")
    assert result.finished
    assert client.messages[-1].content == "hello"
    assert store.loads == 3
    assert runs_started == ["r1"]  # the refusals started nothing; the third request ran once
    assert [report.attempt for report in reports] == [1, 2]
    for report in reports:
        assert report.last_event_id is None
        assert 1.0 <= report.delay <= 1.1  # Retry-After: 1, plus jitter up to 0.05 * 2**(n-1)
        assert isinstance(report.error, HTTPStatusError)
        assert report.error.status == 503
        assert report.error.body["error"]["code"] == "thread_store_unavailable"


async def test_refusals_past_the_policy_reach_the_caller() -> None:
    store = UnreachableAtFirst(failures=5)
    reports: list[Reconnect] = []
    with serve(app_with(store)) as url:
        client = http_agent(url, ReconnectPolicy(max_attempts=1, initial_delay=0.05), reports)
        with anyio.fail_after(10), pytest.raises(HTTPStatusError) as caught:
            await client.run_agent(run_id="r1")
    assert caught.value.status == 503
    assert caught.value.retry_after == 1.0
    assert store.loads == 2
    assert len(reports) == 1


async def test_no_retry_when_switched_off_or_asked_to_wait_longer_than_the_policy() -> None:
    for policy in (ReconnectPolicy(max_attempts=0), ReconnectPolicy(max_delay=0.5)):
        store = UnreachableAtFirst(failures=1)
        reports: list[Reconnect] = []
        with serve(app_with(store)) as url:
            client = http_agent(url, policy, reports)
            with anyio.fail_after(10), pytest.raises(HTTPStatusError, match="503"):
                await client.run_agent(run_id="r1")
        assert (store.loads, reports) == (1, [])


async def _plain_503(scope: Any, receive: Any, send: Any) -> None:
    """A server refusing every request without saying when to come back."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 503, "headers": []})
    await send({"type": "http.response.body", "body": b"busy"})


async def test_a_refusal_without_retry_after_is_not_sent_again() -> None:
    reports: list[Reconnect] = []
    with serve(_plain_503, lifespan="off") as url:
        client = http_agent(url, ReconnectPolicy(), reports)
        with anyio.fail_after(10), pytest.raises(HTTPStatusError) as caught:
            await client.run_agent(run_id="r1")
    assert (caught.value.status, caught.value.retry_after, reports) == (503, None, [])


def test_retry_after_is_read_in_seconds_or_as_an_http_date() -> None:
    now = 1_800_000_000.0
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(" 120 ") == 120.0
    assert retry_after_seconds(email.utils.formatdate(now + 30, usegmt=True), now=now) == 30.0
    assert retry_after_seconds(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0
    for unusable in (None, "", "-1", "1.5", "soon", "Wed, 21 Oct 2015 07:28:00"):
        assert retry_after_seconds(unusable) is None, unusable
