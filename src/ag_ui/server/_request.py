"""Request checks for a run endpoint, without I/O: each returns or raises a typed rejection.

Checked in this order, so the cheapest refusal comes first and nothing is read that will be
thrown away: method (405), authorization (401/403, in the endpoint), content type (415), declared
size (413), then the body itself: its deadline (408), size (413), JSON (400), schema (422), the
number of messages (413), the depth of its free-form JSON (400 ``too_deep``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Optional

from ag_ui.core.errors import AGUIValidationError, MalformedJSONError, RequestRejectedError
from ag_ui.core.types import RunAgentInput

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_MAX_BODY_SIZE",
    "MAX_JSON_DEPTH",
    "body_timed_out",
    "check_depth",
    "check_content_type",
    "check_declared_size",
    "check_method",
    "error_body",
    "rejection_for",
    "too_large",
    "too_many_messages",
]

DEFAULT_MAX_BODY_SIZE = 10 * 1024 * 1024
"""10 MiB, the same cap the TypeScript client puts on one SSE frame."""

DEFAULT_BODY_TIMEOUT = 30.0
"""Seconds a client has to send the whole body: 10 MiB in that time is about 350 KB/s, while a
client that trickles bytes (or declares more than it sends) cannot hold a connection longer."""


MAX_JSON_DEPTH = 128
"""The deepest nesting of objects and arrays a request's free-form JSON (``state``,
``forwardedProps``, a tool's ``parameters``, a message's ``content`` or ``metadata``) may
have. Deeper values are refused at the door (400 ``too_deep``): every step of a run (the state
diff, the thread store, the reducer) handles this depth, while a few hundred levels would
exhaust Python's recursion mid-run."""


_TOO_DEEP_FOR_THE_PARSER = "recursion limit exceeded"
"""How the JSON parsers say a body nests deeper than they read (pydantic's, and the sliced
parse's own, ``_sliced_parse``): far past ``MAX_JSON_DEPTH``, the same 400."""


def error_body(rejection: RequestRejectedError) -> bytes:
    """The JSON answer for a rejection: ``{"error": {"code", "message", "details"}}``."""
    payload = {
        "error": {
            "code": rejection.code,
            "message": rejection.message,
            "details": list(rejection.details),
        }
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def check_method(method: str, allowed: str) -> None:
    """Refuse anything but ``allowed`` with 405 (the answer carries an ``Allow`` header)."""
    if method != allowed:
        raise RequestRejectedError(
            405,
            "method_not_allowed",
            f"{method} is not supported here; send {allowed}",
            headers={"allow": allowed},
        )


def check_content_type(content_type: Optional[str]) -> None:
    """Refuse a body that is not declared as JSON (``application/json``, any parameters)."""
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    ):
        return
    shown = content_type if content_type else "no Content-Type header"
    raise RequestRejectedError(
        415,
        "unsupported_media_type",
        "the request body must be JSON (Content-Type: application/json)",
        details=[f"got {shown}"],
    )


def check_declared_size(headers: Mapping[str, str], limit: int) -> None:
    """Refuse early when ``Content-Length`` already says the body is too large."""
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)


def too_large(limit: int) -> RequestRejectedError:
    """The 413 rejection for a body over ``limit`` bytes."""
    return RequestRejectedError(
        413,
        "payload_too_large",
        f"the request body is larger than the limit of {limit} bytes",
        details=[f"limit: {limit} bytes"],
    )


def body_timed_out(timeout: float) -> RequestRejectedError:
    """The 408 rejection for a body that did not arrive within ``timeout`` seconds; the answer
    closes the connection (what is left of the body will never be read)."""
    return RequestRejectedError(
        408,
        "request_timeout",
        f"the request body did not arrive within {timeout:g} s",
        details=[f"body_timeout: {timeout:g} s"],
        headers={"connection": "close"},
    )


def too_many_messages(limit: int) -> RequestRejectedError:
    """The 413 rejection for a body with more than ``limit`` messages."""
    return RequestRejectedError(
        413,
        "too_many_messages",
        f"the request has more than the limit of {limit} messages",
        details=[f"max_messages: {limit}"],
    )


def rejection_for(exc: AGUIValidationError) -> RequestRejectedError:
    """The 400 (``MalformedJSONError``) or 422 answer for a body that failed to parse."""
    if isinstance(exc, MalformedJSONError):
        if any(_TOO_DEEP_FOR_THE_PARSER in problem for problem in exc.problems):
            return _too_deep("the request body")
        return RequestRejectedError(
            400, "malformed_json", "the request body is not valid JSON", details=exc.problems
        )
    return RequestRejectedError(
        422,
        "invalid_run_input",
        "the request body is not a valid RunAgentInput",
        details=exc.problems,
    )


def check_depth(run_input: RunAgentInput) -> None:
    """Refuse free-form JSON nested deeper than ``MAX_JSON_DEPTH`` (400 ``too_deep``, naming
    the field). Walks only the fields that hold arbitrary JSON."""
    fields: list[tuple[str, Any]] = [
        ("state", run_input.state),
        ("forwardedProps", run_input.forwarded_props),
    ]
    for index, tool in enumerate(run_input.tools):
        fields.append((f"tools[{index}].parameters", tool.parameters))
    for index, message in enumerate(run_input.messages):
        content = getattr(message, "content", None)
        if isinstance(content, (dict, list)):
            fields.append((f"messages[{index}].content", content))
        metadata = getattr(message, "metadata", None)
        if metadata:
            fields.append((f"messages[{index}].metadata", metadata))
    for name, value in fields:
        if isinstance(value, (dict, list)) and _deeper_than(value, MAX_JSON_DEPTH):
            raise _too_deep(name)


def _too_deep(name: str) -> RequestRejectedError:
    return RequestRejectedError(
        400,
        "too_deep",
        f"{name} is nested more than {MAX_JSON_DEPTH} levels deep (objects and arrays inside "
        f"each other); flatten it to at most {MAX_JSON_DEPTH} levels",
    )


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests objects and arrays more than ``limit`` deep (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
            elif hasattr(child, "model_dump"):  # a content part: its own fields
                stack.append((child.model_dump(), depth + 1))
    return False
