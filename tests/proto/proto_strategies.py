"""Hypothesis strategies for wire-JSON events: every 1.0 event type, each optional field
present or absent (``EVENTS``: type -> (required fields, optional fields))."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

SAFE = 2**53 - 1
text = st.text(max_size=12)
ident = st.text(max_size=6)
json_scalar = (
    st.none()
    | st.booleans()
    | st.integers(-SAFE, SAFE)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
json_object = st.dictionaries(text, json_value, max_size=3)
count = st.integers(0, SAFE)
pointer = st.lists(st.text(alphabet="ab~01/", max_size=3), max_size=3).map(
    lambda parts: "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)
)


@st.composite
def fields(draw: Any, required: dict[str, Any], optional: dict[str, Any]) -> dict[str, Any]:
    """A dict with every required field and each optional one present or absent."""
    result = {key: draw(strategy) for key, strategy in required.items()}
    for key, strategy in optional.items():
        if draw(st.booleans()):
            result[key] = draw(strategy)
    return result


BASE = {"timestamp": st.integers(-SAFE, SAFE), "rawEvent": json_value, "metadata": json_object}
ATTRIBUTED = {**BASE, "subagentRunId": ident}
text_role = st.sampled_from(["developer", "system", "assistant", "user"])

source = st.one_of(
    fields({"type": st.just("data"), "value": text, "mimeType": text}, {}),
    fields({"type": st.just("url"), "value": text}, {"mimeType": text}),
    fields({"type": st.just("file"), "value": text}, {"provider": text, "mimeType": text}),
)
part = st.one_of(
    fields(
        {"type": st.just("text"), "text": text},
        {"id": ident, "metadata": json_value.filter(lambda v: v is not None)},
    ),
    *[
        fields(
            {"type": st.just(kind), "source": source},
            {"id": ident, "metadata": json_value.filter(lambda v: v is not None)},
        )
        for kind in ("image", "audio", "video", "document")
    ],
)
parts = st.lists(part, max_size=3)
tool_call = fields(
    {
        "id": ident,
        "type": st.just("function"),
        "function": fields({"name": text, "arguments": text}, {}),
    },
    {"encryptedValue": text, "metadata": json_object},
)
common_message = {"subagentRunId": ident, "metadata": json_object}
base_message = {**common_message, "name": text, "encryptedValue": text}
message = st.one_of(
    fields({"id": ident, "role": st.just("developer"), "content": text}, base_message),
    fields({"id": ident, "role": st.just("system"), "content": text}, base_message),
    fields(
        {"id": ident, "role": st.just("assistant")},
        {**base_message, "content": text, "toolCalls": st.lists(tool_call, min_size=1, max_size=2)},
    ),
    fields({"id": ident, "role": st.just("user"), "content": text | parts}, base_message),
    fields(
        {"id": ident, "role": st.just("tool"), "content": text | parts, "toolCallId": ident},
        {**common_message, "error": text, "encryptedValue": text},
    ),
    fields(
        {"id": ident, "role": st.just("activity"), "activityType": text, "content": json_object},
        common_message,
    ),
    fields(
        {"id": ident, "role": st.just("reasoning"), "content": text},
        {**common_message, "encryptedValue": text},
    ),
)
messages = st.lists(message, max_size=3)
patch = st.lists(
    st.one_of(
        fields(
            {
                "op": st.sampled_from(["add", "replace", "test"]),
                "path": pointer,
                "value": json_value,
            },
            {},
        ),
        fields({"op": st.just("remove"), "path": pointer}, {}),
        fields({"op": st.sampled_from(["move", "copy"]), "from": pointer, "path": pointer}, {}),
    ),
    max_size=3,
)
usage = st.lists(
    fields(
        {},
        {
            "provider": text,
            "model": text,
            **dict.fromkeys(
                (
                    "inputTokens",
                    "outputTokens",
                    "totalTokens",
                    "reasoningTokens",
                    "cachedInputTokens",
                    "cacheWriteInputTokens",
                ),
                count,
            ),
        },
    ),
    min_size=1,
    max_size=2,
)
interrupt = fields(
    {"id": ident, "reason": text},
    {
        "subagentRunId": ident,
        "message": text,
        "toolCallId": ident,
        "responseSchema": json_object,
        "expiresAt": text,
        "metadata": json_object,
    },
)
run_input = fields(
    {"threadId": ident, "runId": ident, "messages": messages},
    {
        "protocolVersion": text,
        "parentRunId": ident,
        "state": json_value.filter(lambda v: v is not None),
        "tools": st.lists(
            fields(
                {"name": text, "description": text},
                {"parameters": json_value.filter(lambda v: v is not None), "metadata": json_object},
            ),
            max_size=2,
        ),
        "context": st.lists(fields({"description": text, "value": text}, {}), max_size=2),
        "forwardedProps": json_value.filter(lambda v: v is not None),
        "resume": st.lists(
            fields(
                {"interruptId": ident, "status": st.sampled_from(["resolved", "cancelled"])},
                {"payload": json_value.filter(lambda v: v is not None), "metadata": json_object},
            ),
            min_size=1,
            max_size=2,
        ),
    },
)
run_outcome = st.one_of(
    fields(
        {"type": st.just("success")},
        {"pendingToolCallIds": st.lists(ident, min_size=1, max_size=2)},
    ),
    fields(
        {"type": st.just("interrupt"), "interrupts": st.lists(interrupt, min_size=1, max_size=2)},
        {},
    ),
    st.just({"type": "cancelled"}),
)
subagent_outcome = st.one_of(
    st.just({"type": "success"}),
    fields(
        {"type": st.just("suspended")}, {"interruptIds": st.lists(ident, min_size=1, max_size=2)}
    ),
)
non_null = json_value.filter(lambda v: v is not None)

EVENTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "TEXT_MESSAGE_START": ({"messageId": ident}, {**ATTRIBUTED, "role": text_role, "name": text}),
    "TEXT_MESSAGE_CONTENT": ({"messageId": ident, "delta": text}, ATTRIBUTED),
    "TEXT_MESSAGE_END": ({"messageId": ident}, ATTRIBUTED),
    "TEXT_MESSAGE_CHUNK": (
        {},
        {**ATTRIBUTED, "messageId": ident, "role": text_role, "delta": text, "name": text},
    ),
    "TOOL_CALL_START": (
        {"toolCallId": ident, "toolCallName": text},
        {**ATTRIBUTED, "parentMessageId": ident},
    ),
    "TOOL_CALL_ARGS": ({"toolCallId": ident, "delta": text}, ATTRIBUTED),
    "TOOL_CALL_END": ({"toolCallId": ident}, ATTRIBUTED),
    "TOOL_CALL_CHUNK": (
        {},
        {
            **ATTRIBUTED,
            "toolCallId": ident,
            "toolCallName": text,
            "parentMessageId": ident,
            "delta": text,
        },
    ),
    "TOOL_CALL_RESULT": (
        {"messageId": ident, "toolCallId": ident, "content": text | parts},
        {**ATTRIBUTED, "role": st.just("tool")},
    ),
    "STATE_SNAPSHOT": ({"snapshot": json_value}, ATTRIBUTED),
    "STATE_DELTA": ({"delta": patch}, ATTRIBUTED),
    "MESSAGES_SNAPSHOT": ({"messages": messages}, BASE),
    "ACTIVITY_SNAPSHOT": (
        {"messageId": ident, "activityType": text, "content": json_object},
        {**ATTRIBUTED, "replace": st.booleans()},
    ),
    "ACTIVITY_DELTA": ({"messageId": ident, "activityType": text, "patch": patch}, ATTRIBUTED),
    "RAW": ({"event": json_value}, {**ATTRIBUTED, "source": text}),
    "CUSTOM": ({"name": text, "value": json_value}, ATTRIBUTED),
    "RUN_STARTED": (
        {"threadId": ident, "runId": ident},
        {**BASE, "protocolVersion": text, "parentRunId": ident, "input": run_input},
    ),
    "RUN_FINISHED": (
        {"threadId": ident, "runId": ident},
        {**BASE, "result": non_null, "outcome": run_outcome, "usage": usage},
    ),
    "RUN_ERROR": ({"message": text}, {**BASE, "code": text, "usage": usage}),
    "STEP_STARTED": ({"stepName": text}, ATTRIBUTED),
    "STEP_FINISHED": ({"stepName": text}, ATTRIBUTED),
    "REASONING_START": ({"messageId": ident}, ATTRIBUTED),
    "REASONING_MESSAGE_START": ({"messageId": ident, "role": st.just("reasoning")}, ATTRIBUTED),
    "REASONING_MESSAGE_CONTENT": ({"messageId": ident, "delta": text}, ATTRIBUTED),
    "REASONING_MESSAGE_END": ({"messageId": ident}, ATTRIBUTED),
    "REASONING_MESSAGE_CHUNK": ({}, {**ATTRIBUTED, "messageId": ident, "delta": text}),
    "REASONING_END": ({"messageId": ident}, ATTRIBUTED),
    "REASONING_ENCRYPTED_VALUE": (
        {
            "subtype": st.sampled_from(["tool-call", "message"]),
            "entityId": ident,
            "encryptedValue": text,
        },
        ATTRIBUTED,
    ),
    "SUBAGENT_STARTED": (
        {"subagentRunId": ident, "name": text},
        {
            **BASE,
            "description": text,
            "parentSubagentRunId": ident,
            "parentToolCallId": ident,
            "parentMessageId": ident,
        },
    ),
    "SUBAGENT_FINISHED": (
        {"subagentRunId": ident},
        {**BASE, "result": non_null, "outcome": subagent_outcome},
    ),
    "SUBAGENT_ERROR": ({"subagentRunId": ident, "message": text}, {**BASE, "code": text}),
}
