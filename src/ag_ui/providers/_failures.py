"""Provider failures as ``ProviderError``: one stable code each, a message safe to show a user.

Both official SDKs (Stainless-generated) raise the same shapes: ``APIStatusError`` with
``status_code`` and the parsed error ``body``, ``APITimeoutError``, ``APIConnectionError``, and a
bare ``APIError`` for an error event inside a stream. The classification reads those shapes, so
it serves every API here; each provider passes its SDK's classes (``SDKErrors``).

The provider's own text never reaches the client unless the endpoint runs with ``debug``: it
can carry organisation ids, quotas or fragments of the prompt.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ag_ui.core.errors import ProviderError

__all__ = [
    "CODES",
    "SDKErrors",
    "classify",
    "code_for",
    "described",
    "failure",
    "not_an_event_stream",
    "retry_after",
    "stream_incomplete",
    "transport_errors",
    "unreadable",
]

CODES: dict[str, str] = {
    "rate_limited": "The model provider is rate limiting requests; retry in a moment.",
    "context_length_exceeded": (
        "The conversation is too long for the model's context window; start a new conversation "
        "or shorten this one."
    ),
    "provider_auth_failed": (
        "The model provider refused this server's credentials; check the API key it is "
        "configured with."
    ),
    "model_not_found": "The model provider does not know the configured model; check its name.",
    "provider_url_not_found": (
        "The model provider has no such API at the configured URL (HTTP 404); check the base URL."
    ),
    "provider_bad_request": "The model provider rejected the request.",
    "provider_overloaded": "The model provider is overloaded; retry in a moment.",
    "provider_error": "The model provider failed while answering; retry in a moment.",
    "provider_timeout": "The model provider did not answer in time.",
    "provider_unreachable": "The model provider could not be reached.",
    "provider_stream_incomplete": (
        "The model provider's stream ended before the answer was complete; retry."
    ),
    "provider_bad_response": "The model provider sent an answer this server cannot read.",
    "invalid_tool_arguments": (
        "The model called a tool with arguments that are not JSON (cut off or malformed); retry."
    ),
    "content_filtered": "The model provider withheld the answer (content filter).",
    "max_tokens_reached": (
        "The answer was cut off at the model's output token limit (raise max_tokens)."
    ),
}
"""Every code a provider failure can carry, with its public message (docs/providers.md)."""

_CONTEXT_WORDS = re.compile(
    r"context[ _-]?(length|window|size)|maximum context|prompt is too long|too many tokens|"
    r"exceeds? the (available )?context|input is too long|reduce the length",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SDKErrors:
    """The exception classes of one provider SDK (and its HTTP library's transport errors)."""

    api_error: type[BaseException]
    status_error: type[BaseException]
    connection_error: type[BaseException]
    timeout_error: type[BaseException]
    transport_error: tuple[type[BaseException], ...] = ()
    transport_timeout: tuple[type[BaseException], ...] = ()


def transport_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """The transport errors and timeouts of the HTTP libraries the SDKs use (``httpx2`` in the
    current SDKs, ``httpx`` before), which can escape a stream unwrapped."""
    errors: list[type[BaseException]] = []
    timeouts: list[type[BaseException]] = []
    for name in ("httpx2", "httpx"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        errors.append(module.TransportError)
        timeouts.append(module.TimeoutException)
    return tuple(errors), tuple(timeouts)


def failure(
    code: str,
    provider: str,
    *,
    debug: bool = False,
    detail: Optional[str] = None,
    status: Optional[int] = None,
    retry_after: Optional[float] = None,
) -> ProviderError:
    """The ``ProviderError`` for ``code`` (the provider's ``detail`` shown only in debug)."""
    message = CODES[code]
    if debug and detail:
        message = f"{message} ({provider} said: {detail})"
    return ProviderError(
        message,
        code=code,
        provider=provider,
        status=status,
        retry_after=retry_after,
        detail=detail,
    )


def stream_incomplete(
    provider: str, *, debug: bool = False, detail: Optional[str] = None
) -> ProviderError:
    return failure("provider_stream_incomplete", provider, debug=debug, detail=detail)


def unreadable(provider: str, exc: BaseException, *, debug: bool = False) -> ProviderError:
    """``provider_bad_response`` for a stream event the SDK or the adapter could not read: not
    JSON (the SDK's parser raised), or JSON of a shape the API does not send."""
    if isinstance(exc, json.JSONDecodeError):
        detail = f"a stream event is not JSON ({exc.msg} at character {exc.pos})"
    else:
        detail = f"a stream event has a shape the adapter cannot read ({type(exc).__name__}: {exc})"
    return failure("provider_bad_response", provider, debug=debug, detail=detail)


def not_an_event_stream(
    stream: Any, provider: str, *, debug: bool = False
) -> Optional[ProviderError]:
    """``provider_bad_response`` for an SDK stream whose answer was not an event stream (a 200
    of HTML or JSON: a base URL that is not the model API's, a server that ignored
    ``stream``), judged by its content type; ``None`` when it was one, or cannot be told."""
    headers = getattr(getattr(stream, "response", None), "headers", None)
    if headers is None:
        return None
    kind = str(headers.get("content-type") or "")
    if kind.split(";")[0].strip().lower() == "text/event-stream":
        return None
    detail = (
        f"the answer is {kind or 'of no content type'}, not an event stream: is the base URL "
        "the model API's?"
    )
    return failure("provider_bad_response", provider, debug=debug, detail=detail)


def _error_fields(body: Any) -> tuple[str, str, str]:
    """(type, code, message) of an error body, whichever of the usual shapes it has."""
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    if not isinstance(body, Mapping):
        return "", "", str(body) if isinstance(body, str) else ""
    return (
        str(body.get("type") or ""),
        str(body.get("code") or ""),
        str(body.get("message") or ""),
    )


def retry_after(exc: Any) -> Optional[float]:
    """The seconds an HTTP error's ``retry-after-ms`` / ``retry-after`` header asks to wait."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            return float(value) / divisor
        except ValueError:
            continue
    return None


def code_for(status: Optional[int], kind: str, code: str, message: str) -> str:
    """The stable code for an error with this HTTP status and body fields."""
    words = f"{kind} {code}".lower()
    if "context_length" in words or "context_size" in words or status == 413:
        return "context_length_exceeded"
    if status in (400, 422) and _CONTEXT_WORDS.search(message):
        return "context_length_exceeded"
    if status == 429 or "rate_limit" in words:
        return "rate_limited"
    if status == 529 or "overloaded" in words:
        return "provider_overloaded"
    if status in (401, 403) or "authentication" in words or "permission" in words:
        return "provider_auth_failed"
    if status == 404 or "not_found" in words:
        # A wrong path (a base URL without /v1...) is a 404 too, naming no model.
        named = f"{words} {message}".lower()
        return "model_not_found" if "model" in named else "provider_url_not_found"
    if status is not None and 400 <= status < 500:
        return "provider_bad_request"
    if "invalid_request" in words:
        return (
            "context_length_exceeded" if _CONTEXT_WORDS.search(message) else "provider_bad_request"
        )
    return "provider_error"


def classify(
    exc: BaseException,
    sdk: SDKErrors,
    *,
    provider: str,
    debug: bool = False,
    streaming: bool = False,
) -> Optional[ProviderError]:
    """The ``ProviderError`` for an exception the SDK raised, or ``None`` if it is not one.

    ``streaming``: the answer had started to arrive, so a broken connection cut the stream
    (``provider_stream_incomplete``) rather than never reaching the provider.
    """
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, json.JSONDecodeError):  # the SDK's SSE parser met an event that is not JSON
        return unreadable(provider, exc, debug=debug)
    if isinstance(exc, (sdk.timeout_error, *sdk.transport_timeout)):
        return failure("provider_timeout", provider, debug=debug, detail=_cause_text(exc))
    if isinstance(exc, (sdk.connection_error, *sdk.transport_error)):
        if streaming:
            return stream_incomplete(provider, debug=debug, detail=_cause_text(exc))
        return failure("provider_unreachable", provider, debug=debug, detail=_cause_text(exc))
    if isinstance(exc, sdk.status_error):
        status: Optional[int] = getattr(exc, "status_code", None)
        kind, code, message = _error_fields(getattr(exc, "body", None))
        if status is not None and 200 <= status < 300:
            status = None  # an error event inside a 200 stream: judge it by its body
        return failure(
            code_for(status, kind, code, message),
            provider,
            debug=debug,
            detail=message or str(exc),
            status=getattr(exc, "status_code", None),
            retry_after=retry_after(exc),
        )
    if isinstance(exc, sdk.api_error):
        kind, code, message = _error_fields(getattr(exc, "body", None))
        return failure(
            code_for(None, kind, code, message or str(exc)),
            provider,
            debug=debug,
            detail=message or str(exc),
        )
    return None


def _cause_text(exc: BaseException) -> str:
    cause = exc.__cause__
    return f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)


def described(exc: BaseException) -> str:
    """An SDK exception and its cause, for the server log (the SDKs' own text for a failed
    connection is only "Connection error.")."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__
    if cause is not None:
        text += f" ({type(cause).__name__}: {cause})"
    return text
