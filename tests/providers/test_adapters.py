"""The stream adapters on their own (sans-IO), on the SDKs' own chunk models: the cases a
compatible server or an unusual stream produces; every output passes the verifier.

Stream events are built with the SDKs' ``construct_type``, the lenient construction their
streams apply to each event (strict validation would demand every field of a full response).
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic._models import construct_type as anthropic_construct
from anthropic.types import RawMessageStreamEvent
from openai._models import construct_type as openai_construct
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.core.errors import ProviderError
from ag_ui.providers import AnthropicAdapter, ChatCompletionsAdapter, ResponsesAdapter
from ag_ui.server import RunGuard
from ag_ui.verify import EventVerifier


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> ChatCompletionChunk:
    return ChatCompletionChunk.model_validate(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "local-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
    )


def run_through(adapter: Any, chunks: list[Any]) -> list[BaseEvent]:
    """The adapter's events wrapped in a run, checked by the verifier."""
    guard = RunGuard(RunAgentInput(thread_id="t", run_id="r", messages=[]))
    events: list[BaseEvent] = []
    for item in chunks:
        for event in adapter.feed(item):
            events += guard.admit(event)
    for event in adapter.close():
        events += guard.admit(event)
    events += guard.finish()
    verifier = EventVerifier()
    for event in events:
        verifier.feed(event)
    verifier.finish()
    return events[1:-1]


def types(events: list[BaseEvent]) -> list[str]:
    return [event.type.value for event in events]


def test_arguments_before_the_name_wait_for_it_and_a_missing_id_is_minted() -> None:
    adapter = ChatCompletionsAdapter(message_id="m")
    events = run_through(
        adapter,
        [
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a":'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": "1}"}}]}),
            chunk({}, "tool_calls"),
        ],
    )
    assert [e.model_dump(by_alias=True, exclude_none=True) for e in events] == [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "call-1",
            "toolCallName": "f",
            "parentMessageId": "m",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call-1", "delta": '{"a":'},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call-1", "delta": "1}"},
        {"type": "TOOL_CALL_END", "toolCallId": "call-1"},
    ]
    assert adapter.turn.stop_reason == "tool_calls"
    assert adapter.turn.tool_calls[0].function.arguments == '{"a":1}'


def test_text_after_a_tool_call_reopens_the_same_message() -> None:
    adapter = ChatCompletionsAdapter(message_id="m")
    events = run_through(
        adapter,
        [
            chunk({"content": "Let me check."}),
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "f", "arguments": ""}}
                    ]
                }
            ),
            chunk({"content": " Done."}),
            chunk({}, "tool_calls"),
        ],
    )
    assert types(events) == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
    ]
    # A call with no arguments gets {} so its arguments are always JSON.
    assert events[-2].delta == "{}"  # type: ignore[attr-defined]
    [message] = adapter.turn.messages
    assert message.content == "Let me check. Done."


def test_refusal_is_text_and_other_choices_are_ignored() -> None:
    adapter = ChatCompletionsAdapter(message_id="m")
    other = ChatCompletionChunk.model_validate(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "x",
            "choices": [{"index": 1, "delta": {"content": "other"}, "finish_reason": None}],
        }
    )
    run_through(adapter, [chunk({"refusal": "I can't help with that."}), other, chunk({}, "stop")])
    assert adapter.turn.messages[0].content == "I can't help with that."  # type: ignore[union-attr]


def test_a_tool_call_that_never_gets_a_name_is_a_bad_response() -> None:
    adapter = ChatCompletionsAdapter(message_id="m")
    adapter.feed(chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"arguments": "{}"}}]}))
    adapter.feed(chunk({}, "tool_calls"))
    with pytest.raises(ProviderError) as caught:
        adapter.close()
    assert caught.value.code == "provider_bad_response"


def test_no_finish_reason_is_an_incomplete_stream() -> None:
    adapter = ChatCompletionsAdapter(message_id="m")
    adapter.feed(chunk({"content": "Hel"}))
    with pytest.raises(ProviderError) as caught:
        adapter.close()
    assert caught.value.code == "provider_stream_incomplete"


def test_a_usage_chunk_without_details() -> None:
    adapter = ChatCompletionsAdapter(message_id="m")
    usage = ChatCompletionChunk.model_validate(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "llama",
            "choices": [],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    )
    run_through(adapter, [chunk({"content": "x"}, "stop"), usage])
    assert adapter.turn.usage is not None
    assert adapter.turn.usage.model_dump(exclude_none=True) == {
        "provider": "openai",
        "model": "local-model",
        "input_tokens": 3,
        "output_tokens": 2,
        "total_tokens": 5,
    }


def responses_events(*items: dict[str, Any]) -> list[Any]:
    return [openai_construct(type_=ResponseStreamEvent, value=item) for item in items]


RESPONSE = {
    "id": "r",
    "object": "response",
    "created_at": 0,
    "model": "m",
    "output": [],
    "status": "completed",
}


def test_a_function_call_sent_only_as_a_finished_item() -> None:
    adapter = ResponsesAdapter(message_id="m")
    item = {
        "type": "function_call",
        "id": "fc",
        "call_id": "c9",
        "name": "f",
        "arguments": '{"x":1}',
    }
    events = run_through(
        adapter,
        responses_events(
            {
                "type": "response.output_item.done",
                "sequence_number": 1,
                "output_index": 0,
                "item": item,
            },
            {"type": "response.completed", "sequence_number": 2, "response": RESPONSE},
        ),
    )
    assert types(events) == ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    assert adapter.turn.tool_calls[0].function.arguments == '{"x":1}'


def test_reasoning_summary_parts_are_paragraphs_and_an_unstreamed_summary_is_sent() -> None:
    adapter = ResponsesAdapter(message_id="m")
    added = {"type": "reasoning", "id": "rs", "summary": []}
    run_through(
        adapter,
        responses_events(
            {
                "type": "response.output_item.added",
                "sequence_number": 0,
                "output_index": 0,
                "item": added,
            },
            {
                "type": "response.reasoning_summary_text.delta",
                "sequence_number": 1,
                "item_id": "rs",
                "output_index": 0,
                "summary_index": 0,
                "delta": "One.",
            },
            {
                "type": "response.reasoning_summary_part.added",
                "sequence_number": 2,
                "item_id": "rs",
                "output_index": 0,
                "summary_index": 1,
                "part": {"type": "summary_text", "text": ""},
            },
            {
                "type": "response.reasoning_summary_text.delta",
                "sequence_number": 3,
                "item_id": "rs",
                "output_index": 0,
                "summary_index": 1,
                "delta": "Two.",
            },
            {
                "type": "response.output_item.done",
                "sequence_number": 4,
                "output_index": 0,
                "item": {**added, "encrypted_content": "E"},
            },
            {
                "type": "response.output_item.done",
                "sequence_number": 5,
                "output_index": 1,
                "item": {
                    "type": "reasoning",
                    "id": "rs2",
                    "summary": [{"type": "summary_text", "text": "Whole."}],
                },
            },
            {"type": "response.completed", "sequence_number": 6, "response": RESPONSE},
        ),
    )
    first, second = adapter.turn.messages
    assert (first.content, first.encrypted_value) == ("One.\n\nTwo.", "E")  # type: ignore[union-attr]
    assert first.encrypted_value_type == "openai.encrypted_content"  # type: ignore[union-attr]
    assert second.content == "Whole."
    # Without encrypted content there is no value, so no type either (rule G6).
    assert second.encrypted_value_type is None  # type: ignore[union-attr]


def test_responses_incomplete_for_max_output_tokens() -> None:
    adapter = ResponsesAdapter(message_id="m")
    incomplete = {
        **RESPONSE,
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    }
    run_through(
        adapter,
        responses_events(
            {"type": "response.incomplete", "sequence_number": 0, "response": incomplete}
        ),
    )
    assert adapter.turn.stop_reason == "max_tokens"


def anthropic_events(*items: dict[str, Any]) -> list[Any]:
    return [anthropic_construct(type_=RawMessageStreamEvent, value=item) for item in items]


MESSAGE = {
    "id": "msg",
    "type": "message",
    "role": "assistant",
    "model": "claude",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 5, "output_tokens": 1},
}


def test_anthropic_tool_use_with_its_whole_input_up_front_and_pause_turn() -> None:
    adapter = AnthropicAdapter(message_id="m")
    events = run_through(
        adapter,
        anthropic_events(
            {"type": "message_start", "message": MESSAGE},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "pause_turn", "stop_sequence": None},
                "usage": {"output_tokens": 7},
            },
            {"type": "message_stop"},
        ),
    )
    assert types(events) == ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    assert adapter.turn.tool_calls[0].function.arguments == '{"a":1}'
    assert adapter.turn.stop_reason == "pause_turn"
    assert adapter.turn.usage is not None
    assert adapter.turn.usage.output_tokens == 7
