"""``agui run``: text, json and events output against a real uvicorn, exit codes, arguments."""

from __future__ import annotations

import io
import json
import re
from collections.abc import AsyncIterator

import pytest
from starlette.requests import Request

from ag_ui.cli import main
from ag_ui.cli.run import run_client
from tests.client.client_helpers import LiveServer, frames

pytestmark = pytest.mark.anyio


def _run_events(body: dict[str, object]) -> list[dict[str, object]]:
    thread, run = body["threadId"], body["runId"]
    user = body["messages"][-1]["content"]  # type: ignore[index]
    return [
        {"type": "RUN_STARTED", "threadId": thread, "runId": run},
        {"type": "STATE_SNAPSHOT", "snapshot": {"echo": body.get("state"), "n": 0}},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "You said: "},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": str(user)},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "lookup"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"q": '},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '"x"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 1}]},
        {
            "type": "RUN_FINISHED",
            "threadId": thread,
            "runId": run,
            "result": {"props": body.get("forwardedProps")},
        },
    ]


@pytest.fixture(scope="module")
def echo_url(live_server: LiveServer) -> str:
    async def echo(request: Request) -> AsyncIterator[bytes]:
        body = json.loads(await request.body())
        if request.headers.get("x-interrupt") == "yes":
            yield frames(
                {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
                {
                    "type": "RUN_FINISHED",
                    "threadId": body["threadId"],
                    "runId": body["runId"],
                    "outcome": {
                        "type": "interrupt",
                        "interrupts": [
                            {"id": "i1", "reason": "confirmation", "message": "Really delete?"}
                        ],
                    },
                },
            )
            return
        if request.headers.get("x-fail") == "yes":
            yield frames(
                {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
                {"type": "RUN_ERROR", "message": "told to fail", "code": "asked"},
            )
            return
        yield frames(*_run_events(body))

    return live_server.add("echo", echo)


async def test_events_output_prints_each_received_event_as_a_json_line(echo_url: str) -> None:
    out = io.StringIO()
    code = await run_client(
        echo_url, message="hi", output="events", state={"a": 1}, stream=out, thread_id="t9"
    )
    assert code == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    run_id = lines[0]["runId"]
    assert lines == _run_events(
        {
            "threadId": "t9",
            "runId": run_id,
            "state": {"a": 1},
            "messages": [{"content": "hi"}],
        }
    )


async def test_json_output_is_one_object_with_the_whole_outcome(echo_url: str) -> None:
    out = io.StringIO()
    code = await run_client(
        echo_url,
        message="hi",
        output="json",
        state={"a": 1},
        forwarded_props={"p": True},
        stream=out,
    )
    assert code == 0
    report = json.loads(out.getvalue())
    # agui run gives each message a new id (user-<uuid hex>): a stored thread never sees one twice.
    user_id = report["messages"][0]["id"]
    assert re.fullmatch(r"user-[0-9a-f]{32}", user_id), user_id
    assert report == {
        "ok": True,
        "error": None,
        "events": {
            "RUN_STARTED": 1,
            "STATE_SNAPSHOT": 1,
            "TEXT_MESSAGE_START": 1,
            "TEXT_MESSAGE_CONTENT": 2,
            "TEXT_MESSAGE_END": 1,
            "TOOL_CALL_START": 1,
            "TOOL_CALL_ARGS": 2,
            "TOOL_CALL_END": 1,
            "STATE_DELTA": 1,
            "RUN_FINISHED": 1,
        },
        "messages": [
            {"id": user_id, "role": "user", "content": "hi"},
            {"id": "m1", "role": "assistant", "content": "You said: hi"},
            {
                "id": "c1",
                "role": "assistant",
                "toolCalls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"q": "x"}'},
                    }
                ],
            },
        ],
        "state": {"echo": {"a": 1}, "n": 1},
        "outcome": {"type": "success"},
        "reconnects": 0,
    }


async def test_json_output_reports_a_run_error_with_exit_code_1(echo_url: str) -> None:
    out = io.StringIO()
    code = await run_client(
        echo_url, message="hi", output="json", headers={"X-Fail": "yes"}, stream=out
    )
    assert code == 1
    report = json.loads(out.getvalue())
    assert report["ok"] is False
    assert report["error"] == "RunError: [asked] told to fail"
    assert report["events"] == {"RUN_STARTED": 1, "RUN_ERROR": 1}
    assert report["outcome"] is None


async def test_text_output_streams_words_tool_calls_state_and_a_summary(echo_url: str) -> None:
    out = io.StringIO()
    code = await run_client(echo_url, message="hi", output="text", stream=out)
    assert code == 0
    assert out.getvalue() == (
        'state: {"echo":{},"n":0}\n'
        "assistant: You said: hi\n"
        'tool call lookup({"q": "x"})\n'
        "state change: replace /n 1\n"
        "--- success · 12 event(s) · 2 new message(s)\n"
        "pending tool calls: c1\n"
        'result: {"props":null}\n'
        'final state: {"echo":{},"n":1}\n'
    )


async def test_text_output_shows_the_failure(echo_url: str) -> None:
    out = io.StringIO()
    code = await run_client(echo_url, message="hi", headers={"X-Fail": "yes"}, stream=out)
    assert code == 1
    assert out.getvalue() == (
        "run error: [asked] told to fail\n"
        "--- failed after 2 event(s): RunError: [asked] told to fail\n"
    )


def test_command_line_parses_headers_json_and_output(
    echo_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "run",
            echo_url,
            "-m",
            "hello",
            "--state",
            '{"a": 2}',
            "--forwarded-props",
            '{"k": "v"}',
            "--header",
            "X-Fail: no",
            "--output",
            "json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["state"] == {"echo": {"a": 2}, "n": 1}
    assert report["messages"][1]["content"] == "You said: hello"


def test_command_line_rejects_bad_json_and_bad_headers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["run", "http://127.0.0.1:9/x", "--state", "{nope"])
    assert info.value.code == 2
    assert capsys.readouterr().err.startswith("agui run: argument --state: not valid JSON (")
    with pytest.raises(SystemExit) as info:
        main(["run", "http://127.0.0.1:9/x", "--header", "no-colon"])
    assert info.value.code == 2


def test_connection_refused_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    # Port 9 (discard) on loopback is closed on these machines: a TransportError, exit 1.
    code = main(["run", "http://127.0.0.1:9/agent", "-m", "x", "--output", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert report["ok"] is False
    assert report["error"].startswith("TransportError: request to http://127.0.0.1:9/agent failed")


async def test_text_output_lists_open_interrupts(echo_url: str) -> None:
    out = io.StringIO()
    code = await run_client(echo_url, message="hi", headers={"X-Interrupt": "yes"}, stream=out)
    assert code == 0
    assert out.getvalue() == (
        "--- interrupt · 2 event(s) · 0 new message(s)\n"
        "interrupt i1 (confirmation): Really delete?\n"
    )


async def test_json_output_carries_the_interrupt_outcome(echo_url: str) -> None:
    out = io.StringIO()
    code = await run_client(
        echo_url, message="hi", output="json", headers={"X-Interrupt": "yes"}, stream=out
    )
    assert code == 0
    assert json.loads(out.getvalue())["outcome"] == {
        "type": "interrupt",
        "interrupts": [{"id": "i1", "reason": "confirmation", "message": "Really delete?"}],
    }
