"""Anthropic's Messages API behind ``ModelProvider`` (``AnthropicMessages``). Needs the
``anthropic`` extra.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Optional

try:
    import anthropic
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.providers needs the Anthropic SDK for this model: install the anthropic extra "
        "(pip install 'ag-ui-sdk[anthropic]')"
    ) from exc

from ag_ui.providers._anthropic_request import anthropic_request
from ag_ui.providers._anthropic_stream import AnthropicAdapter
from ag_ui.providers._failures import SDKErrors, transport_errors
from ag_ui.providers._history import Conversation
from ag_ui.providers._provider import (
    ModelProvider,
    ModelStream,
    StreamAdapter,
    api_key_from_env,
    checked_base_url,
    checked_timeout,
)

__all__ = ["AnthropicMessages"]

DEFAULT_MAX_TOKENS = 4096

_TRANSPORT, _TIMEOUTS = transport_errors()
_ERRORS = SDKErrors(
    api_error=anthropic.APIError,
    status_error=anthropic.APIStatusError,
    connection_error=anthropic.APIConnectionError,
    timeout_error=anthropic.APITimeoutError,
    transport_error=_TRANSPORT,
    transport_timeout=_TIMEOUTS,
)


class AnthropicMessages(ModelProvider):
    """A Claude model behind the Messages API.

    ``client``: your own ``anthropic.AsyncAnthropic`` (else one is made from ``base_url``,
    ``api_key`` (default ``$ANTHROPIC_API_KEY``), ``timeout``, ``max_retries``). ``max_tokens``
    (required by the API) defaults to 4096. Other keyword arguments go into every request:
    ``thinking={"type": "enabled", "budget_tokens": 2048}`` turns on extended thinking, whose
    signed blocks the agent sends back around tool calls as the API requires.
    """

    provider = "anthropic"
    api = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        client: Optional[anthropic.AsyncAnthropic] = None,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        provider_name: Optional[str] = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        **options: Any,
    ) -> None:
        super().__init__(
            model, provider_name=provider_name, options={"max_tokens": max_tokens, **options}
        )
        self._owns_client = client is None
        if client is None:
            if base_url:
                checked_base_url(base_url)
            else:
                base_url = checked_base_url(
                    os.environ.get("ANTHROPIC_BASE_URL") or None, source="ANTHROPIC_BASE_URL"
                )
            key = api_key_from_env(
                api_key,
                ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
                base_url=base_url,
                who="Anthropic",
            )
            settings: dict[str, Any] = {"api_key": key}
            if base_url:
                settings["base_url"] = base_url
            if checked_timeout(timeout) is not None:
                settings["timeout"] = timeout
            if max_retries is not None:
                settings["max_retries"] = max_retries
            client = anthropic.AsyncAnthropic(**settings)
        self.use_client(client)

    def build_request(self, conversation: Conversation) -> dict[str, Any]:
        return self._merged(anthropic_request(conversation))

    async def open_stream(self, request: dict[str, Any]) -> ModelStream:
        stream: ModelStream = await self._single_try.messages.create(**request)
        return stream

    def adapter(
        self, *, message_id: str, new_id: Callable[[str], str], debug: bool = False
    ) -> StreamAdapter:
        return AnthropicAdapter(
            message_id=message_id, new_id=new_id, provider=self.provider, debug=debug
        )

    def sdk_errors(self) -> SDKErrors:
        return _ERRORS
