"""Provider faults on each API, end to end (the real SDK against the fake provider, the agent on
uvicorn, our ``HttpAgent``): tool-call arguments that are not JSON, stream events that cannot
be read, and a provider that does not answer, each ending with its documented code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai
import pytest

from ag_ui.providers import AnthropicMessages, ModelAgent, OpenAIChat, OpenAIResponses
from ag_ui.providers._provider import ModelProvider
from tests.providers.agui_server import AgentServer
from tests.providers.fake_provider import CHAT, MESSAGES, RESPONSES, FakeProvider, Reply, fixture
from tests.providers.runs import client, run_once

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Api:
    name: str
    path: str
    make: Callable[..., ModelProvider]
    tool_call: bytes
    """A fixture whose turn calls ``tool`` with ``{"city": "Paris"}`` (or ``{"hotel": ...}``)."""
    tool: str
    whole: tuple[bytes, ...]
    """The arguments' last pieces as the fixture has them ..."""
    cut: tuple[bytes, ...]
    """... and cut mid-JSON."""
    event: bytes
    """An SSE event line prefix that this API's SDK dispatches on."""

    def provider(self, fake: FakeProvider, **options: Any) -> ModelProvider:
        url = fake.url if self.path == MESSAGES else fake.openai_url
        return self.make("model-1", base_url=url, api_key="test-key", **options)

    def cut_arguments(self) -> Reply:
        body = fixture(self.tool_call)
        for whole, cut in zip(self.whole, self.cut, strict=True):
            assert whole in body
            body = body.replace(whole, cut)
        return Reply(body)


APIS = [
    Api(
        "chat",
        CHAT,
        OpenAIChat,
        "openai_chat_frontend_tool.sse",
        "confirm_booking",
        (b'"arguments":" \\"Ritz\\"}"',),
        (b'"arguments":" \\"Ri"',),
        b"",
    ),
    Api(
        "responses",
        RESPONSES,
        OpenAIResponses,
        "openai_responses_reasoning_tool.sse",
        "get_weather",
        (b'"delta":"\\"Paris\\"}"', b'"arguments":"{\\"city\\":\\"Paris\\"}"'),
        (b'"delta":"\\"Par"', b'"arguments":"{\\"city\\":\\"Par"'),
        b"event: response.created\n",
    ),
    Api(
        "anthropic",
        MESSAGES,
        AnthropicMessages,
        "anthropic_thinking_tool.sse",
        "get_weather",
        (b'"partial_json":"ris\\"}"',),
        (b'"partial_json":"ri"',),
        b"event: message_start\n",
    ),
]
BY_NAME = {api.name: api for api in APIS}
each_api = pytest.mark.parametrize("api", APIS, ids=[api.name for api in APIS])


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return "sunny"


def confirm_booking(hotel: str) -> str:
    """Book the hotel."""
    return "booked"


def _frontend(name: str) -> list[dict[str, Any]]:
    return [{"name": name, "description": "A client tool.", "parameters": {"type": "object"}}]


# -- tool-call arguments that are not JSON ---------------------------------------------------


@each_api
async def test_a_frontend_call_with_arguments_cut_mid_json_ends_the_run_with_an_error(
    fake: FakeProvider, api: Api
) -> None:
    fake.queue(api.path, api.cut_arguments())
    with (
        AgentServer(ModelAgent(api.provider(fake, max_retries=0)), debug=True) as server,
        pytest.warns(UserWarning, match="not JSON"),  # the client's own check agrees
    ):
        run = await run_once(client(server.url), tools=_frontend(api.tool))
    assert "RUN_FINISHED" not in run.types
    assert run.types[-2:] == ["TOOL_CALL_END", "RUN_ERROR"]
    error = run.of("RUN_ERROR")[0]
    assert error["code"] == "invalid_tool_arguments"
    assert "are not JSON" in error["message"]  # debug: the finding itself
    assert run.result is None


@each_api
async def test_a_backend_call_with_arguments_cut_mid_json_is_not_run(
    fake: FakeProvider, api: Api
) -> None:
    fake.queue(api.path, api.cut_arguments())
    tool = confirm_booking if api.tool == "confirm_booking" else get_weather
    agent = ModelAgent(api.provider(fake, max_retries=0), tools=[tool])
    with AgentServer(agent) as server, pytest.warns(UserWarning, match="not JSON"):
        run = await run_once(client(server.url))
    assert run.of("RUN_ERROR")[0]["code"] == "invalid_tool_arguments"
    assert "TOOL_CALL_RESULT" not in run.types
    assert "RUN_FINISHED" not in run.types
    assert len(fake.bodies(api.path)) == 1  # the model was not asked again


async def test_arguments_holding_nan_are_not_json_either(fake: FakeProvider) -> None:
    api = BY_NAME["chat"]
    body = fixture(api.tool_call).replace(b'" \\"Ritz\\"}"', b'" NaN}"')
    fake.queue(api.path, Reply(body))
    with (
        AgentServer(ModelAgent(api.provider(fake, max_retries=0))) as server,
        pytest.warns(UserWarning, match="NaN"),
    ):
        run = await run_once(client(server.url), tools=_frontend(api.tool))
    assert run.of("RUN_ERROR")[0]["code"] == "invalid_tool_arguments"


async def test_arguments_cut_by_the_output_limit_report_the_limit(fake: FakeProvider) -> None:
    api = BY_NAME["chat"]
    body = api.cut_arguments().body.replace(
        b'"finish_reason":"tool_calls"', b'"finish_reason":"length"'
    )
    fake.queue(api.path, Reply(body))
    with (
        AgentServer(ModelAgent(api.provider(fake, max_retries=0))) as server,
        pytest.warns(UserWarning, match="not JSON"),
    ):
        run = await run_once(client(server.url), tools=_frontend(api.tool))
    assert run.of("RUN_ERROR")[0]["code"] == "max_tokens_reached"


# -- stream events that cannot be read -------------------------------------------------------


@each_api
@pytest.mark.parametrize(
    ("data", "finding"),
    [
        pytest.param(b'{"type": "message_start", "choices": [', "is not JSON", id="not-json"),
        pytest.param(b"42", "a shape the adapter cannot read", id="not-an-object"),
    ],
)
async def test_a_stream_event_the_adapter_cannot_read_is_a_bad_response(
    fake: FakeProvider, api: Api, data: bytes, finding: str
) -> None:
    fake.queue(api.path, Reply(api.event + b"data: " + data + b"\n\n"))
    with AgentServer(ModelAgent(api.provider(fake, max_retries=0)), debug=True) as server:
        run = await run_once(client(server.url))
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    error = run.of("RUN_ERROR")[0]
    assert error["code"] == "provider_bad_response"
    assert error["message"].startswith("The model provider sent an answer this server cannot read")
    assert finding in error["message"]


@each_api
@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        pytest.param(b"<html><body>Welcome to nginx!</body></html>", "text/html", id="html"),
        pytest.param(b'{"id": "x", "choices": []}', "application/json", id="json"),
    ],
)
async def test_an_answer_that_is_not_an_event_stream_is_a_bad_response_not_a_cut_one(
    fake: FakeProvider, api: Api, body: bytes, content_type: str
) -> None:
    # A 200 of something else: a base URL that is not the model API's, or a server that
    # ignored stream=true. Retrying does not help, so it is not provider_stream_incomplete.
    fake.queue(api.path, Reply(body, content_type=content_type))
    with AgentServer(ModelAgent(api.provider(fake, max_retries=0)), debug=True) as server:
        run = await run_once(client(server.url))
    error = run.of("RUN_ERROR")[0]
    assert error["code"] == "provider_bad_response"
    assert f"the answer is {content_type}, not an event stream" in error["message"]


# -- one time budget for every try -----------------------------------------------------------


@each_api
async def test_a_provider_that_never_answers_ends_after_one_timeout_for_all_tries(
    fake: FakeProvider, api: Api
) -> None:
    fake.queue(api.path, Reply(silent=True), Reply(silent=True), Reply(silent=True))
    # The SDK's default of two retries: each used to wait the whole timeout again. (2 s: the
    # request must reach the fake provider, on a loaded machine too, before the budget ends.)
    with AgentServer(ModelAgent(api.provider(fake, timeout=2))) as server:
        run = await run_once(client(server.url))
    assert run.types == ["RUN_STARTED", "RUN_ERROR"]
    assert run.of("RUN_ERROR")[0]["code"] == "provider_timeout"
    assert len(fake.bodies(api.path)) == 1  # the budget was spent: no second try


@each_api
async def test_retries_within_the_budget_still_happen(fake: FakeProvider, api: Api) -> None:
    text = {
        "chat": "openai_chat_text.sse",
        "responses": "openai_responses_text.sse",
        "anthropic": "anthropic_text.sse",
    }[api.name]
    fake.queue(api.path, Reply.error(500, {"error": {"message": "boom"}}), Reply.sse(text))
    with AgentServer(ModelAgent(api.provider(fake, timeout=10))) as server:
        run = await run_once(client(server.url))
    assert run.error is None
    assert run.types[-1] == "RUN_FINISHED"
    assert len(fake.bodies(api.path)) == 2


async def test_retries_end_with_the_last_failure_when_they_run_out(fake: FakeProvider) -> None:
    api = BY_NAME["chat"]
    fake.queue(api.path, *[Reply.error(503, {"error": {"message": "down"}})] * 3)
    with AgentServer(ModelAgent(api.provider(fake, timeout=10, max_retries=2))) as server:
        run = await run_once(client(server.url))
    assert run.of("RUN_ERROR")[0]["code"] == "provider_error"
    assert len(fake.bodies(api.path)) == 3


async def test_a_wait_past_the_budget_is_not_waited_for(fake: FakeProvider) -> None:
    api = BY_NAME["anthropic"]
    limited = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    fake.queue(api.path, Reply.error(429, limited, headers={"retry-after": "30"}))
    with AgentServer(ModelAgent(api.provider(fake, timeout=2))) as server:
        run = await run_once(client(server.url))
    error = run.of("RUN_ERROR")[0]
    assert error["code"] == "rate_limited"  # the provider's own answer, not a timeout
    assert len(fake.bodies(api.path)) == 1


async def test_a_provider_that_says_not_to_retry_is_not_retried(fake: FakeProvider) -> None:
    api = BY_NAME["responses"]
    fake.queue(
        api.path,
        Reply.error(500, {"error": {"message": "final"}}, headers={"x-should-retry": "false"}),
    )
    with AgentServer(ModelAgent(api.provider(fake, timeout=10))) as server:
        run = await run_once(client(server.url))
    assert run.of("RUN_ERROR")[0]["code"] == "provider_error"
    assert len(fake.bodies(api.path)) == 1


async def test_a_client_of_your_own_brings_its_timeout_and_retries(fake: FakeProvider) -> None:
    fake.queue(CHAT, Reply(silent=True), Reply(silent=True), Reply(silent=True))
    own = openai.AsyncOpenAI(base_url=fake.openai_url, api_key="k", timeout=2, max_retries=2)
    provider = OpenAIChat("model-1", client=own)
    assert (provider.timeout, provider.max_retries) == (2, 2)
    try:
        with AgentServer(ModelAgent(provider)) as server:
            run = await run_once(client(server.url))
    finally:
        await own.close()
    assert run.of("RUN_ERROR")[0]["code"] == "provider_timeout"
    assert len(fake.bodies(CHAT)) == 1
    assert own.max_retries == 2  # the caller's client is left as it was
