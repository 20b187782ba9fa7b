"""AG-UI messages -> each API's request: every role, multimodal parts with data, URL and file
sources, tool messages with ``error``, reasoning with encrypted values; unsupported parts are
errors naming the part; the documented fallbacks apply."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pydantic import TypeAdapter

from ag_ui.core import Context, Message, RunError, Tool
from ag_ui.providers import (
    Conversation,
    anthropic_request,
    chat_request,
    prepare_messages,
    responses_request,
    system_text,
)

MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
PNG = base64.b64encode(b"\x89PNG fake").decode()
PDF = base64.b64encode(b"%PDF-1.7 fake").decode()
NOTES = base64.b64encode("Notes: ünïcode".encode()).decode()
WAV = base64.b64encode(b"RIFF fake").decode()


def messages(*wire: dict[str, Any]) -> list[Message]:
    return prepare_messages(MESSAGES.validate_python(list(wire)))


MULTIMODAL_USER = {
    "id": "u1",
    "role": "user",
    "content": [
        {"type": "text", "text": "Look:"},
        {"type": "image", "source": {"type": "data", "value": PNG, "mimeType": "image/png"}},
        {"type": "image", "source": {"type": "url", "value": "https://example.com/cat.jpg"}},
        {
            "type": "document",
            "source": {"type": "data", "value": PDF, "mimeType": "application/pdf"},
            "metadata": {"filename": "report.pdf"},
        },
        {"type": "document", "source": {"type": "data", "value": NOTES, "mimeType": "text/plain"}},
    ],
}

CONVERSATION = [
    {"id": "s1", "role": "system", "content": "Be kind."},
    {"id": "d1", "role": "developer", "content": "Use metric units."},
    MULTIMODAL_USER,
    {"id": "r1", "role": "reasoning", "content": "Think.", "encryptedValue": "sig-1"},
    {
        "id": "a1",
        "role": "assistant",
        "content": "Checking both.",
        "toolCalls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"q": 1}'},
            },
            {"id": "c2", "type": "function", "function": {"name": "lookup", "arguments": "{bad"}},
        ],
    },
    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "found"},
    {"id": "t2", "role": "tool", "toolCallId": "c2", "content": "partial", "error": "timed out"},
    {"id": "u2", "role": "user", "content": "Thanks", "name": "ana"},
]

TOOLS = [
    Tool(
        name="lookup",
        description="Look up.",
        parameters={"type": "object", "properties": {"q": {"type": "integer"}}},
    ),
    Tool(name="ping", description="No arguments."),
]


def conversation() -> Conversation:
    return Conversation(messages=messages(*CONVERSATION), system="You help.", tools=TOOLS)


def test_chat_completions_request() -> None:
    request = chat_request(conversation())
    assert request["messages"] == [
        {"role": "system", "content": "You help."},
        {"role": "system", "content": "Be kind."},
        {"role": "system", "content": "Use metric units."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
                {
                    "type": "file",
                    "file": {
                        "file_data": f"data:application/pdf;base64,{PDF}",
                        "filename": "report.pdf",
                    },
                },
                {"type": "text", "text": "Notes: ünïcode"},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking both.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"q": 1}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": "{bad"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "found"},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: timed out\npartial"},
        {"role": "user", "content": "Thanks", "name": "ana"},
    ]
    assert request["tools"][1] == {
        "type": "function",
        "function": {
            "name": "ping",
            "description": "No arguments.",
            "parameters": {"type": "object", "properties": {}},
        },
    }


def test_responses_request() -> None:
    request = responses_request(conversation())
    assert request["instructions"] == "You help."
    assert request["input"] == [
        {"type": "message", "role": "system", "content": "Be kind."},
        {"type": "message", "role": "developer", "content": "Use metric units."},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Look:"},
                {
                    "type": "input_image",
                    "image_url": f"data:image/png;base64,{PNG}",
                    "detail": "auto",
                },
                {
                    "type": "input_image",
                    "image_url": "https://example.com/cat.jpg",
                    "detail": "auto",
                },
                {
                    "type": "input_file",
                    "file_data": f"data:application/pdf;base64,{PDF}",
                    "filename": "report.pdf",
                },
                {"type": "input_text", "text": "Notes: ünïcode"},
            ],
        },
        {
            "type": "reasoning",
            "id": "r1",
            "summary": [{"type": "summary_text", "text": "Think."}],
            "encrypted_content": "sig-1",
        },
        {"type": "message", "role": "assistant", "content": "Checking both."},
        {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": '{"q": 1}'},
        {"type": "function_call", "call_id": "c2", "name": "lookup", "arguments": "{bad"},
        {"type": "function_call_output", "call_id": "c1", "output": "found"},
        {"type": "function_call_output", "call_id": "c2", "output": "Error: timed out\npartial"},
        {"type": "message", "role": "user", "content": "Thanks"},
    ]
    assert request["tools"][0] == {
        "type": "function",
        "name": "lookup",
        "description": "Look up.",
        "parameters": {"type": "object", "properties": {"q": {"type": "integer"}}},
        "strict": False,
    }


def test_anthropic_request() -> None:
    request = anthropic_request(conversation())
    assert request["system"] == "You help.\n\nBe kind.\n\nUse metric units."
    assert request["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look:"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                },
                {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
                {
                    "type": "document",
                    "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
                },
                {
                    "type": "document",
                    "source": {
                        "type": "text",
                        "media_type": "text/plain",
                        "data": "Notes: ünïcode",
                    },
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Think.", "signature": "sig-1"},
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "c1", "name": "lookup", "input": {"q": 1}},
                # Arguments the model broke go back as no input (the result said so).
                {"type": "tool_use", "id": "c2", "name": "lookup", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "found"},
                {
                    "type": "tool_result",
                    "tool_use_id": "c2",
                    "content": "Error: timed out\npartial",
                    "is_error": True,
                },
                {"type": "text", "text": "Thanks"},
            ],
        },
    ]
    assert request["tools"][1] == {
        "name": "ping",
        "description": "No arguments.",
        "input_schema": {"type": "object", "properties": {}},
    }


def test_file_sources_go_to_the_provider_that_holds_them() -> None:
    user = {
        "id": "u1",
        "role": "user",
        "content": [
            {
                "type": "document",
                "source": {"type": "file", "value": "file-abc", "provider": "openai"},
            },
            {"type": "image", "source": {"type": "file", "value": "file-img"}},
        ],
    }
    assert responses_request(Conversation(messages(user)))["input"][0]["content"] == [
        {"type": "input_file", "file_id": "file-abc"},
        {"type": "input_image", "file_id": "file-img", "detail": "auto"},
    ]
    anthropic_user = {
        "id": "u1",
        "role": "user",
        "content": [
            {
                "type": "image",
                "source": {"type": "file", "value": "file_011", "provider": "anthropic"},
            }
        ],
    }
    assert anthropic_request(Conversation(messages(anthropic_user)))["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "file", "file_id": "file_011"}}
    ]


def test_wav_audio_goes_to_chat_completions_as_input_audio() -> None:
    user = {
        "id": "u1",
        "role": "user",
        "content": [
            {"type": "audio", "source": {"type": "data", "value": WAV, "mimeType": "audio/wav"}}
        ],
    }
    assert chat_request(Conversation(messages(user)))["messages"][0]["content"] == [
        {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}}
    ]


def test_the_retired_binary_part_is_upgraded() -> None:
    user = {
        "id": "u1",
        "role": "user",
        "content": [{"type": "binary", "mimeType": "image/png", "data": PNG}],
    }
    with pytest.warns(DeprecationWarning, match="BinaryInputContent is deprecated"):
        prepared = messages(user)
    assert chat_request(Conversation(prepared))["messages"][0]["content"] == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    ]


VIDEO = {
    "type": "video",
    "source": {"type": "url", "value": "https://example.com/v.mp4", "mimeType": "video/mp4"},
}
AUDIO_URL = {"type": "audio", "source": {"type": "url", "value": "https://example.com/a.mp3"}}


@pytest.mark.parametrize(
    ("build", "part", "api"),
    [
        (chat_request, VIDEO, "OpenAI Chat Completions"),
        (chat_request, AUDIO_URL, "OpenAI Chat Completions"),
        (responses_request, AUDIO_URL, "OpenAI Responses"),
        (anthropic_request, VIDEO, "Anthropic Messages"),
        (
            anthropic_request,
            {
                "type": "document",
                "source": {"type": "file", "value": "file-x", "provider": "openai"},
            },
            "Anthropic Messages",
        ),
    ],
)
def test_a_part_the_api_cannot_take_is_an_error_naming_it(build: Any, part: Any, api: str) -> None:
    user = {"id": "u1", "role": "user", "content": [{"type": "text", "text": "hi"}, part]}
    with pytest.raises(RunError) as caught:
        build(Conversation(messages(user)))
    assert caught.value.code == "unsupported_content"
    message = caught.value.message
    assert message.startswith('messages[0] (role "user") part 1: ')
    assert api in message
    assert part["type"] in message
    assert part["source"]["type"] in message


def test_images_in_tool_results_where_the_api_takes_them() -> None:
    history = [
        {"id": "u1", "role": "user", "content": "draw"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "draw", "arguments": "{}"}}
            ],
        },
        {
            "id": "t1",
            "role": "tool",
            "toolCallId": "c1",
            "content": [
                {"type": "text", "text": "here"},
                {
                    "type": "image",
                    "source": {"type": "data", "value": PNG, "mimeType": "image/png"},
                },
            ],
        },
    ]
    conv = Conversation(messages(*history))
    assert responses_request(conv)["input"][-1]["output"] == [
        {"type": "input_text", "text": "here"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"},
    ]
    assert anthropic_request(conv)["messages"][-1]["content"][0]["content"] == [
        {"type": "text", "text": "here"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
    ]
    with pytest.raises(RunError, match="only text in tool results"):
        chat_request(conv)


def test_unanswered_tool_calls_get_a_not_answered_result_after_their_turn() -> None:
    prepared = messages(
        {"id": "u1", "role": "user", "content": "book"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{}"}},
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "ok"},
        {"id": "u2", "role": "user", "content": "never mind"},
    )
    assert [(m.role, getattr(m, "tool_call_id", None)) for m in prepared] == [
        ("user", None),
        ("assistant", None),
        ("tool", "c1"),
        ("tool", "c2"),
        ("user", None),
    ]
    assert prepared[3].error is not None
    assert "not answered" in prepared[3].error


def test_orphan_tool_results_become_user_text_and_activity_is_left_out() -> None:
    prepared = messages(
        {"id": "t0", "role": "tool", "toolCallId": "gone", "content": "42"},
        {"id": "act", "role": "activity", "activityType": "plan", "content": {"steps": []}},
        {"id": "u1", "role": "user", "content": "and?"},
    )
    assert [m.role for m in prepared] == ["user", "user"]
    assert prepared[0].content == "(The result of tool call gone:)\n42"


def test_reasoning_after_its_assistant_message_joins_it_for_anthropic() -> None:
    request = anthropic_request(
        Conversation(
            messages(
                {"id": "u1", "role": "user", "content": "hi"},
                {"id": "a1", "role": "assistant", "content": "Hello"},
                {"id": "r1", "role": "reasoning", "content": "hm", "encryptedValue": "sig"},
                {"id": "r2", "role": "reasoning", "content": "no signature: left out"},
                {"id": "u2", "role": "user", "content": "bye"},
            )
        )
    )
    assert request["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "hm", "signature": "sig"},
        {"type": "text", "text": "Hello"},
    ]


def test_anthropic_thinking_by_value_type_and_the_older_prefix() -> None:
    request = anthropic_request(
        Conversation(
            messages(
                {"id": "u1", "role": "user", "content": "hi"},
                {
                    "id": "r1",
                    "role": "reasoning",
                    "content": "",
                    "encryptedValue": "DATA",
                    "encryptedValueType": "anthropic.redacted_thinking",
                },
                # Stored by this SDK before 1.1: the kind was a prefix of the value.
                {
                    "id": "r2",
                    "role": "reasoning",
                    "content": "",
                    "encryptedValue": "redacted_thinking:OLD",
                },
                # Another provider's artefact: never sent to Anthropic.
                {
                    "id": "r3",
                    "role": "reasoning",
                    "content": "x",
                    "encryptedValue": "gAAAA",
                    "encryptedValueType": "openai.encrypted_content",
                },
                {"id": "a1", "role": "assistant", "content": "Hello"},
            )
        )
    )
    assert request["messages"][1]["content"] == [
        {"type": "redacted_thinking", "data": "DATA"},
        {"type": "redacted_thinking", "data": "OLD"},
        {"type": "text", "text": "Hello"},
    ]


def test_responses_sends_back_only_its_own_or_untyped_encrypted_content() -> None:
    def reasoning(message_id: str, **typed: str) -> dict[str, Any]:
        return {
            "id": message_id,
            "role": "reasoning",
            "content": "",
            "encryptedValue": f"E-{message_id}",
            **typed,
        }

    request = responses_request(
        Conversation(
            messages(
                {"id": "u1", "role": "user", "content": "hi"},
                reasoning("r1", encryptedValueType="openai.encrypted_content"),
                reasoning("r2"),
                reasoning("r3", encryptedValueType="anthropic.redacted_thinking"),
            )
        )
    )
    assert [item.get("encrypted_content") for item in request["input"][1:]] == ["E-r1", "E-r2"]


def test_chat_completions_leaves_reasoning_out() -> None:
    request = chat_request(
        Conversation(
            messages(
                {"id": "r1", "role": "reasoning", "content": "hm", "encryptedValue": "x"},
                {"id": "u1", "role": "user", "content": "hi"},
            )
        )
    )
    assert request["messages"] == [{"role": "user", "content": "hi"}]


def test_system_text_orders_instructions_context_and_state() -> None:
    text = system_text(
        "Be brief.",
        [Context(description="User locale", value="fr-FR")],
        state={"b": 1, "a": "é"},
        share_state=True,
        state_tool="update_state",
    )
    assert text == (
        "Be brief.\n\nContext from the application:\n- User locale: fr-FR\n\n"
        "The application's shared state (JSON), which the user also sees:\n"
        '{"a": "é", "b": 1}\nCall update_state to change it.'
    )
    assert system_text(None, []) is None


def test_anthropic_never_gets_nan_as_a_tool_input() -> None:
    # Arguments holding NaN are not JSON (the API would refuse the request): no input, as for
    # any arguments the model broke.
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": NaN}'}}
    history = messages(
        {"id": "u1", "role": "user", "content": "go"},
        {"id": "a1", "role": "assistant", "toolCalls": [call]},
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "bad arguments"},
    )
    [_, assistant, _] = anthropic_request(Conversation(history))["messages"]
    assert assistant["content"] == [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]
