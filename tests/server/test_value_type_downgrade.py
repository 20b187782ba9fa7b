"""A 1.0 client of this server never sees ``encryptedValueType`` (new in 1.1), on a real
uvicorn: raw SSE for each declared version, and the real ``@ag-ui/client`` 1.0.0, which would
warn about "unrecognised material" if the field reached it."""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any, Optional

import httpx
import pytest

from ag_ui.core import RunAgentInput
from ag_ui.server import RunContext, create_app
from ag_ui.verify._downgrade import PeerDowngradeWarning
from tests.server.test_ts_client import run_ts_client
from tests.support.servers import serve

_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


async def typed_agent(run_input: RunAgentInput, ctx: RunContext) -> AsyncIterator[Any]:
    yield {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}
    yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"}
    yield {"type": "TEXT_MESSAGE_END", "messageId": "m1"}
    yield {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "message",
        "entityId": "m1",
        "encryptedValue": "blob",
        "encryptedValueType": "vendor.kind",
    }
    yield {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            *[m.model_dump(by_alias=True, exclude_none=True) for m in run_input.messages],
            {
                "id": "m1",
                "role": "assistant",
                "content": "hi",
                "encryptedValue": "blob",
                "encryptedValueType": "vendor.kind",
                "toolCalls": [{**_CALL, "encryptedValue": "c", "encryptedValueType": "vendor.c"}],
            },
        ],
    }


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(create_app(typed_agent)) as base:
        yield base + "/agent"


def _events(url: str, protocol_version: Optional[str]) -> list[dict[str, Any]]:
    body: dict[str, Any] = {"threadId": "t", "runId": "r", "messages": []}
    if protocol_version is not None:
        body["protocolVersion"] = protocol_version
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PeerDowngradeWarning)  # the server thread's warning
        answer = httpx.post(url, json=body, headers={"Accept": "text/event-stream"}, timeout=10)
    assert answer.status_code == 200
    return [
        json.loads(line[len("data: ") :])
        for line in answer.text.split("\n")
        if line.startswith("data: ")
    ]


@pytest.mark.parametrize("declared", ["1.0", "1.0.0", "1.0.7", None, "0.0.39"])
def test_an_older_client_gets_no_value_types(url: str, declared: Optional[str]) -> None:
    events = _events(url, declared)
    assert "encryptedValueType" not in json.dumps(events)
    encrypted = next(e for e in events if e["type"] == "REASONING_ENCRYPTED_VALUE")
    assert encrypted == {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "message",
        "entityId": "m1",
        "encryptedValue": "blob",
    }
    snapshot = next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")
    assert snapshot["messages"] == [
        {
            "id": "m1",
            "role": "assistant",
            "content": "hi",
            "encryptedValue": "blob",
            "toolCalls": [{**_CALL, "encryptedValue": "c"}],
        }
    ]


@pytest.mark.parametrize("declared", ["1.1", "1.1.0", "1.2", "2.0", "not a version"])
def test_a_1_1_client_or_newer_gets_them(url: str, declared: str) -> None:
    events = _events(url, declared)
    encrypted = next(e for e in events if e["type"] == "REASONING_ENCRYPTED_VALUE")
    assert encrypted["encryptedValueType"] == "vendor.kind"
    snapshot = next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")
    assert snapshot["messages"][0]["encryptedValueType"] == "vendor.kind"
    assert snapshot["messages"][0]["toolCalls"][0]["encryptedValueType"] == "vendor.c"


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "protobuf"])
def test_the_typescript_1_0_client_sees_no_value_type_and_no_warning(url: str, proto: bool) -> None:
    # run_ts_client asserts the client printed no warning (it would name the stripped field).
    result = run_ts_client(url=url, turns=[{"say": "hello", "runId": "r1"}], proto=proto)
    assert "encryptedValueType" not in json.dumps(result)
    assert result["messages"][-1] == {
        "id": "m1",
        "role": "assistant",
        "content": "hi",
        "encryptedValue": "blob",
        "toolCalls": [{**_CALL, "encryptedValue": "c"}],
    }


@pytest.mark.parametrize(
    ("declared", "answered"),
    [("1.1", "1.1"), ("1.2", "1.1"), ("1.0", "1.0"), (None, "1.0")],
)
def test_run_started_declares_what_the_client_is_sent(
    url: str, declared: Optional[str], answered: str
) -> None:
    # Its own version to a current or newer client; "1.0" for the downgraded stream, as a
    # translating producer declares what it emits.
    assert _events(url, declared)[0] == {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r",
        "protocolVersion": answered,
    }


def test_a_client_of_a_newer_minor_is_served_and_noted_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import logging

    from ag_ui.server._downgrade import downgrading_sink

    async def sink(events: list[Any]) -> None:
        pass

    caplog.set_level(logging.INFO, logger="ag_ui.server")
    for run_id in ("r1", "r2"):
        run_input = RunAgentInput(thread_id="t", run_id=run_id, messages=[], protocol_version="1.7")
        assert downgrading_sink(sink, run_input) is sink  # served as is
    notes = [r.getMessage() for r in caplog.records if "newer than this server" in r.getMessage()]
    assert notes == [
        "a client declared protocol 1.7, newer than this server's 1.1: served as 1.1 "
        "(what it adds that this server does not know is ignored)"
    ]
