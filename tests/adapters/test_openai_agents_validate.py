"""``agui validate``'s scenarios against an Agents SDK agent served by ``OpenAIAgentsAgent``.

The model is a local server speaking the Responses API's streaming wire format that answers
each request from what it holds (the SDK's own ``OpenAIResponsesModel`` talks to it over HTTP):
a tool output gets "The tool said ...", "book" calls a tool that needs approval, "tool" calls
the client's tool when one is offered, anything else is echoed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from agents import Agent, OpenAIResponsesModel, function_tool
from openai import AsyncOpenAI

from ag_ui.adapters.openai_agents import OpenAIAgentsAgent
from ag_ui.server import create_app
from ag_ui.store import InMemoryRunStore
from ag_ui.testing import validate
from tests.adapters import openai_agents_helpers  # noqa: F401  (tracing off)
from tests.adapters import responses_script as script
from tests.providers.agui_server import UvicornThread

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@function_tool(needs_approval=True)
def book_table(guests: int) -> str:
    """Book a table."""
    return f"booked for {guests}"


def _text_of(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or () if isinstance(part, dict))


def answer(body: dict[str, Any]) -> bytes:
    """The scripted model: one streamed response for one request body."""
    items = body.get("input") or []
    last = items[-1] if items else {}
    if last.get("type") == "function_call_output":
        reply = script.text("msg_t", f"The tool said {last.get('output')}.")
    else:
        prompt = _text_of(last)
        client_tools = [t["name"] for t in body.get("tools") or () if t["name"] != "book_table"]
        if "book" in prompt.lower():
            reply = script.whole_call("fc_b", f"call_b{len(items)}", "book_table", {"guests": 2})
        elif "tool" in prompt.lower() and client_tools:
            reply = script.whole_call(
                "fc_e", f"call_e{len(items)}", client_tools[0], {"text": "ping"}
            )
        else:
            reply = script.text("msg_e", "You said: ", prompt)
    return script.response(reply).body


async def responses_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    payload = answer(json.loads(body))
    headers = [(b"content-type", b"text/event-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


@pytest.fixture
def model_url() -> Iterator[str]:
    server = UvicornThread(responses_app, lifespan="off", interface="asgi3")
    server.start()
    try:
        yield f"http://127.0.0.1:{server.port}/v1"
    finally:
        server.stop()


async def test_every_validate_scenario_passes_but_state(model_url: str) -> None:
    client = AsyncOpenAI(base_url=model_url, api_key="sk-test", max_retries=0)
    agent = Agent(name="desk", model=OpenAIResponsesModel("gpt-5-mini", client), tools=[book_table])
    served = OpenAIAgentsAgent(agent)
    app = create_app(served, store=InMemoryRunStore(), capabilities=served.capabilities())
    report = await validate(app, messages={"interrupt": "book a table", "tools": "call the tool"})
    failed = {
        s.name: [f.message for f in s.findings if f.severity == "error"]
        for s in report.scenarios
        if s.status == "failed"
    }
    assert failed == {}, report.text()
    not_passed = {s.name: s.status for s in report.scenarios if s.status != "passed"}
    # The adapter keeps no AG-UI state (an Agents SDK agent has none to show): not exercised.
    assert not_passed == {"state": "not exercised"}, report.text()
    assert len(report.scenarios) == 11
